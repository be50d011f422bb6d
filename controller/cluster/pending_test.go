package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestPendingFixesTakenOnce: a fix queued through one replica is listed
// through another; of the replicas that take it at once exactly one gets
// it, and it is no longer listed.
func TestPendingFixesTakenOnce(t *testing.T) {
	url := startNATS(t, 1)[0]
	inv := devices(2)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var qs []*PendingFixes
	for i := range 3 {
		n := join(t, url, fmt.Sprintf("p%d", i), testTTL, 1, inv, nil)
		q, err := n.Pending(ctx)
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, q)
	}
	if err := qs[0].Put("fix-1", []byte(`{"report":"r1"}`)); err != nil {
		t.Fatal(err)
	}
	if err := qs[1].Put("fix-1", []byte(`{}`)); !errors.Is(err, ErrPendingExists) {
		t.Fatalf("a second fix under the same id: %v, want ErrPendingExists", err)
	}
	if err := qs[1].Put("bad id", nil); err == nil {
		t.Fatal("a fix id with a space was queued")
	}
	got, err := qs[2].List()
	if err != nil || len(got) != 1 || string(got[0]) != `{"report":"r1"}` {
		t.Fatalf("listed through another replica: %q, %v", got, err)
	}
	for round := range 5 {
		id := fmt.Sprintf("race-%d", round)
		if err := qs[round%3].Put(id, []byte(id)); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		won, lost := 0, 0
		for _, q := range qs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				v, err := q.Take(id)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil && string(v) == id:
					won++
				case errors.Is(err, ErrNotPending):
					lost++
				default:
					t.Errorf("take %s: %q, %v", id, v, err)
				}
			}()
		}
		wg.Wait()
		if won != 1 || lost != 2 {
			t.Fatalf("%s taken by %d replicas (%d refused), want exactly 1", id, won, lost)
		}
	}
	if got, err := qs[0].List(); err != nil || len(got) != 1 {
		t.Fatalf("after the races: %q, %v; want fix-1 only", got, err)
	}
}
