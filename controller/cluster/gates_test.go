package cluster

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/netmcp/netmcp/internal/testwait"
)

// TestGateQuestions: a device's question asked through one replica is
// listed through the others; of the replicas that decide it at once,
// exactly one decision is recorded, the others are given it, and the
// asking replica's Wait returns it. A question whose holder left is no
// longer listed as waiting.
func TestGateQuestions(t *testing.T) {
	url := startNATS(t, 1)[0]
	inv := devices(2)
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout(time.Minute))
	defer cancel()
	var gs []*GateQuestions
	var nodes []*node
	for i := range 3 {
		n := join(t, url, fmt.Sprintf("g%d", i), testTTL, 1, inv, nil)
		g, err := n.Gates(ctx)
		if err != nil {
			t.Fatal(err)
		}
		nodes, gs = append(nodes, n), append(gs, g)
	}
	if err := gs[0].Ask("bad id", []byte(`{}`)); err == nil {
		t.Fatal("a question id with a space was recorded")
	}
	for round := range 3 {
		id := fmt.Sprintf("gate-%d", round)
		asker := gs[round%3]
		if err := asker.Ask(id, []byte(`{"id":"`+id+`"}`)); err != nil {
			t.Fatal(err)
		}
		if err := asker.Ask(id, []byte(`{}`)); err == nil {
			t.Fatalf("%s asked twice", id)
		}
		for i, g := range gs {
			recs, err := g.List()
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, r := range recs {
				if string(r.Question) == `{"id":"`+id+`"}` {
					found = r.Decision == nil
				}
			}
			if !found {
				t.Fatalf("%s is not listed as waiting through g%d: %q", id, i, recs)
			}
		}
		waited := make(chan string, 1)
		go func() {
			b, err := asker.Wait(ctx, id)
			if err != nil {
				waited <- "error: " + err.Error()
				return
			}
			waited <- string(b)
		}()
		var wg sync.WaitGroup
		var mu sync.Mutex
		var winners, losers []string
		for i, g := range gs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mine := fmt.Sprintf(`{"decider":"g%d"}`, i)
				first, ok, err := g.Decide(id, []byte(mine))
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					t.Errorf("g%d decides %s: %v", i, id, err)
				case ok:
					winners = append(winners, string(first))
				default:
					losers = append(losers, string(first))
				}
			}()
		}
		wg.Wait()
		if len(winners) != 1 || len(losers) != 2 {
			t.Fatalf("%s: %d decisions recorded (%v), %d refused; want exactly 1", id, len(winners), winners, len(losers))
		}
		for _, l := range losers {
			if l != winners[0] {
				t.Errorf("%s: a later decision was told %s, not the first %s", id, l, winners[0])
			}
		}
		select {
		case got := <-waited:
			if got != winners[0] {
				t.Fatalf("%s: the asking replica waited for %s, want %s", id, got, winners[0])
			}
		case <-ctx.Done():
			t.Fatalf("%s: the asking replica never learned the decision", id)
		}
		if b, err := asker.Wait(ctx, id); err != nil || string(b) != winners[0] {
			t.Fatalf("%s: waiting once decided: %s %v", id, b, err)
		}
	}

	// A question held by a replica that left is not listed as waiting:
	// nobody would answer its device.
	if err := gs[2].Ask("orphan", []byte(`{"id":"orphan"}`)); err != nil {
		t.Fatal(err)
	}
	if err := nodes[2].Leave(ctx); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 30*time.Second, "the question of a replica gone is no longer listed", func() (bool, string) {
		recs, err := gs[0].List()
		if err != nil {
			return false, err.Error()
		}
		for _, r := range recs {
			if string(r.Question) == `{"id":"orphan"}` {
				return false, "still listed"
			}
		}
		return len(recs) == 3, fmt.Sprintf("%d questions listed, want the 3 decided", len(recs))
	})
}
