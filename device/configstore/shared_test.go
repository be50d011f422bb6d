package configstore

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
)

// twoStores opens two stores over one directory with one clock, as two
// processes serving the same device would.
func twoStores(t *testing.T) (a, b *env) {
	t.Helper()
	dir := t.TempDir()
	a = newEnv(t, dir)
	b = &env{t: t, clk: a.clk, dir: dir}
	b.open()
	t.Cleanup(func() { b.s.Close() })
	return a, b
}

// TestSharedDirectory checks two stores open on one directory at once: the
// candidate and its lock, commits, the history and the running
// configuration are one, each store reading what the other changed.
func TestSharedDirectory(t *testing.T) {
	a, b := twoStores(t)
	a.edit(alice, hostnameEdit("from-a"))
	if o, ok := b.s.LockHolder(); !ok || o != alice {
		t.Fatalf("b sees lock holder %v %v; want alice", o, ok)
	}
	var le *LockedError
	if err := b.s.Edit(ctx, bob, []device.Edit{hostnameEdit("from-b")}); !errors.As(err, &le) || le.Holder != alice {
		t.Fatalf("bob's edit through b: %v; want locked by alice", err)
	}
	if h := hostnameOf(b.s.Candidate(alice)); h != "from-a" {
		t.Fatalf("alice's candidate through b: hostname %q", h)
	}
	r := b.commit(alice, device.CommitOptions{})
	if r.Status != device.StatusCommitted {
		t.Fatalf("commit through b: %+v", r)
	}
	if h := a.hostname(); h != "from-a" {
		t.Fatalf("running through a after b's commit: %q", h)
	}
	if got := hostnameOf(a.lastApplied()); got != "from-a" {
		t.Fatalf("a's Reload (Apply of the test env) got hostname %q; want from-a", got)
	}
	if h := a.history(); len(h) != 1 || h[0].ID != r.CommitID {
		t.Fatalf("history through a: %+v; want one commit %s", h, r.CommitID)
	}
	// The lock went with the commit: bob edits through b, then a confirmed
	// commit through a is confirmed through b.
	b.edit(bob, hostnameEdit("from-b"))
	r2 := a.commit(bob, device.CommitOptions{Confirmed: 60})
	if p, ok := b.s.Pending(); !ok || p.ID != r2.CommitID {
		t.Fatalf("pending through b: %+v %v; want %s", p, ok, r2.CommitID)
	}
	if _, err := b.s.Confirm(ctx, alice); err != nil {
		t.Fatal(err)
	}
	a.clk.Advance(2 * time.Minute) // both timers fire; neither rolls back
	if h := b.hostname(); h != "from-b" {
		t.Fatalf("running after confirm and both timers: %q", h)
	}
	if h := a.history(); h[0].Status != device.StatusConfirmed {
		t.Fatalf("history through a: %+v", h)
	}
}

// TestSharedConfirmedRollback checks that a confirmed commit made through
// one store is rolled back once when its window runs out, both stores
// having armed the timer, and that the other store takes the configuration.
func TestSharedConfirmedRollback(t *testing.T) {
	a, b := twoStores(t)
	before := a.hostname()
	a.edit(alice, hostnameEdit("trial"))
	a.commit(alice, device.CommitOptions{Confirmed: 30})
	if _, ok := b.s.Pending(); !ok { // b reads it and arms its timer
		t.Fatal("b does not see the pending commit")
	}
	a.clk.Advance(time.Minute)
	for _, e := range []*env{a, b} {
		if h := e.hostname(); h != before {
			t.Fatalf("running after the window: %q; want %q", h, before)
		}
	}
	h := b.history()
	if len(h) != 1 || h[0].Status != device.StatusRolledBack {
		t.Fatalf("history: %+v; want one rolled-back commit", h)
	}
	rollbacks := 0
	for _, e := range []*env{a, b} {
		for _, m := range e.mnemonics() {
			if m == "CONFIG-4-ROLLBACK" {
				rollbacks++
			}
		}
	}
	if rollbacks != 1 {
		t.Fatalf("%d automatic rollbacks logged; want 1", rollbacks)
	}
}

// TestSharedCandidateOfClosedStore checks that a candidate held through a
// store that closed (its process ended) no longer locks the others out.
func TestSharedCandidateOfClosedStore(t *testing.T) {
	a, b := twoStores(t)
	a.edit(alice, hostnameEdit("abandoned"))
	if err := a.s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.s.LockHolder(); ok {
		t.Fatal("the candidate of a closed store still shows a holder")
	}
	b.edit(bob, hostnameEdit("taken"))
	if h := hostnameOf(b.s.Candidate(bob)); h != "taken" {
		t.Fatalf("bob's candidate: %q", h)
	}
}

// TestSharedConcurrentCommits commits from two stores over one directory
// at once and checks that no commit is lost: every acknowledged commit is
// in the history, in one sequence.
func TestSharedConcurrentCommits(t *testing.T) {
	a, b := twoStores(t)
	const each = 15
	var mu sync.Mutex
	acked := map[string]bool{}
	var wg sync.WaitGroup
	for i, e := range []*env{a, b} {
		owner := device.Owner{Session: fmt.Sprint("s", i), User: fmt.Sprint("u", i)}
		wg.Go(func() {
			for n := 0; n < each; {
				err := e.s.Edit(ctx, owner, []device.Edit{hostnameEdit(fmt.Sprintf("h%d-%d", i, n))})
				var le *LockedError
				if errors.As(err, &le) {
					continue // the other holds the candidate until its commit
				}
				if err != nil {
					t.Error(err)
					return
				}
				r, err := e.s.Commit(ctx, owner, device.CommitOptions{})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				acked[r.CommitID] = true
				mu.Unlock()
				n++
			}
		})
	}
	wg.Wait()
	h := a.history()
	if len(h) != 2*each || len(acked) != 2*each {
		t.Fatalf("history has %d commits, %d acknowledged; want %d", len(h), len(acked), 2*each)
	}
	for _, c := range h {
		if !acked[c.ID] {
			t.Fatalf("commit %s in the history was not acknowledged", c.ID)
		}
	}
	c := newEnv(t, a.dir) // a third opening reads the same
	if got := c.history(); len(got) != 2*each || got[0].ID != h[0].ID {
		t.Fatalf("reopened history: %d commits, head %s; want %d, %s", len(got), got[0].ID, 2*each, h[0].ID)
	}
}
