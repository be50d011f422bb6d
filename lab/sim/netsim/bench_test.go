package netsim

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/netmcp/netmcp/lab/topology"
)

// ringLab is n routers in a ring, each with a loopback.
func ringLab(n int) topology.Topology {
	var t topology.Topology
	t.Name = fmt.Sprintf("ring%d", n)
	for i := 0; i < n; i++ {
		left := fmt.Sprintf("10.%d.%d.2/30", i/64, (i%64)*4)
		right := fmt.Sprintf("10.%d.%d.1/30", ((i+1)%n)/64, (((i+1)%n)%64)*4)
		t.Devices = append(t.Devices, topology.Device{Name: fmt.Sprintf("r%d", i), Interfaces: []topology.Interface{
			{Name: g0, Addresses: []string{left}},
			{Name: g1, Addresses: []string{right}},
			{Name: lo, Addresses: []string{fmt.Sprintf("192.0.%d.%d/32", i/250, i%250+1)}},
		}})
		t.Links = append(t.Links, topology.Link{A: fmt.Sprintf("r%d:%s", i, g1), B: fmt.Sprintf("r%d:%s", (i+1)%n, g0)})
	}
	return t
}

func TestRing(t *testing.T) {
	n := newLab(t, ringLab(50))
	// r0 to r25 is 25 hops either way; r0 to r10 goes right in 10 hops.
	o, err := n.Ping(ProbeRequest{From: "r0", Destination: netip.MustParseAddr("192.0.0.11"), Count: 1})
	if err != nil || o.Received() != 1 || o.Replies[0].TTL != 255-9 {
		t.Fatalf("ping r10: %v\n%s", err, o.Render())
	}
}

func BenchmarkNewAndPing(b *testing.B) {
	topo := ringLab(50)
	dst := netip.MustParseAddr("192.0.0.26") // r25, the far side of the ring
	for b.Loop() {
		n, err := New(topo, Options{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		o, err := n.Ping(ProbeRequest{From: "r0", Destination: dst, Count: 5})
		if err != nil || o.Received() != 5 {
			b.Fatalf("%v\n%s", err, o.Render())
		}
	}
}
