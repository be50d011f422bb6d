package console

import (
	"fmt"
	"math"
	"testing"

	"github.com/netmcp/netmcp/lab/topology"
)

func grid(w, h int) *topology.Topology {
	topo := &topology.Topology{}
	name := func(x, y int) string { return fmt.Sprintf("r%d-%d", y, x) }
	for y := range h {
		for x := range w {
			topo.Devices = append(topo.Devices, topology.Device{Name: name(x, y)})
			if x+1 < w {
				topo.Links = append(topo.Links, topology.Link{A: name(x, y) + ":e1", B: name(x+1, y) + ":e3"})
			}
			if y+1 < h {
				topo.Links = append(topo.Links, topology.Link{A: name(x, y) + ":e2", B: name(x, y+1) + ":e4"})
			}
		}
	}
	return topo
}

func TestLayout(t *testing.T) {
	tests := []struct {
		name        string
		topo        *topology.Topology
		extra       []linkSpec
		nodes, wire int
	}{
		{"chain", &topology.Topology{Devices: []topology.Device{{Name: "r1"}, {Name: "r2"}, {Name: "r3"}},
			Links: []topology.Link{{A: "r1:a", B: "r2:a"}, {A: "r2:b", B: "r3:a"}}}, nil, 3, 2},
		{"parallel links", &topology.Topology{Devices: []topology.Device{{Name: "a"}, {Name: "b"}},
			Links: []topology.Link{{A: "a:1", B: "b:1"}, {A: "a:2", B: "b:2"}}}, nil, 2, 2},
		// LLDP sees each link from both ends: one link on the map.
		{"lldp both ways", nil, []linkSpec{{"a", "1", "b", "9"}, {"b", "9", "a", "1"}}, 2, 1},
		{"grid 8x8", grid(8, 8), nil, 64, 112},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := buildGraph(tt.topo, nil, tt.extra)
			if len(g.Nodes) != tt.nodes || len(g.Edges) != tt.wire {
				t.Fatalf("%d nodes, %d links; want %d, %d", len(g.Nodes), len(g.Edges), tt.nodes, tt.wire)
			}
			// Inside the canvas, and no two devices on top of each other.
			for i, a := range g.Nodes {
				if a.X < 0 || a.Y < 0 || a.X > g.Width || a.Y > g.Height {
					t.Errorf("%s at (%v,%v) outside %vx%v", a.Name, a.X, a.Y, g.Width, g.Height)
				}
				for _, b := range g.Nodes[i+1:] {
					if d := math.Hypot(a.X-b.X, a.Y-b.Y); d < 40 {
						t.Errorf("%s and %s %.0f apart", a.Name, b.Name, d)
					}
				}
			}
			// The same graph gets the same picture.
			if h := buildGraph(tt.topo, nil, tt.extra); fmt.Sprint(h.Nodes) != fmt.Sprint(g.Nodes) {
				t.Error("layout not deterministic")
			}
		})
	}
}

func TestShortIf(t *testing.T) {
	for in, want := range map[string]string{"GigabitEthernet0/0/0/1": "Gi0/0/0/1", "TenGigE0/1": "Te0/1", "eth0": "eth0", "Ethernet1": "Eth1"} {
		if got := shortIf(in); got != want {
			t.Errorf("shortIf(%q) = %q, want %q", in, got, want)
		}
	}
}

func BenchmarkLayout(b *testing.B) {
	for _, n := range []int{14, 32} {
		topo := grid(n, n)
		b.Run(fmt.Sprintf("devices=%d", n*n), func(b *testing.B) {
			for b.Loop() {
				buildGraph(topo, nil, nil)
			}
		})
	}
}
