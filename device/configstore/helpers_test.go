package configstore

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

var (
	ctx   = context.Background()
	alice = device.Owner{Session: "s1", User: "alice"}
	bob   = device.Owner{Session: "s2", User: "bob"}
	t0    = time.Date(2025, 10, 19, 3, 27, 0, 0, time.UTC)
)

// env is a Store with a fake clock, recording Apply calls and log entries.
type env struct {
	t   *testing.T
	s   *Store
	clk *fakeClock
	dir string

	mu       sync.Mutex
	logs     []device.LogEntry
	applied  []map[string]any
	applyErr error
}

func (e *env) options() Options {
	apply := func(r map[string]any) error {
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.applyErr != nil {
			return e.applyErr
		}
		e.applied = append(e.applied, r)
		return nil
	}
	return Options{
		Dir:       e.dir,
		Schema:    yang.DefaultSchema(),
		Now:       e.clk.Now,
		AfterFunc: e.clk.AfterFunc,
		Apply:     apply,
		Reload:    apply,
		Log: func(l device.LogEntry) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.logs = append(e.logs, l)
		},
	}
}

// newEnv opens a store over dir ("" = memory) with the initial config.
func newEnv(t *testing.T, dir string) *env {
	t.Helper()
	e := &env{t: t, clk: newClock(t0), dir: dir}
	e.open()
	t.Cleanup(func() { e.s.Close() })
	return e
}

// open (re)opens the store over e.dir with e's clock.
func (e *env) open() {
	e.t.Helper()
	s, err := Open(initialConfig(), e.options())
	if err != nil {
		e.t.Fatalf("Open: %v", err)
	}
	e.s = s
}

// reopen closes the store (as a crash would leave it: no confirm) and opens it again.
func (e *env) reopen() {
	e.t.Helper()
	if err := e.s.Close(); err != nil {
		e.t.Fatal(err)
	}
	e.open()
}

func (e *env) setApplyErr(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.applyErr = err
}

func (e *env) lastApplied() map[string]any {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.applied) == 0 {
		return nil
	}
	return e.applied[len(e.applied)-1]
}

// mnemonics returns the mnemonics logged so far.
func (e *env) mnemonics() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, l := range e.logs {
		out = append(out, l.Mnemonic)
	}
	return out
}

func (e *env) lastLog() device.LogEntry {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.logs) == 0 {
		return device.LogEntry{}
	}
	return e.logs[len(e.logs)-1]
}

func (e *env) edit(o device.Owner, edits ...device.Edit) {
	e.t.Helper()
	if err := e.s.Edit(ctx, o, edits); err != nil {
		e.t.Fatalf("Edit: %v", err)
	}
}

func (e *env) commit(o device.Owner, opts device.CommitOptions) device.CommitResult {
	e.t.Helper()
	r, err := e.s.Commit(ctx, o, opts)
	if err != nil {
		e.t.Fatalf("Commit: %v", err)
	}
	return r
}

func (e *env) history() []device.CommitInfo {
	e.t.Helper()
	h, err := e.s.History(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	return h
}

func (e *env) hostname() string {
	return hostnameOf(e.s.Running())
}

func hostnameOf(t map[string]any) string {
	v, err := yang.Get(t, yang.MustParsePath("/openconfig-system:system/config/hostname"))
	if err != nil {
		return ""
	}
	s, _ := v.(string)
	return s
}

func initialConfig() map[string]any {
	return map[string]any{
		"openconfig-system:system": map[string]any{"config": map[string]any{"hostname": "r1"}},
		"openconfig-interfaces:interfaces": map[string]any{"interface": []any{
			map[string]any{"name": "GigabitEthernet0/0/0/0",
				"config": map[string]any{"name": "GigabitEthernet0/0/0/0",
					"type": "iana-if-type:ethernetCsmacd", "mtu": 1500.0, "enabled": true}},
		}},
	}
}

func hostnameEdit(h string) device.Edit {
	return device.Edit{Path: "/openconfig-system:system/config/hostname", Value: h}
}

func vlanEdit(id int, name string) device.Edit {
	return device.Edit{
		Path:  fmt.Sprintf("/openconfig-vlan:vlans/vlan[vlan-id='%d']", id),
		Value: map[string]any{"vlan-id": id, "config": map[string]any{"vlan-id": id, "name": name}},
	}
}

// code returns the MCP-NET code of err, or 0.
func code(err error) int {
	var ne *netproto.Error
	if errors.As(err, &ne) {
		return ne.Code
	}
	return 0
}

func equalTrees(a, b map[string]any) bool {
	return len(yang.Diff(a, b, nil)) == 0 && reflect.DeepEqual(a, b)
}

// withConfigure is a Store plus a driver's Configure: it must be a
// device.Configurer.
type withConfigure struct{ *Store }

func (withConfigure) Configure(context.Context, device.Owner, []string) error { return nil }

var _ device.Configurer = withConfigure{}
