package configstore

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
)

// TestStress runs 200 random edit/commit/confirm/cancel/rollback/expiry
// steps over a state directory, reopening it now and then, and checks the
// history invariants after every step: every commit's configuration is
// retrievable and never changes, running equals what the device was last
// given, history grows by exactly the commits made, and a reopened store
// equals the one before.
func TestStress(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	e := newEnv(t, t.TempDir())
	owners := []device.Owner{alice, bob}
	configs := map[string]map[string]any{} // commit id -> its config when made
	commits := 0
	for step := 0; step < 200; step++ {
		o := owners[rng.IntN(2)]
		op := rng.IntN(9)
		desc := ""
		switch op {
		case 0, 1: // edit
			edits := []device.Edit{hostnameEdit(fmt.Sprintf("h%d", rng.IntN(5)))}
			if rng.IntN(2) == 0 {
				edits = append(edits, vlanEdit(1+rng.IntN(4), "v"))
			} else {
				edits = append(edits, device.Edit{Operation: device.OpRemove,
					Path: fmt.Sprintf("/openconfig-vlan:vlans/vlan[vlan-id='%d']", 1+rng.IntN(4))})
			}
			desc = "edit"
			e.s.Edit(ctx, o, edits) // may be locked
		case 2, 3: // commit, confirmed or not
			cand := e.s.Candidate(o)
			confirmed := []int{0, 0, 30}[rng.IntN(3)]
			desc = fmt.Sprintf("commit confirmed=%d", confirmed)
			r, err := e.s.Commit(ctx, o, device.CommitOptions{Confirmed: confirmed})
			if err == nil && r.Status == device.StatusCommitted && len(e.history()) > commits {
				commits++
				configs[r.CommitID] = cand
				if !equalTrees(e.s.Running(), cand) {
					t.Fatalf("step %d: running is not the committed candidate", step)
				}
			}
		case 4:
			desc = "confirm"
			e.s.Confirm(ctx, o)
		case 5:
			desc = "cancel"
			e.s.CancelCommit(ctx, o)
		case 6:
			desc = "advance"
			e.clk.Advance(time.Duration(rng.IntN(40)) * time.Second)
		case 7: // rollback to "" or a random commit
			id := ""
			h := e.history()
			if len(h) > 0 && rng.IntN(2) == 0 {
				id = h[rng.IntN(len(h))].ID
			}
			desc = "rollback " + id
			r, err := e.s.Rollback(ctx, o, id)
			if err == nil && r.Status == device.StatusRolledBack {
				commits++
				configs[r.CommitID] = e.s.Running()
				if id != "" && !equalTrees(e.s.Running(), configs[id]) {
					t.Fatalf("step %d: rollback to %s did not restore its config", step, id)
				}
			}
		case 8:
			desc = "discard/reopen"
			if rng.IntN(3) == 0 {
				running, hist := e.s.Running(), e.history()
				e.reopen()
				if !equalTrees(running, e.s.Running()) || fmt.Sprint(hist) != fmt.Sprint(e.history()) {
					t.Fatalf("step %d: reopened store differs", step)
				}
			} else {
				e.s.Discard(ctx, o)
			}
		}
		// Invariants.
		h := e.history()
		if len(h) != commits {
			t.Fatalf("step %d (%s): history has %d commits, want %d", step, desc, len(h), commits)
		}
		seen := map[string]bool{}
		for _, c := range h {
			if seen[c.ID] {
				t.Fatalf("step %d: duplicate id %s", step, c.ID)
			}
			seen[c.ID] = true
			cfg, err := e.s.Config(c.ID)
			if err != nil || !equalTrees(cfg, configs[c.ID]) {
				t.Fatalf("step %d: config of %s changed or lost (%v)", step, c.ID, err)
			}
		}
		if a := e.lastApplied(); a != nil && !equalTrees(a, e.s.Running()) {
			t.Fatalf("step %d (%s): running differs from what the device was last given", step, desc)
		}
		if p, ok := e.s.Pending(); ok && (h[0].Status != device.StatusCommitted || p.ID != h[0].ID) {
			t.Fatalf("step %d: pending %s is not the newest commit %+v", step, p.ID, h[0])
		}
	}
	t.Logf("%d commits", commits)
}
