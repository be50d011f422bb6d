package sim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/lab/topology"
)

// MaxGeneratedRouters bounds ChainTopology and GridTopology: the address
// plan below has room for 65,536 links and 65,535 loopbacks, and the bound
// keeps a typo in a flag from starting a lab of millions.
const MaxGeneratedRouters = 10000

// Generated topologies use one plain address plan:
//
//   - router i (1-based, named "r<i>") has Loopback0 with
//     10.255.(i>>8).(i&255)/32, its router id;
//   - link k (0-based, in the order the links are listed) is the /30
//     10.(k>>14).((k>>6)&255).((k&63)<<2)/30: end A has the first host
//     address, end B the second;
//   - every router speaks IOS XR (GigabitEthernet0/0/0/<port>) and runs
//     the topology's IGP on its transit links, so every loopback is
//     reachable from every router.

// genLoopback is the loopback address of router i (1-based).
func genLoopback(i int) string { return fmt.Sprintf("10.255.%d.%d", i>>8, i&255) }

// genLinkAddr is the address of end (1 = A, 2 = B) of link k, with its /30.
func genLinkAddr(k, end int) string {
	return fmt.Sprintf("10.%d.%d.%d/30", k>>14, (k>>6)&255, (k&63)<<2+end)
}

// generator builds a topology of routers joined by /30 links.
type generator struct {
	t     topology.Topology
	ports []int // next free port per router (index i-1)
}

func newGenerator(name string, n int) *generator {
	g := &generator{t: topology.Topology{Name: name, Devices: make([]topology.Device, n)}, ports: make([]int, n)}
	for i := 1; i <= n; i++ {
		g.t.Devices[i-1] = topology.Device{
			Name: "r" + strconv.Itoa(i), Kind: topology.KindRouter, Dialect: DialectXR,
			Vendor: "Cisco", Platform: "8201", SoftwareVersion: "7.11.2", RouterID: genLoopback(i),
			Interfaces: []topology.Interface{{Name: "Loopback0", Type: "softwareLoopback", Description: "router-id",
				Addresses: []string{genLoopback(i) + "/32"}, Passive: true}},
		}
	}
	return g
}

// link joins routers a and b (1-based) on their next free ports.
func (g *generator) link(a, b int) {
	k := len(g.t.Links)
	ifA := g.port(a, b, genLinkAddr(k, 1))
	ifB := g.port(b, a, genLinkAddr(k, 2))
	g.t.Links = append(g.t.Links, topology.Link{A: "r" + strconv.Itoa(a) + ":" + ifA, B: "r" + strconv.Itoa(b) + ":" + ifB})
}

// port adds the next transit interface of router i, towards router peer.
func (g *generator) port(i, peer int, addr string) string {
	name := "GigabitEthernet0/0/0/" + strconv.Itoa(g.ports[i-1])
	g.ports[i-1]++
	d := &g.t.Devices[i-1]
	d.Interfaces = append(d.Interfaces, topology.Interface{Name: name, Description: "to r" + strconv.Itoa(peer),
		Addresses: []string{addr}})
	return name
}

// ChainTopology returns n routers r1 — r2 — ... — rn in a line (see the
// address plan above): r1's loopback 10.255.0.1 is n-1 hops from rn.
func ChainTopology(n int) (topology.Topology, error) {
	if n < 1 || n > MaxGeneratedRouters {
		return topology.Topology{}, fmt.Errorf("sim: chain of %d routers: want 1..%d", n, MaxGeneratedRouters)
	}
	g := newGenerator(fmt.Sprintf("chain-%d", n), n)
	for i := 1; i < n; i++ {
		g.link(i, i+1)
	}
	return g.t, nil
}

// GridTopology returns rows x cols routers in a grid, numbered row by row
// (r1 at the top left, r<rows*cols> at the bottom right, which is
// rows+cols-2 hops away: the grid's diameter), each linked to its right
// and lower neighbour (see the address plan above).
func GridTopology(rows, cols int) (topology.Topology, error) {
	if rows < 1 || cols < 1 || rows*cols > MaxGeneratedRouters {
		return topology.Topology{}, fmt.Errorf("sim: grid of %dx%d routers: want at least 1x1 and at most %d routers", rows, cols, MaxGeneratedRouters)
	}
	g := newGenerator(fmt.Sprintf("grid-%dx%d", rows, cols), rows*cols)
	at := func(r, c int) int { return r*cols + c + 1 }
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			if c+1 < cols {
				g.link(at(r, c), at(r, c+1))
			}
			if r+1 < rows {
				g.link(at(r, c), at(r+1, c))
			}
		}
	}
	return g.t, nil
}

// ParseGrid parses a grid size "ROWSxCOLS", e.g. "32x32".
func ParseGrid(s string) (rows, cols int, err error) {
	r, c, ok := strings.Cut(strings.ToLower(s), "x")
	if ok {
		rows, err = strconv.Atoi(r)
		if err == nil {
			cols, err = strconv.Atoi(c)
		}
	}
	if !ok || err != nil || rows < 1 || cols < 1 {
		return 0, 0, fmt.Errorf("sim: grid %q: want ROWSxCOLS, e.g. 32x32", s)
	}
	return rows, cols, nil
}

// GeneratedLoopback returns the loopback address of router r<i> in a
// topology made by ChainTopology or GridTopology.
func GeneratedLoopback(i int) string { return genLoopback(i) }
