package configstore

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
)

func TestEditErrors(t *testing.T) {
	tests := []struct {
		name     string
		edits    []device.Edit
		code     int
		detail   string // substring of the detail
		path     string // expected error path ("" = not checked)
		maxEdits int
	}{
		{name: "unparsable path", code: netproto.CodeYangSyntaxError, detail: "edit 1 of 1",
			edits: []device.Edit{{Path: "/openconfig-vlan:vlans/vlan[vlan-id='1'", Value: 1}},
			path:  "/openconfig-vlan:vlans/vlan[vlan-id='1'"},
		{name: "path without module", code: netproto.CodeYangSyntaxError,
			edits: []device.Edit{{Path: "/vlans/vlan", Value: 1}}},
		{name: "unknown node", code: netproto.CodeConfigIncompatible, detail: "edit 2 of 2",
			edits: []device.Edit{hostnameEdit("r9"), {Path: "/openconfig-system:system/config/no-such-leaf", Value: "x"}}},
		{name: "unknown module", code: netproto.CodeConfigIncompatible,
			edits: []device.Edit{{Path: "/acme-widgets:widgets", Value: map[string]any{}}}},
		{name: "unknown operation", code: netproto.CodeYangSyntaxError, detail: `unknown operation "frobnicate"`,
			edits: []device.Edit{{Operation: "frobnicate", Path: "/openconfig-system:system/config/hostname", Value: "x"}}},
		{name: "create existing", code: netproto.CodeYangSyntaxError,
			edits: []device.Edit{{Operation: device.OpCreate, Path: "/openconfig-system:system/config/hostname", Value: "x"}}},
		{name: "delete missing", code: netproto.CodeYangSyntaxError,
			edits: []device.Edit{{Operation: device.OpDelete, Path: "/openconfig-vlan:vlans/vlan[vlan-id='7']"}}},
		{name: "vlan 4095 (MCP-NET 7.2)", code: netproto.CodeConfigIncompatible, detail: "VLAN 4095 > maximum 4094",
			path:  "/openconfig-vlan:vlans/vlan/config/vlan-id",
			edits: []device.Edit{vlanEdit(10, "ok"), vlanEdit(4095, "bad")}},
		{name: "wrong value type", code: netproto.CodeYangSyntaxError, detail: "want a string",
			path:  "/openconfig-system:system/config/hostname",
			edits: []device.Edit{{Path: "/openconfig-system:system/config/hostname", Value: map[string]any{"a": 1}}}},
		{name: "value not JSON", code: netproto.CodeYangSyntaxError, detail: "edit 1 of 1: yang: value is not JSON",
			edits: []device.Edit{{Path: "/openconfig-system:system/config/hostname", Value: make(chan int)}}},
		{name: "too many edits", code: netproto.CodeConfigIncompatible, detail: "request has 4 edits; maxBulkEdit is 3",
			maxEdits: 3,
			edits:    []device.Edit{hostnameEdit("a"), hostnameEdit("b"), hostnameEdit("c"), hostnameEdit("d")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &env{t: t, clk: newClock(t0)}
			opts := e.options()
			opts.MaxBulkEdit = tt.maxEdits
			s, err := Open(initialConfig(), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			// An earlier successful edit must survive the failed one untouched.
			if err := s.Edit(ctx, alice, []device.Edit{vlanEdit(20, "before")}); err != nil {
				t.Fatal(err)
			}
			before := s.Candidate(alice)
			err = s.Edit(ctx, alice, tt.edits)
			if got := code(err); got != tt.code {
				t.Fatalf("code = %d (%v), want %d", got, err, tt.code)
			}
			var ne *netproto.Error
			errors.As(err, &ne)
			if !strings.Contains(ne.Detail, tt.detail) {
				t.Errorf("detail %q does not contain %q", ne.Detail, tt.detail)
			}
			if tt.path != "" && ne.Path != tt.path {
				t.Errorf("path = %q, want %q", ne.Path, tt.path)
			}
			if !equalTrees(s.Candidate(alice), before) {
				t.Errorf("candidate changed by a failed edit")
			}
			// Bob's failed edit (on a free lock) must not take the lock.
			s.Release(alice)
			s.Edit(ctx, bob, tt.edits)
			if h, ok := s.LockHolder(); ok {
				t.Errorf("a failed edit took the lock for %v", h)
			}
		})
	}
}

func TestEditAllOperations(t *testing.T) {
	e := newEnv(t, "")
	e.edit(alice, vlanEdit(100, "users"), vlanEdit(200, "voice"))
	e.edit(alice,
		device.Edit{Operation: device.OpReplace, Path: "/openconfig-vlan:vlans/vlan[vlan-id='100']/config",
			Value: map[string]any{"vlan-id": 100, "name": "staff"}},
		device.Edit{Operation: device.OpDelete, Path: "/openconfig-vlan:vlans/vlan[vlan-id='200']"},
		device.Edit{Operation: device.OpRemove, Path: "/openconfig-vlan:vlans/vlan[vlan-id='300']"},
		device.Edit{Operation: device.OpCreate, Path: "/openconfig-vlan:vlans/vlan[vlan-id='300']",
			Value: map[string]any{"vlan-id": 300, "config": map[string]any{"vlan-id": 300}}},
	)
	d, err := e.s.Diff(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changes) == 0 || !strings.Contains(d.Unified, "staff") || strings.Contains(d.Unified, "voice") {
		t.Fatalf("unexpected diff:\n%s\n%+v", d.Unified, d.Changes)
	}
	if !strings.HasPrefix(d.Unified, "--- running") || !strings.Contains(d.Unified, "+++ candidate") {
		t.Errorf("unified diff header: %q", d.Unified)
	}
	if err := e.s.Validate(ctx, alice); err != nil {
		t.Errorf("Validate: %v", err)
	}
	// Running is untouched until the commit.
	if len(e.s.Running()) != 2 {
		t.Errorf("running changed before commit: %v", e.s.Running())
	}
}

func TestLocking(t *testing.T) {
	e := newEnv(t, "")
	e.edit(alice, hostnameEdit("r1-alice"))
	if h, ok := e.s.LockHolder(); !ok || h != alice {
		t.Fatalf("LockHolder = %v %v", h, ok)
	}
	if got := hostnameOf(e.s.Candidate(bob)); got != "r1" {
		t.Errorf("bob sees candidate hostname %q, want running's r1", got)
	}
	calls := map[string]func() error{
		"Edit":             func() error { return e.s.Edit(ctx, bob, []device.Edit{hostnameEdit("r1-bob")}) },
		"ReplaceCandidate": func() error { return e.s.ReplaceCandidate(ctx, bob, initialConfig()) },
		"Commit":           func() error { _, err := e.s.Commit(ctx, bob, device.CommitOptions{}); return err },
		"Discard":          func() error { return e.s.Discard(ctx, bob) },
		"Rollback":         func() error { _, err := e.s.Rollback(ctx, bob, ""); return err },
	}
	for name, call := range calls {
		err := call()
		var le *LockedError
		if !errors.As(err, &le) || le.Holder != alice {
			t.Errorf("%s by bob: err = %v, want *LockedError held by alice", name, err)
			continue
		}
		if !strings.Contains(err.Error(), "session s1") || !strings.Contains(err.Error(), "user alice") {
			t.Errorf("%s: message does not name the holder: %q", name, err)
		}
	}
	// Bob's Release does not touch alice's lock.
	e.s.Release(bob)
	if got := hostnameOf(e.s.Candidate(alice)); got != "r1-alice" {
		t.Errorf("alice's candidate lost: %q", got)
	}
	// Alice's session ends: candidate discarded, lock free.
	e.s.Release(alice)
	if _, ok := e.s.LockHolder(); ok {
		t.Fatal("lock still held after Release")
	}
	if got := hostnameOf(e.s.Candidate(alice)); got != "r1" {
		t.Errorf("candidate after Release = %q, want running's", got)
	}
	e.edit(bob, hostnameEdit("r1-bob"))
	// Discard by the holder frees the lock; a commit does too.
	if err := e.s.Discard(ctx, bob); err != nil {
		t.Fatal(err)
	}
	e.edit(alice, hostnameEdit("r2"))
	e.commit(alice, device.CommitOptions{})
	if _, ok := e.s.LockHolder(); ok {
		t.Error("lock still held after commit")
	}
	e.edit(bob, hostnameEdit("r3"))
}

func TestTwoOwnersRacing(t *testing.T) {
	for round := 0; round < 20; round++ {
		e := newEnv(t, "")
		owners := []device.Owner{alice, bob, {Session: "s3", User: "carol"}, {Session: "s4", User: "dave"}}
		var wg sync.WaitGroup
		errs := make([]error, len(owners))
		for i, o := range owners {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if errs[i] = e.s.Edit(ctx, o, []device.Edit{hostnameEdit("by-" + o.User)}); errs[i] != nil {
					return
				}
				_, errs[i] = e.s.Commit(ctx, o, device.CommitOptions{Comment: o.User})
			}()
		}
		wg.Wait()
		wins := 0
		for i, err := range errs {
			var le *LockedError
			switch {
			case err == nil:
				wins++
				if got := e.hostname(); got != "by-"+owners[i].User {
					// A later winner may have committed after; check history instead.
					_ = got
				}
			case errors.As(err, &le):
			default:
				t.Fatalf("owner %v: unexpected error %v", owners[i], err)
			}
		}
		if wins == 0 {
			t.Fatal("nobody won the lock")
		}
		h := e.history()
		if len(h) != wins {
			t.Fatalf("history has %d commits, %d owners succeeded", len(h), wins)
		}
		if got, want := e.hostname(), "by-"+h[0].User; got != want {
			t.Fatalf("running hostname %q, last commit by %s", got, h[0].User)
		}
		e.s.Close()
	}
}

func TestReplaceCandidate(t *testing.T) {
	e := newEnv(t, "")
	tree := initialConfig()
	tree["openconfig-system:system"] = map[string]any{"config": map[string]any{"hostname": "replaced"}}
	if err := e.s.ReplaceCandidate(ctx, alice, tree); err != nil {
		t.Fatal(err)
	}
	// The store keeps its own copy, nested maps included.
	tree["openconfig-system:system"].(map[string]any)["config"].(map[string]any)["hostname"] = "scribbled"
	tree["openconfig-system:system"] = nil
	if got := hostnameOf(e.s.Candidate(alice)); got != "replaced" {
		t.Fatalf("candidate hostname %q", got)
	}
	bad := initialConfig()
	bad["openconfig-vlan:vlans"] = map[string]any{"vlan": []any{map[string]any{"vlan-id": 4095.0,
		"config": map[string]any{"vlan-id": 4095.0}}}}
	if err := e.s.ReplaceCandidate(ctx, alice, bad); code(err) != netproto.CodeConfigIncompatible {
		t.Fatalf("invalid replace: %v", err)
	}
	if got := hostnameOf(e.s.Candidate(alice)); got != "replaced" {
		t.Fatalf("failed replace changed the candidate: %q", got)
	}
}

func TestDiffDoesNotAlias(t *testing.T) {
	e := newEnv(t, "")
	e.edit(alice, vlanEdit(100, "users"))
	d, err := e.s.Diff(ctx, alice)
	if err != nil || len(d.Changes) != 1 {
		t.Fatalf("diff %+v %v", d, err)
	}
	// Scribbling over the returned values must not reach the store.
	clear(d.Changes[0].New.(map[string]any))
	if d2, _ := e.s.Diff(ctx, alice); len(d2.Changes) != 1 || len(d2.Changes[0].New.(map[string]any)) == 0 {
		t.Fatal("diff values alias the candidate")
	}
	c := e.s.Candidate(alice)
	clear(c)
	r := e.s.Running()
	clear(r)
	if len(e.s.Candidate(alice)) == 0 || len(e.s.Running()) == 0 {
		t.Fatal("returned trees alias the store's")
	}
	if mb, rt := e.s.Limits(); mb != 1000 || rt != 300 {
		t.Errorf("Limits = %d, %d", mb, rt)
	}
}
