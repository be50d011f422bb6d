package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
)

// withLLDPDisabled returns the default lab with LLDP off on dev.
func withLLDPDisabled(dev string) topology.Topology {
	topo := sim.DefaultTopology()
	for i := range topo.Devices {
		if dv := &topo.Devices[i]; dv.Name == dev {
			l := topology.LLDP{Disabled: true}
			if dv.LLDP != nil {
				l.CustomTLVs = dv.LLDP.CustomTLVs
			}
			dv.LLDP = &l
		}
	}
	return topo
}

// TestDiscoverySimLLDP: each agent finds its neighbours in its device's
// simulated openconfig-lldp state, from the TLV each neighbour's agent
// set on its device at run time; with LLDP disabled on r3, r3 is heard by
// no one and hears no one, and a path through it cannot be measured.
func TestDiscoverySimLLDP(t *testing.T) {
	type heard struct{ name, local, port string }
	for _, tc := range []struct {
		name string
		topo topology.Topology
		want map[string][]heard
	}{
		{"default lab", sim.DefaultTopology(), map[string][]heard{
			"r1": {{"r2", "GigabitEthernet0/0/0", "GigabitEthernet0/0/0/0"}},
			"r2": {{"r1", "GigabitEthernet0/0/0/0", "GigabitEthernet0/0/0"}, {"r3", "GigabitEthernet0/0/0/1", "GigabitEthernet0/0/0"}},
			"r3": {{"r2", "GigabitEthernet0/0/0", "GigabitEthernet0/0/0/1"}},
		}},
		{"r3 without LLDP", withLLDPDisabled("r3"), map[string][]heard{
			"r1": {{"r2", "GigabitEthernet0/0/0", "GigabitEthernet0/0/0/0"}},
			"r2": {{"r1", "GigabitEthernet0/0/0/0", "GigabitEthernet0/0/0"}},
			"r3": nil,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDomain(t, domainOpts{topo: &tc.topo})
			for dev, want := range tc.want {
				ns, err := d.agents[dev].Discover(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if len(ns) != len(want) {
					t.Fatalf("%s heard %+v, want %v", dev, ns, want)
				}
				for i, n := range ns {
					w := want[i]
					if n.Name != w.name || n.LocalInterface != w.local || n.PortID != w.port {
						t.Errorf("%s: neighbour %+v, want %+v", dev, n, w)
					}
					if n.Advert != d.agents[w.name].Advert() {
						t.Errorf("%s: %s's TLV %+v is not the one its agent advertises", dev, w.name, n.Advert)
					}
					if n.Address == "" {
						t.Errorf("%s: %s without a management address", dev, w.name)
					}
				}
			}
			if tc.want["r3"] != nil {
				return
			}
			r, err := d.agents["r1"].Ask(context.Background(), pathIntent)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range r.Findings {
				if f.Rule == "no-adjacency" && f.Direction == "r2->r3" && f.Cause == "not-measured" {
					found = true
				}
			}
			if !found || r.Hypothesis != nil {
				t.Fatalf("r3 undiscoverable, yet: hypothesis %+v, findings %s", r.Hypothesis, findingsJSON(r))
			}
			if !strings.Contains(findingsJSON(r), "no D2D LLDP adjacency between r2 and r3") {
				t.Errorf("findings %s", findingsJSON(r))
			}
		})
	}
}
