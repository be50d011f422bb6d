package netsim

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/lab/topology"
)

// computed lists the devices whose routing tables have been computed.
func computed(n *Network) []string {
	var out []string
	for _, d := range n.state.order {
		if d.tab.Load() != nil {
			out = append(out, d.name)
		}
	}
	return out
}

// TestRoutingTablesOnFirstUse checks that building a network computes no
// routing table, that a probe computes the tables of the devices it
// crosses only, and that a change starts again from none.
func TestRoutingTablesOnFirstUse(t *testing.T) {
	n := newLab(t, ringLab(50))
	if c := computed(n); len(c) != 0 {
		t.Fatalf("tables computed before any use: %v", c)
	}
	// r0 to r3 goes right: r0, r1, r2 forward, r3 answers back the same way.
	o, err := n.Ping(ProbeRequest{From: "r0", Destination: addr("192.0.0.4"), Count: 1})
	if err != nil || o.Received() != 1 {
		t.Fatalf("ping r3: %v\n%s", err, o.Render())
	}
	if got := fmt.Sprint(computed(n)); got != "[r0 r1 r2 r3]" {
		t.Errorf("tables computed by a ping r0 -> r3: %s, want [r0 r1 r2 r3]", got)
	}
	if _, err := n.Routes("r40", "", 4); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(computed(n)); got != "[r0 r1 r2 r3 r40]" {
		t.Errorf("after Routes(r40): %s", got)
	}
	if err := n.SetFaults([]topology.Fault{{Kind: topology.FaultDelay, Link: "r0:" + g1, DelayMS: 1}}); err != nil {
		t.Fatal(err)
	}
	if c := computed(n); len(c) != 0 {
		t.Errorf("tables kept across a change: %v", c)
	}
}

// TestFIBMatchesScan checks the indexed longest prefix match against a
// scan of every route, for addresses inside, at the edges of and outside
// every prefix of every table of several networks.
func TestFIBMatchesScan(t *testing.T) {
	sq := squareLab()
	sq.Faults = []topology.Fault{{Kind: topology.FaultLinkDown, Link: sq.Links[0].A}}
	for _, topo := range []topology.Topology{lineLab(), ringLab(12), squareLab(), sq} {
		n := newLab(t, topo, topo.Faults...)
		s := n.state
		checked := 0
		for _, d := range s.order {
			for k, rs := range s.tablesOf(d).ribs {
				var probes []netip.Addr
				for _, r := range rs {
					p := r.Prefix
					probes = append(probes, p.Addr(), p.Addr().Next(), lastAddr(p), lastAddr(p).Next(), p.Addr().Prev())
				}
				probes = append(probes, netip.MustParseAddr("203.0.113.9"), netip.MustParseAddr("2001:db8:ffff::1"))
				for _, a := range probes {
					if !a.IsValid() || familyOf(a) != k.family {
						continue
					}
					want := lookup(rs, a, netip.Prefix{})
					if got := s.route(d, k, a); got != want {
						t.Errorf("%s %s %v: FIB gives %v, the scan %v", topo.Name, d.name, a, got, want)
					}
					checked++
				}
			}
		}
		if checked == 0 {
			t.Errorf("%s: nothing checked", topo.Name)
		}
	}
}

// lastAddr is the last address of a prefix.
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// TestUpdateDevicesOneRebuild checks that several devices change with one
// rebuild, that nothing changes unless all are accepted, and that the
// network keeps its own copies.
func TestUpdateDevicesOneRebuild(t *testing.T) {
	n := newLab(t, ringLab(10))
	if got := n.Rebuilds(); got != 1 {
		t.Fatalf("New: %d rebuilds, want 1", got)
	}
	r1, _ := n.Device("r1")
	r2, _ := n.Device("r2")
	r1.Interfaces[0].Shutdown = true
	r2.Interfaces[1].Shutdown = true
	if err := n.UpdateDevices([]topology.Device{r1, r2}); err != nil {
		t.Fatal(err)
	}
	r1.Interfaces[0].Description = "changed after the update"
	if got := n.Rebuilds(); got != 2 {
		t.Errorf("UpdateDevices of two devices: %d rebuilds in all, want 2", got)
	}
	for _, c := range []struct{ dev, ifn string }{{"r1", g0}, {"r2", g1}} {
		if st, _ := n.InterfaceState(c.dev, c.ifn); st.AdminUp {
			t.Errorf("%s %s still admin up", c.dev, c.ifn)
		}
	}
	if d, _ := n.Device("r1"); d.Interfaces[0].Description != "" {
		t.Error("the network shares the caller's device")
	}
	r3, _ := n.Device("r3")
	r3.Interfaces[0].Shutdown = true
	bad, _ := n.Device("r4")
	bad.Interfaces = bad.Interfaces[1:] // drops an interface a link names
	err := n.UpdateDevices([]topology.Device{r3, bad})
	if err == nil || !strings.Contains(err.Error(), `"r4:`+g0+`"`) {
		t.Fatalf("UpdateDevices with r4 losing a linked interface: %v", err)
	}
	if st, _ := n.InterfaceState("r3", g0); !st.AdminUp || n.Rebuilds() != 2 {
		t.Errorf("a refused batch changed the network (r3 %s admin up %v, %d rebuilds)", g0, st.AdminUp, n.Rebuilds())
	}
	if err := n.UpdateDevices([]topology.Device{{Name: "nope"}}); err == nil {
		t.Error("UpdateDevices of an unknown device succeeded")
	}
	if err := n.SetFaults([]topology.Fault{{Kind: topology.FaultLinkDown, Link: "r9:nosuch"}}); err == nil || n.Rebuilds() != 2 {
		t.Errorf("a bad fault: %v, %d rebuilds", err, n.Rebuilds())
	}
}
