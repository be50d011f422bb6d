package configstore

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
)

func TestPersistence(t *testing.T) {
	dir := t.TempDir()
	e := newEnv(t, dir)
	e.edit(alice, hostnameEdit("r2"))
	id := e.commit(alice, device.CommitOptions{Comment: "one"}).CommitID
	if err := e.s.CopyRunningToStartup(); err != nil {
		t.Fatal(err)
	}
	e.edit(alice, hostnameEdit("r3"))
	e.clk.Advance(time.Second)
	e.commit(alice, device.CommitOptions{})
	e.edit(bob, hostnameEdit("uncommitted"))
	hist := e.history()

	e.reopen()
	if e.hostname() != "r3" || hostnameOf(e.s.Startup()) != "r2" {
		t.Fatalf("reopened running %q startup %q", e.hostname(), hostnameOf(e.s.Startup()))
	}
	if !slices.Equal(e.history(), hist) {
		t.Fatalf("history %+v, want %+v", e.history(), hist)
	}
	if _, ok := e.s.LockHolder(); ok || hostnameOf(e.s.Candidate(bob)) != "r3" {
		t.Fatal("the candidate was persisted")
	}
	// Rollback("") still knows the parent of the last commit.
	if _, err := e.s.Rollback(ctx, alice, ""); err != nil || e.hostname() != "r2" {
		t.Fatalf("rollback after reopen: %q %v", e.hostname(), err)
	}
	cfg, err := e.s.Config(id)
	if err != nil || hostnameOf(cfg) != "r2" {
		t.Fatal("commit config not kept")
	}
	// The initial configuration argument is ignored for an existing directory.
	e.s.Close()
	s, err := Open(map[string]any{"x:y": map[string]any{}}, e.options())
	if err != nil {
		t.Fatal(err)
	}
	e.s = s
	if e.hostname() != "r2" {
		t.Fatal("initial config overrode the state directory")
	}
	if err := e.s.SetStartup(initialConfig()); err != nil || hostnameOf(e.s.Startup()) != "r1" {
		t.Fatalf("SetStartup: %v", err)
	}
	e.reopen()
	if hostnameOf(e.s.Startup()) != "r1" {
		t.Fatal("startup not persisted")
	}
}

// TestCrashDuringConfirmedCommit: the process stops (Close without
// confirm) and starts again before or after the deadline.
func TestCrashDuringConfirmedCommit(t *testing.T) {
	tests := []struct {
		name     string
		downtime time.Duration
		hostname string // right after Open
		pending  bool
	}{
		{name: "restart before deadline", downtime: 60 * time.Second, hostname: "r2", pending: true},
		{name: "restart after deadline", downtime: 121 * time.Second, hostname: "r1"},
		{name: "restart at deadline", downtime: 120 * time.Second, hostname: "r1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			e := newEnv(t, dir)
			e.edit(alice, hostnameEdit("r2"))
			r := e.commit(alice, device.CommitOptions{Confirmed: 120})
			e.s.Close()
			e.clk.Advance(tt.downtime) // the closed store's timer does nothing
			if e.hostname() != "r2" {
				t.Fatal("closed store rolled back")
			}
			nlogs := len(e.mnemonics())
			e.open()
			if e.hostname() != tt.hostname {
				t.Fatalf("after Open hostname %q, want %q", e.hostname(), tt.hostname)
			}
			p, ok := e.s.Pending()
			if ok != tt.pending {
				t.Fatalf("pending %v, want %v", ok, tt.pending)
			}
			if tt.pending {
				if !p.Deadline.Equal(t0.Add(120*time.Second)) || p.ID != r.CommitID {
					t.Fatalf("pending %+v", p)
				}
				e.clk.Advance(120*time.Second - tt.downtime) // the re-armed timer fires at the original deadline
				if e.hostname() != "r1" {
					t.Fatal("re-armed timer did not roll back")
				}
			} else if got := e.mnemonics()[nlogs:]; !slices.Equal(got, []string{"CONFIG-4-ROLLBACK"}) {
				t.Errorf("Open logged %v", got)
			}
			if e.history()[0].Status != device.StatusRolledBack {
				t.Errorf("status %q", e.history()[0].Status)
			}
			if _, err := e.s.Confirm(ctx, alice); code(err) != netproto.CodeConfirmedCommitTimeout {
				t.Errorf("Confirm after expiry: %v", err)
			}
			// The rollback itself is durable.
			e.reopen()
			if e.hostname() != "r1" {
				t.Fatal("rollback not durable")
			}
		})
	}
}

func TestCrashLeftovers(t *testing.T) {
	dir := t.TempDir()
	e := newEnv(t, dir)
	e.edit(alice, hostnameEdit("r2"))
	id := e.commit(alice, device.CommitOptions{Confirmed: 100}).CommitID
	e.s.Close()
	hdir := filepath.Join(dir, historyDir)

	// 1. A temp file truncated by a crash mid-write, in both directories.
	os.WriteFile(filepath.Join(dir, tmpPrefix+stateFile+"-123"), []byte(`{"version":1,"running":{"trunc`), 0o600)
	os.WriteFile(filepath.Join(hdir, tmpPrefix+"x.json-9"), []byte(`{`), 0o600)
	// 2. A commit whose history file was written but never reached state.json.
	orphan := record{CommitInfo: device.CommitInfo{ID: "2025-10-19-03-27-30", Status: "committed"},
		Config: map[string]any{"openconfig-system:system": map[string]any{"config": map[string]any{"hostname": "ghost"}}}}
	data, _ := json.Marshal(orphan)
	os.WriteFile(filepath.Join(hdir, orphan.ID+".json"), data, 0o600)
	// 3. A confirm whose state.json was written but whose status mirror was not.
	var st state
	readJSON(dir, stateFile, &st)
	st.setStatus(id, device.StatusConfirmed)
	st.Pending = nil
	writeJSONAtomic(dir, stateFile, &st)

	e.open()
	if e.hostname() != "r2" {
		t.Fatalf("hostname %q", e.hostname())
	}
	if h := e.history(); len(h) != 1 || h[0].Status != device.StatusConfirmed {
		t.Fatalf("history %+v", h)
	}
	if _, ok := e.s.Pending(); ok {
		t.Fatal("pending survived the recorded confirm")
	}
	for _, p := range []string{filepath.Join(dir, tmpPrefix+stateFile+"-123"), filepath.Join(hdir, tmpPrefix+"x.json-9"),
		filepath.Join(hdir, orphan.ID+".json")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s not removed", p)
		}
	}
	var r record
	readJSON(hdir, id+".json", &r)
	if r.Status != device.StatusConfirmed || hostnameOf(r.Config) != "r2" {
		t.Errorf("history file not repaired: %q", r.Status)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	e := newEnv(t, dir)
	e.s.Close()
	// After Close the directory can be opened again.
	s, err := Open(nil, e.options())
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	os.WriteFile(filepath.Join(dir, stateFile), []byte(`{"version":1,"running":`), 0o600)
	if _, err := Open(nil, e.options()); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("corrupt state.json: %v", err)
	}
	os.WriteFile(filepath.Join(dir, stateFile), []byte(`{"version":1,"running":{},"commits":[{"commit-id":"gone","status":"committed"}]}`), 0o600)
	if _, err := Open(nil, e.options()); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Fatalf("missing history file: %v", err)
	}
}

func TestMemoryOnly(t *testing.T) {
	e := newEnv(t, "")
	e.edit(alice, hostnameEdit("r2"))
	e.commit(alice, device.CommitOptions{})
	if e.hostname() != "r2" || hostnameOf(e.s.Startup()) != "r1" {
		t.Fatal("memory store")
	}
	e.reopen()
	if e.hostname() != "r1" || len(e.history()) != 0 {
		t.Fatal("a memory-only store kept state")
	}
}

// TestWriteFailure: when the state directory cannot be written, the change
// is refused, memory is unchanged and the device gets its old configuration back.
func TestWriteFailure(t *testing.T) {
	dir := t.TempDir()
	e := newEnv(t, dir)
	hdir := filepath.Join(dir, historyDir)
	// A file where the history directory should be: writes fail even as root.
	os.RemoveAll(hdir)
	os.WriteFile(hdir, nil, 0o600)
	e.edit(alice, hostnameEdit("r2"))
	if _, err := e.s.Commit(ctx, alice, device.CommitOptions{}); err == nil {
		t.Fatal("commit succeeded without a history directory")
	}
	if e.hostname() != "r1" || len(e.history()) != 0 || hostnameOf(e.lastApplied()) != "r1" {
		t.Fatalf("failed commit: running %q, device %q", e.hostname(), hostnameOf(e.lastApplied()))
	}
	if hostnameOf(e.s.Candidate(alice)) != "r2" {
		t.Fatal("failed commit lost the candidate")
	}
	// state.json cannot be replaced: the history file written first is removed again.
	os.Remove(hdir)
	os.Mkdir(hdir, 0o700)
	os.Remove(filepath.Join(dir, stateFile))
	os.Mkdir(filepath.Join(dir, stateFile), 0o700)
	os.WriteFile(filepath.Join(dir, stateFile, "x"), nil, 0o600)
	if _, err := e.s.Commit(ctx, alice, device.CommitOptions{}); err == nil {
		t.Fatal("commit succeeded without state.json")
	}
	if ents, _ := os.ReadDir(hdir); len(ents) != 0 {
		t.Errorf("history file of the failed commit left behind: %v", ents)
	}
	if e.hostname() != "r1" {
		t.Fatal("failed commit changed running")
	}
	os.RemoveAll(filepath.Join(dir, stateFile))
	if r := e.commit(alice, device.CommitOptions{}); r.Status != device.StatusCommitted {
		t.Fatalf("commit after repair: %+v", r)
	}
	e.reopen()
	if e.hostname() != "r2" || len(e.history()) != 1 {
		t.Fatal("commit after repair not durable")
	}
}

func TestLockedErrorMessage(t *testing.T) {
	got := (&LockedError{Holder: device.Owner{Session: "abc"}}).Error()
	if !strings.Contains(got, "session abc (user unknown)") {
		t.Errorf("message %q", got)
	}
}
