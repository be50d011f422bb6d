package netsim

import (
	"fmt"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// TestBoundedTablesSameAnswers checks that a network whose computed
// routing tables are bounded to almost nothing (each is dropped as soon
// as another is computed, and computed again when next needed) answers
// every ping, traceroute, table and BGP session exactly as one that keeps
// them all, on networks with equal-cost paths, OSPF and BGP, and a link
// down; and that the bound holds.
func TestBoundedTablesSameAnswers(t *testing.T) {
	for _, topo := range []topology.Topology{ringLab(10), ospfGrid(3, 4), protoChain(8)} {
		t.Run(topo.Name, func(t *testing.T) {
			topo.Faults = []topology.Fault{{Kind: topology.FaultLinkDown, Link: topo.Links[len(topo.Links)/2].A}}
			now := func() time.Time { return time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC) }
			all, err := New(topo, Options{Seed: 1, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			bounded, err := New(topo, Options{Seed: 1, Now: now, MaxTableRoutes: 1})
			if err != nil {
				t.Fatal(err)
			}
			var dsts []netip.Addr
			for _, d := range topo.Devices {
				// The first interface's address (a link's end, or a
				// loopback) and the last's.
				for _, it := range []topology.Interface{d.Interfaces[0], d.Interfaces[len(d.Interfaces)-1]} {
					dsts = append(dsts, netip.MustParsePrefix(it.Addresses[0]).Addr())
				}
			}
			answers := func(n *Network) []string {
				var out []string
				for _, d := range topo.Devices {
					for _, fam := range []int{4, 6} {
						rs, err := n.Routes(d.Name, "", fam)
						out = append(out, fmt.Sprint(d.Name, fam, rs, err))
					}
					st, err := n.BGP(d.Name)
					out = append(out, fmt.Sprint(d.Name, st, err))
					for _, a := range dsts {
						p, err := n.Ping(ProbeRequest{From: d.Name, Destination: a, Count: 2})
						out = append(out, fmt.Sprint(p.Render(), err))
						tr, err := n.Traceroute(ProbeRequest{From: d.Name, Destination: a, Protocol: "icmp", MaxHops: 8})
						out = append(out, fmt.Sprint(tr.Render(), err))
					}
				}
				return out
			}
			want, got := answers(all), answers(bounded)
			if len(want) != len(got) {
				t.Fatalf("%d answers bounded, %d unbounded", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("bounded tables answer\n%s\nwhere all tables answer\n%s", got[i], want[i])
				}
			}
			// Devices' tables dropped and computed again by goroutines at
			// once give the same tables and reachability.
			brief := func(n *Network, from string, a netip.Addr) string {
				rs, err := n.Routes(from, "", familyOf(a))
				p, perr := n.Ping(ProbeRequest{From: from, Destination: a, Count: 1})
				return fmt.Sprint(rs, err, p.Received(), perr)
			}
			var wg sync.WaitGroup
			for g := range 4 {
				wg.Go(func() {
					for i, d := range topo.Devices {
						a := dsts[(i+g)%len(dsts)]
						if got, want := brief(bounded, d.Name, a), brief(all, d.Name, a); got != want {
							t.Errorf("%s to %s, at once with others: %s, want %s", d.Name, a, got, want)
						}
					}
				})
			}
			wg.Wait()
			kept, maxRoutes := 0, 0
			for _, d := range bounded.state.order {
				if tab := d.tab.Load(); tab != nil {
					kept++
					maxRoutes = max(maxRoutes, tab.routes)
				}
			}
			if kept > 1 {
				t.Errorf("%d devices keep their tables under a bound of 1 route, want 1", kept)
			}
			if c := &bounded.state.tables; c.routes > maxRoutes {
				t.Errorf("the cache counts %d routes, more than the %d of the one table kept", c.routes, maxRoutes)
			}
		})
	}
}
