package netsim

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"

	"github.com/netmcp/netmcp/lab/topology"
)

// diamondLab is r1 reaching r4 through r2 and through r3 at equal OSPF
// cost, a host behind r4, and on r1 a static route with two next hops.
func diamondLab() topology.Topology {
	p2p := &topology.InterfaceOSPF{Area: "0.0.0.0", NetworkType: topology.OSPFPointToPoint}
	passive := &topology.InterfaceOSPF{Area: "0.0.0.0", Passive: true}
	router := func(n int, links ...string) topology.Device {
		d := topology.Device{Name: fmt.Sprintf("r%d", n), Kind: topology.KindRouter, OSPF: &topology.OSPF{},
			Interfaces: []topology.Interface{{Name: "lo0", Type: "softwareLoopback",
				Addresses: []string{fmt.Sprintf("10.255.0.%d/32", n)}, OSPF: passive}}}
		for i, a := range links {
			d.Interfaces = append(d.Interfaces, topology.Interface{Name: fmt.Sprintf("eth%d", i), Addresses: []string{a}, OSPF: p2p})
		}
		return d
	}
	r1 := router(1, "10.0.12.1/30", "10.0.13.1/30")
	r1.Routes = []topology.StaticRoute{{Prefix: "192.0.2.0/24", NextHop: "10.0.13.2"}, {Prefix: "192.0.2.0/24", NextHop: "10.0.12.2"}}
	r4 := router(4, "10.0.24.2/30", "10.0.34.2/30", "10.4.0.1/24")
	r4.Interfaces[3].OSPF = passive
	return topology.Topology{Name: "diamond", Devices: []topology.Device{
		r1, router(2, "10.0.12.2/30", "10.0.24.1/30"), router(3, "10.0.13.2/30", "10.0.34.1/30"), r4,
		{Name: "h4", Kind: topology.KindHost, Gateway: "10.4.0.1", Interfaces: []topology.Interface{{Name: "eth0", Addresses: []string{"10.4.0.10/24"}}}},
	}, Links: []topology.Link{
		{A: "r1:eth0", B: "r2:eth0"}, {A: "r1:eth1", B: "r3:eth0"},
		{A: "r2:eth1", B: "r4:eth0"}, {A: "r3:eth1", B: "r4:eth1"}, {A: "r4:eth2", B: "h4:eth0"},
	}}
}

// TestECMPRoutes checks that equal-cost routes are all active, one per
// next hop, sorted by next hop: OSPF's and a static route's.
func TestECMPRoutes(t *testing.T) {
	n := newLab(t, diamondLab())
	rs, err := n.Routes("r1", "", 4)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		prefix, proto string
		want          []string // active next hops
	}{
		{"10.255.0.4/32", ProtoOSPF, []string{"10.0.12.2 eth0", "10.0.13.2 eth1"}},
		{"10.4.0.0/24", ProtoOSPF, []string{"10.0.12.2 eth0", "10.0.13.2 eth1"}},
		{"10.255.0.2/32", ProtoOSPF, []string{"10.0.12.2 eth0"}},
		{"192.0.2.0/24", "static", []string{"10.0.12.2 eth0", "10.0.13.2 eth1"}},
	}
	for _, tc := range tests {
		var got []string
		for _, r := range rs {
			if r.Prefix.String() == tc.prefix && r.Active {
				if r.Protocol != tc.proto {
					t.Errorf("%s: protocol %s, want %s", tc.prefix, r.Protocol, tc.proto)
				}
				got = append(got, r.NextHop.String()+" "+r.Interface)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: active next hops %v, want %v", tc.prefix, got, tc.want)
		}
	}
}

// TestECMPFlowStable checks the per-flow choice: a flow's traceroute takes
// one of the equal-cost paths, the same one on every run and for every
// probe, and flows between other addresses use both paths.
func TestECMPFlowStable(t *testing.T) {
	n := newLab(t, diamondLab())
	trace := func(from string, to netip.Addr) string {
		o, err := n.Traceroute(ProbeRequest{From: from, Destination: to})
		if err != nil {
			t.Fatal(err)
		}
		if !o.Reached {
			t.Fatalf("traceroute %s -> %s did not arrive: %+v", from, to, o.Hops)
		}
		s := ""
		for _, h := range o.Hops {
			for _, p := range h.Probes[1:] {
				if p.From != h.Probes[0].From {
					t.Errorf("traceroute %s -> %s: hop %d answered by %s and %s", from, to, h.TTL, h.Probes[0].From, p.From)
				}
			}
			s += h.Probes[0].From.String() + " "
		}
		return s
	}
	for _, c := range []struct{ from, to string }{{"r1", "10.255.0.4"}, {"r1", "10.4.0.10"}, {"h4", "10.255.0.1"}} {
		first := trace(c.from, addr(c.to))
		for range 3 {
			if got := trace(c.from, addr(c.to)); got != first {
				t.Errorf("traceroute %s -> %s: %q, then %q", c.from, c.to, first, got)
			}
		}
		ping, err := n.Ping(ProbeRequest{From: c.from, Destination: addr(c.to), Count: 3})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range ping.Replies {
			if r.Kind != ResultReply {
				t.Errorf("ping %s -> %s: %s", c.from, c.to, r.Kind)
			}
		}
	}
	seen := map[int]bool{}
	for i := range 64 {
		src := netip.AddrFrom4([4]byte{10, 255, 0, byte(i)})
		k := flowPick(src, addr("10.4.0.10"), 2)
		if flowPick(addr("10.4.0.10"), src, 2) != k {
			t.Errorf("flowPick(%s, 10.4.0.10) differs from the reverse flow's", src)
		}
		seen[k] = true
	}
	if len(seen) != 2 {
		t.Errorf("64 flows took the paths %v, want both", seen)
	}
}
