package configstore

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
)

func TestCommit(t *testing.T) {
	e := newEnv(t, "")
	e.edit(alice, hostnameEdit("r2"))

	dry := e.commit(alice, device.CommitOptions{DryRun: true})
	if dry.Status != device.StatusDryRun || dry.Diff == nil || len(dry.Diff.Changes) != 1 {
		t.Fatalf("dry run = %+v", dry)
	}
	if e.hostname() != "r1" || len(e.history()) != 0 || e.lastApplied() != nil {
		t.Fatal("dry run changed something")
	}

	r := e.commit(alice, device.CommitOptions{Comment: "rename"})
	if r.Status != device.StatusCommitted || r.CommitID != "2025-10-19-03-27-00" || r.RollbackTimeout != 0 {
		t.Fatalf("commit = %+v", r)
	}
	if e.hostname() != "r2" || hostnameOf(e.lastApplied()) != "r2" {
		t.Fatalf("running %q applied %q", e.hostname(), hostnameOf(e.lastApplied()))
	}
	h := e.history()
	want := device.CommitInfo{ID: r.CommitID, Time: t0, User: "alice", Session: "s1", Comment: "rename",
		Status: device.StatusCommitted}
	if len(h) != 1 || h[0] != want {
		t.Fatalf("history = %+v, want %+v", h, want)
	}
	if l := e.lastLog(); l.Mnemonic != "CONFIG-5-COMMIT" || l.Severity != 5 || !strings.Contains(l.Message, r.CommitID) {
		t.Errorf("log = %+v", l)
	}

	// Nothing changed: no-changes and no history entry.
	if r := e.commit(bob, device.CommitOptions{}); r.Status != device.StatusNoChanges {
		t.Fatalf("empty commit = %+v", r)
	}
	if len(e.history()) != 1 {
		t.Fatal("no-changes commit added history")
	}
	// An edit that restores running is no change either, and frees the lock.
	e.edit(alice, hostnameEdit("r2"))
	if r := e.commit(alice, device.CommitOptions{}); r.Status != device.StatusNoChanges {
		t.Fatalf("identity commit = %+v", r)
	}
	if _, ok := e.s.LockHolder(); ok {
		t.Error("lock held after no-changes commit")
	}

	// Same second: suffixed ids.
	for i, want := range []string{"2025-10-19-03-27-00-2", "2025-10-19-03-27-00-3"} {
		e.edit(alice, hostnameEdit(string(rune('a'+i))))
		if r := e.commit(alice, device.CommitOptions{}); r.CommitID != want {
			t.Fatalf("commit id %q, want %q", r.CommitID, want)
		}
	}
	e.clk.Advance(61 * time.Second)
	e.edit(alice, hostnameEdit("later"))
	if r := e.commit(alice, device.CommitOptions{}); r.CommitID != "2025-10-19-03-28-01" {
		t.Fatalf("commit id %q", r.CommitID)
	}
	if got := e.history(); len(got) != 4 || got[0].ID != "2025-10-19-03-28-01" || got[3].ID != "2025-10-19-03-27-00" {
		t.Fatalf("history not newest first: %+v", got)
	}
}

func TestConfirmedCommit(t *testing.T) {
	type step func(e *env) error
	confirm := func(e *env) error { _, err := e.s.Confirm(ctx, bob); return err }
	cancel := func(e *env) error { _, err := e.s.CancelCommit(ctx, bob); return err }
	advance := func(d time.Duration) step { return func(e *env) error { e.clk.Advance(d); return nil } }
	commitC := func(name string, secs int) step {
		return func(e *env) error {
			if name != "" {
				e.edit(alice, hostnameEdit(name))
			}
			_, err := e.s.Commit(ctx, alice, device.CommitOptions{Confirmed: secs})
			return err
		}
	}
	tests := []struct {
		name     string
		steps    []step
		errCode  int      // of the last step
		hostname string   // running at the end
		statuses []string // history statuses, newest first
		pending  bool
		logs     []string // mnemonics after the first confirmed commit
	}{
		{name: "confirm in time", steps: []step{advance(119 * time.Second), confirm},
			hostname: "r2", statuses: []string{"confirmed"}, logs: []string{"CONFIG-5-CONFIRM"}},
		{name: "cancel", steps: []step{cancel},
			hostname: "r1", statuses: []string{"cancelled"}, logs: []string{"CONFIG-5-CANCEL"}},
		{name: "timer fires", steps: []step{advance(120 * time.Second)},
			hostname: "r1", statuses: []string{"rolled-back"}, logs: []string{"CONFIG-4-ROLLBACK"}},
		{name: "confirm after expiry", steps: []step{advance(121 * time.Second), confirm},
			errCode: netproto.CodeConfirmedCommitTimeout, hostname: "r1", statuses: []string{"rolled-back"},
			logs: []string{"CONFIG-4-ROLLBACK"}},
		{name: "cancel after expiry", steps: []step{advance(121 * time.Second), cancel},
			errCode: netproto.CodeConfirmedCommitTimeout, hostname: "r1", statuses: []string{"rolled-back"},
			logs: []string{"CONFIG-4-ROLLBACK"}},
		{name: "confirm twice", steps: []step{confirm, confirm},
			errCode: netproto.CodeConfigIncompatible, hostname: "r2", statuses: []string{"confirmed"},
			logs: []string{"CONFIG-5-CONFIRM"}},
		{name: "follow-up resets timer, rollback restores pre-first config",
			steps:    []step{advance(100 * time.Second), commitC("r3", 60), advance(59 * time.Second)},
			hostname: "r3", statuses: []string{"committed", "committed"}, pending: true,
			logs: []string{"CONFIG-5-COMMIT"}},
		{name: "follow-up then expiry",
			steps:    []step{advance(100 * time.Second), commitC("r3", 60), advance(60 * time.Second)},
			hostname: "r1", statuses: []string{"rolled-back", "rolled-back"},
			logs: []string{"CONFIG-5-COMMIT", "CONFIG-4-ROLLBACK"}},
		{name: "follow-up then cancel", steps: []step{commitC("r3", 60), cancel},
			hostname: "r1", statuses: []string{"cancelled", "cancelled"},
			logs: []string{"CONFIG-5-COMMIT", "CONFIG-5-CANCEL"}},
		{name: "follow-up without changes extends",
			steps:    []step{advance(100 * time.Second), commitC("", 60), advance(59 * time.Second)},
			hostname: "r2", statuses: []string{"committed"}, pending: true, logs: []string{"CONFIG-5-COMMIT"}},
		{name: "plain commit confirms", steps: []step{commitC("r3", 0), advance(time.Hour)},
			hostname: "r3", statuses: []string{"committed", "confirmed"}, logs: []string{"CONFIG-5-COMMIT"}},
		{name: "plain commit without changes confirms", steps: []step{commitC("", 0), advance(time.Hour)},
			hostname: "r2", statuses: []string{"confirmed"}, logs: []string{"CONFIG-5-CONFIRM"}},
		{name: "rollback refused while pending",
			steps:   []step{func(e *env) error { _, err := e.s.Rollback(ctx, bob, ""); return err }},
			errCode: netproto.CodeRollbackFailed, hostname: "r2", statuses: []string{"committed"}, pending: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, t.TempDir())
			e.edit(alice, hostnameEdit("r2"))
			r := e.commit(alice, device.CommitOptions{Confirmed: 120, Comment: "try"})
			if r.Status != device.StatusCommitted || r.RollbackTimeout != 120 || !r.Deadline.Equal(t0.Add(120*time.Second)) {
				t.Fatalf("confirmed commit = %+v", r)
			}
			if p, ok := e.s.Pending(); !ok || p.ID != r.CommitID || p.Before != "" || p.Owner != alice {
				t.Fatalf("Pending = %+v %v", p, ok)
			}
			nlogs := len(e.mnemonics())
			var err error
			for _, s := range tt.steps {
				err = s(e)
			}
			if code(err) != tt.errCode || (tt.errCode == 0) != (err == nil) {
				t.Fatalf("last step: err = %v, want code %d", err, tt.errCode)
			}
			if got := e.hostname(); got != tt.hostname {
				t.Errorf("running hostname %q, want %q", got, tt.hostname)
			}
			if got := hostnameOf(e.lastApplied()); got != tt.hostname {
				t.Errorf("device got %q, want %q", got, tt.hostname)
			}
			var statuses []string
			for _, c := range e.history() {
				statuses = append(statuses, c.Status)
			}
			if !slices.Equal(statuses, tt.statuses) {
				t.Errorf("statuses %v, want %v", statuses, tt.statuses)
			}
			if _, ok := e.s.Pending(); ok != tt.pending {
				t.Errorf("pending = %v, want %v", ok, tt.pending)
			}
			if want := map[bool]int{true: 1, false: 0}[tt.pending]; e.clk.Armed() != want {
				t.Errorf("%d timers armed, want %d", e.clk.Armed(), want)
			}
			if got := e.mnemonics()[nlogs:]; !slices.Equal(got, tt.logs) {
				t.Errorf("logs %v, want %v", got, tt.logs)
			}
			// The store on disk agrees with memory.
			running, hist := e.s.Running(), e.history()
			e.reopen()
			if !equalTrees(e.s.Running(), running) || !slices.Equal(e.history(), hist) {
				t.Errorf("reopened state differs")
			}
		})
	}
}

func TestExpiryMessages(t *testing.T) {
	e := newEnv(t, "")
	e.edit(alice, hostnameEdit("r2"))
	r := e.commit(alice, device.CommitOptions{Confirmed: 120})
	e.clk.Advance(2 * time.Minute)
	l := e.lastLog()
	if l.Severity != 4 || l.Mnemonic != "CONFIG-4-ROLLBACK" || !strings.Contains(l.Message, r.CommitID) ||
		!strings.Contains(l.Text, "%CONFIG-4-ROLLBACK: ") {
		t.Errorf("log = %+v", l)
	}
	_, err := e.s.Confirm(ctx, alice)
	var ne *netproto.Error
	if !errors.As(err, &ne) {
		t.Fatalf("Confirm: %v", err)
	}
	want := "confirmed commit 2025-10-19-03-27-00 expired at 2025-10-19T03:29:00Z; configuration rolled back"
	if ne.Code != netproto.CodeConfirmedCommitTimeout || ne.Detail != want || ne.Message() != "Network.ConfirmedCommitTimeout" {
		t.Errorf("Confirm error = %d %q", ne.Code, ne.Detail)
	}
	// The rolled-back configuration stays in the history.
	cfg, err := e.s.Config(r.CommitID)
	if err != nil || hostnameOf(cfg) != "r2" {
		t.Errorf("Config(%s) = %v, %v", r.CommitID, hostnameOf(cfg), err)
	}
	// The next commit clears the expiry: Confirm then says nothing is pending.
	e.edit(alice, hostnameEdit("r3"))
	e.commit(alice, device.CommitOptions{})
	if _, err := e.s.Confirm(ctx, alice); code(err) != netproto.CodeConfigIncompatible ||
		!strings.Contains(err.Error(), "no confirmed commit is pending") {
		t.Errorf("Confirm with nothing pending: %v", err)
	}
	// Default timeout.
	e.edit(alice, hostnameEdit("r4"))
	if r := e.commit(alice, device.CommitOptions{Confirmed: -1}); r.RollbackTimeout != 300 {
		t.Errorf("default confirm timeout = %d", r.RollbackTimeout)
	}
}

func TestRollback(t *testing.T) {
	e := newEnv(t, "")
	if _, err := e.s.Rollback(ctx, alice, ""); code(err) != netproto.CodeRollbackFailed {
		t.Fatalf("rollback with no commits: %v", err)
	}
	var ids []string
	for _, h := range []string{"a", "b", "c"} {
		e.clk.Advance(time.Second)
		e.edit(alice, hostnameEdit(h))
		ids = append(ids, e.commit(alice, device.CommitOptions{}).CommitID)
	}
	tests := []struct {
		id       string
		status   string
		code     int
		hostname string
	}{
		{id: "", status: device.StatusRolledBack, hostname: "b"}, // before c
		{id: "", status: device.StatusRolledBack, hostname: "c"}, // before the rollback: toggles
		{id: ids[0], status: device.StatusRolledBack, hostname: "a"},
		{id: ids[0], status: device.StatusNoChanges, hostname: "a"},
		{id: "nope", code: netproto.CodeRollbackFailed, hostname: "a"},
	}
	n := len(e.history())
	for i, tt := range tests {
		e.clk.Advance(time.Second)
		r, err := e.s.Rollback(ctx, bob, tt.id)
		if code(err) != tt.code || r.Status != tt.status {
			t.Fatalf("step %d: Rollback(%q) = %+v, %v", i, tt.id, r, err)
		}
		if e.hostname() != tt.hostname || hostnameOf(e.lastApplied()) != tt.hostname {
			t.Fatalf("step %d: hostname %q applied %q, want %q", i, e.hostname(), hostnameOf(e.lastApplied()), tt.hostname)
		}
		if tt.status == device.StatusRolledBack {
			n++
			h := e.history()
			if len(h) != n || h[0].ID != r.CommitID || h[0].User != "bob" || !strings.HasPrefix(h[0].Comment, "rollback to ") {
				t.Fatalf("step %d: history %+v", i, h[0])
			}
			if r.Diff == nil || len(r.Diff.Changes) == 0 {
				t.Errorf("step %d: no diff in result", i)
			}
		}
	}
	if _, err := e.s.Rollback(ctx, bob, "nope"); !strings.Contains(err.Error(), `unknown commit id "nope"`) {
		t.Errorf("detail: %v", err)
	}
	// Rollback discards the caller's own candidate.
	e.edit(bob, hostnameEdit("draft"))
	if _, err := e.s.Rollback(ctx, bob, ids[1]); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.s.LockHolder(); ok || e.hostname() != "b" {
		t.Errorf("after rollback: lock held %v, hostname %q", ok, e.hostname())
	}
	// After an automatic rollback, "" means before the last commit in effect.
	e.edit(alice, hostnameEdit("z"))
	e.commit(alice, device.CommitOptions{Confirmed: 10})
	e.clk.Advance(10 * time.Second)
	if e.hostname() != "b" {
		t.Fatalf("auto rollback left %q", e.hostname())
	}
	if _, err := e.s.Rollback(ctx, alice, ""); err != nil || e.hostname() != "a" {
		t.Fatalf("rollback after expiry: %q, %v", e.hostname(), err)
	}
}

func TestApplyRefused(t *testing.T) {
	e := newEnv(t, "")
	e.edit(alice, hostnameEdit("r2"))
	e.setApplyErr(errors.New("TCAM full"))
	_, err := e.s.Commit(ctx, alice, device.CommitOptions{})
	if code(err) != netproto.CodeConfigIncompatible || !strings.Contains(err.Error(), "TCAM full") {
		t.Fatalf("commit refused: %v", err)
	}
	if e.hostname() != "r1" || len(e.history()) != 0 {
		t.Fatal("refused commit changed running or history")
	}
	if h, ok := e.s.LockHolder(); !ok || h != alice || hostnameOf(e.s.Candidate(alice)) != "r2" {
		t.Fatal("refused commit lost the candidate")
	}
	// A *netproto.Error from Apply keeps its code.
	e.setApplyErr(netproto.Errorf(netproto.CodeHardwareFailure, "TCAM exhausted"))
	if _, err := e.s.Commit(ctx, alice, device.CommitOptions{}); code(err) != netproto.CodeHardwareFailure {
		t.Fatalf("commit refused with -32089: %v", err)
	}
	e.setApplyErr(nil)
	e.commit(alice, device.CommitOptions{})
	e.setApplyErr(errors.New("no"))
	if _, err := e.s.Rollback(ctx, alice, ""); code(err) != netproto.CodeRollbackFailed {
		t.Fatalf("rollback refused: %v", err)
	}
	// Cancel refused: -32085 and still pending.
	e.setApplyErr(nil)
	e.edit(alice, hostnameEdit("r3"))
	e.commit(alice, device.CommitOptions{Confirmed: 30})
	e.setApplyErr(errors.New("busy"))
	if _, err := e.s.CancelCommit(ctx, alice); code(err) != netproto.CodeRollbackFailed {
		t.Fatalf("cancel refused: %v", err)
	}
	if _, ok := e.s.Pending(); !ok {
		t.Fatal("refused cancel dropped the pending commit")
	}
	// Timer fires while the device refuses: logged, retried later.
	e.clk.Advance(30 * time.Second)
	if l := e.lastLog(); l.Mnemonic != "CONFIG-3-ROLLBACK_FAILED" || e.hostname() != "r3" {
		t.Fatalf("failed auto rollback: log %+v hostname %q", l, e.hostname())
	}
	e.setApplyErr(nil)
	e.clk.Advance(retryDelay)
	if l := e.lastLog(); l.Mnemonic != "CONFIG-4-ROLLBACK" || e.hostname() != "r2" {
		t.Fatalf("retried auto rollback: log %+v hostname %q", l, e.hostname())
	}
}

func TestClosed(t *testing.T) {
	e := newEnv(t, "")
	e.edit(alice, hostnameEdit("r2"))
	e.commit(alice, device.CommitOptions{Confirmed: 5})
	e.s.Close()
	e.clk.Advance(time.Minute) // the timer was stopped
	if e.hostname() != "r2" {
		t.Fatal("timer fired after Close")
	}
	if err := e.s.Edit(ctx, alice, []device.Edit{hostnameEdit("x")}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Edit after Close: %v", err)
	}
	if _, err := e.s.Confirm(ctx, alice); !errors.Is(err, ErrClosed) {
		t.Fatalf("Confirm after Close: %v", err)
	}
}
