package netsim

import "testing"

// TestOSPFTotalCorruptionOneWay checks that a link corrupting every frame
// one way starves OSPF in that direction, as on a real link: r2 hears no
// hello from r1 (Down after the dead interval), r1 hears r2's hellos that
// no longer list it (Init). Partial corruption leaves the adjacency up.
func TestOSPFTotalCorruptionOneWay(t *testing.T) {
	state := func(n *Network, dev, rid string) string {
		t.Helper()
		st, err := n.OSPF(dev)
		if err != nil {
			t.Fatal(err)
		}
		for _, nb := range st.Neighbors {
			if nb.NeighborID.String() == rid {
				return nb.State
			}
		}
		return ""
	}
	n := newLab(t, defaultTopo(t), named(t, "link_high_packet_corruption r1:GigabitEthernet0/0/0 percent=100 direction=out"))
	if got := state(n, "r2", "10.255.0.1"); got == OSPFFull {
		t.Errorf("r2's adjacency to r1 is %q with every frame from r1 corrupted", got)
	}
	if got := state(n, "r1", "10.255.0.2"); got != OSPFInit {
		t.Errorf("r1's adjacency to r2 is %q, want %s (r2's hellos do not list r1)", got, OSPFInit)
	}
	n = newLab(t, defaultTopo(t), named(t, "link_high_packet_corruption r1:GigabitEthernet0/0/0 percent=30 direction=out"))
	if got := state(n, "r2", "10.255.0.1"); got != OSPFFull {
		t.Errorf("30%% corruption: r2's adjacency to r1 is %q, want Full", got)
	}
}
