package netsim

import (
	"sync"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// TestConcurrentUse runs probes, reads and fault changes at once (run
// with -race to check the locking).
func TestConcurrentUse(t *testing.T) {
	stamp := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	topo := lineLab()
	n, err := New(topo, Options{Seed: 3, Now: func() time.Time { return stamp }})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				o, err := n.Ping(ProbeRequest{From: "h1", Destination: addr("3.3.3.3"), Count: 2})
				if err != nil {
					t.Error(err)
					return
				}
				if !o.Start.Equal(stamp) {
					t.Errorf("Start = %v, want the injected clock", o.Start)
					return
				}
				n.Traceroute(ProbeRequest{From: "h3", Destination: addr("10.0.3.50"), MaxHops: 5})
				n.InterfaceState("r2", g0)
				n.Routes("r1", "", 4)
				n.Neighbors("r1")
				if i == 0 {
					f := []topology.Fault{{Kind: topology.FaultLinkDown, Link: "r2:" + g1}}
					if j%2 == 1 {
						f = nil
					}
					if err := n.SetFaults(f); err != nil {
						t.Error(err)
					}
				}
			}
		}(i)
	}
	wg.Wait()
}
