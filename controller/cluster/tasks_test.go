package cluster

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/netmcp/netmcp/internal/testwait"
)

// TestTaskRecordsShared: a task record written through one replica is
// read through another; updates from every replica at once on one key
// are each applied once (none lost to a race); a record not written again
// for its TTL is forgotten; and a replica's run is alive while it is a
// member, and not once it left or once its presence expired after it was
// halted (as a killed replica's does).
func TestTaskRecordsShared(t *testing.T) {
	url := startNATS(t, 1)[0]
	inv := devices(1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var nodes []*node
	var recs []*TaskRecords
	for i := range 3 {
		n := join(t, url, fmt.Sprintf("t%d", i), testTTL, 1, inv, nil)
		r, err := n.Tasks(ctx, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		nodes, recs = append(nodes, n), append(recs, r)
	}

	if b, err := recs[1].Get("0123abcd"); err != nil || b != nil {
		t.Fatalf("a key never written: %q, %v", b, err)
	}
	if err := recs[0].Update("0123abcd", func(cur []byte) []byte { return []byte("0") }); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	const each = 10
	for _, r := range recs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				err := r.Update("0123abcd", func(cur []byte) []byte {
					n, _ := strconv.Atoi(string(cur))
					return []byte(strconv.Itoa(n + 1))
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if b, err := recs[2].Get("0123abcd"); err != nil || string(b) != strconv.Itoa(each*len(recs)) {
		t.Fatalf("after %d updates from %d replicas at once: %q, %v", each*len(recs), len(recs), b, err)
	}
	if err := recs[1].Update("0123abcd", func(cur []byte) []byte { return nil }); err != nil {
		t.Fatal(err)
	}
	if b, _ := recs[0].Get("0123abcd"); string(b) != strconv.Itoa(each*len(recs)) {
		t.Fatalf("an update that writes nothing changed the record: %q", b)
	}

	short, err := nodes[0].Tasks(ctx, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := short.Update("feed", func([]byte) []byte { return []byte("x") }); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 30*time.Second, "a record not written for its TTL is forgotten", func() (bool, string) {
		b, err := recs[1].Get("feed")
		return err == nil && b == nil, fmt.Sprintf("%q, %v", b, err)
	})
	// Written again after it expired: Create takes the expired key's place.
	if err := short.Update("feed", func(cur []byte) []byte { return append(cur, 'y') }); err != nil {
		t.Fatal(err)
	}
	if b, err := recs[2].Get("feed"); err != nil || string(b) != "y" {
		t.Fatalf("a record written again after it expired: %q, %v", b, err)
	}

	for i, r := range recs {
		for j, n := range nodes {
			if !r.Alive(n.Instance()) {
				t.Fatalf("replica %d sees replica %d's run as dead", i, j)
			}
		}
	}
	if recs[0].Alive("t9-deadbeef") || recs[0].Alive("bad.name") {
		t.Fatal("a run that never joined is alive")
	}
	lctx, lcancel := context.WithTimeout(ctx, 10*time.Second)
	defer lcancel()
	if err := nodes[1].Leave(lctx); err != nil {
		t.Fatal(err)
	}
	if recs[0].Alive(nodes[1].Instance()) || recs[1].Alive(nodes[1].Instance()) {
		t.Fatal("a replica that left is alive")
	}
	nodes[2].Halt()
	if recs[2].Alive(nodes[2].Instance()) {
		t.Fatal("a halted replica is alive to itself")
	}
	testwait.Until(t, 3*testTTL, "a halted replica's presence expires", func() (bool, string) {
		return !recs[0].Alive(nodes[2].Instance()), "still a member"
	})
}
