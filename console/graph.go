package console

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/topology"
)

// node is a device on the map.
type node struct {
	Name string
	Kind string // router, switch or host
	// Managed tells whether the console reaches the device through MCP
	// (it is in the fleet); a lab's hosts are not.
	Managed bool
	X, Y    float64
}

// edge is a link between two devices' interfaces.
type edge struct {
	ID       string
	A, AIf   string
	B, BIf   string
	ai, bi   int // node indexes
	Curve    float64
	X1, Y1   float64
	X2, Y2   float64
	LAX, LAY float64 // where the A end's interface label goes
	LBX, LBY float64
	EAX, EAY float64 // the markers of the ends' states, beside the nodes
	EBX, EBY float64
}

// graph is the laid-out map.
type graph struct {
	Nodes         []node
	Edges         []edge
	Width, Height float64
	// Labels tells whether interface names are drawn at the link ends
	// (small maps only: on a large one they would cover everything).
	Labels bool
	index  map[string]int
}

// linkSpec is a link before layout.
type linkSpec struct{ A, AIf, B, BIf string }

// buildGraph places the devices and links: every device of the topology
// and of the inventory, and every link of the topology or given.
func buildGraph(topo *topology.Topology, inv *inventory.Inventory, extra []linkSpec) *graph {
	g := &graph{index: map[string]int{}}
	managed := map[string]bool{}
	if inv != nil {
		for _, d := range inv.Devices {
			managed[d.Name] = true
		}
	}
	add := func(name, kind string) {
		if _, ok := g.index[name]; ok || name == "" {
			return
		}
		if kind == "" {
			kind = topology.KindRouter
		}
		g.index[name] = len(g.Nodes)
		g.Nodes = append(g.Nodes, node{Name: name, Kind: kind, Managed: managed[name]})
	}
	var links []linkSpec
	if topo != nil {
		for _, d := range topo.Devices {
			add(d.Name, d.Kind)
		}
		for _, l := range topo.Links {
			a, ai, ok1 := topology.SplitEnd(l.A)
			b, bi, ok2 := topology.SplitEnd(l.B)
			if ok1 && ok2 {
				links = append(links, linkSpec{a, ai, b, bi})
			}
		}
	}
	if inv != nil {
		for _, d := range inv.Devices {
			add(d.Name, "")
		}
	}
	links = append(links, extra...)
	seen := map[string]bool{}
	for _, l := range links {
		if l.B+":"+l.BIf < l.A+":"+l.AIf { // one order per link, so LLDP's two views are one
			l = linkSpec{l.B, l.BIf, l.A, l.AIf}
		}
		key := l.A + ":" + l.AIf + "|" + l.B + ":" + l.BIf
		if seen[key] {
			continue
		}
		seen[key] = true
		add(l.A, "")
		add(l.B, "")
		g.Edges = append(g.Edges, edge{ID: fmt.Sprintf("l%d", len(g.Edges)), A: l.A, AIf: l.AIf, B: l.B, BIf: l.BIf,
			ai: g.index[l.A], bi: g.index[l.B]})
	}
	g.Labels = len(g.Nodes) <= 40
	g.layout()
	return g
}

// layout places the nodes by a force-directed placement (Fruchterman and
// Reingold), deterministic: the same graph always gets the same picture.
// Nodes start on a spiral in name order; links pull, nodes push apart,
// a weak gravity keeps separate parts together. Then the picture is
// fitted to the canvas and parallel links are given curves.
func (g *graph) layout() {
	n := len(g.Nodes)
	side := math.Max(640, math.Sqrt(float64(n))*130)
	g.Width, g.Height = side*1.4, side
	if n == 0 {
		return
	}
	k := math.Sqrt(g.Width * g.Height / float64(n)) // ideal distance
	// Spiral start: neighbours in name order (r1, r2, ...) start close.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return natCmp(g.Nodes[a].Name, g.Nodes[b].Name) })
	for rank, i := range order {
		a := float64(rank) * 2.399963 // golden angle
		r := k * 0.5 * math.Sqrt(float64(rank)+0.5)
		g.Nodes[i].X, g.Nodes[i].Y = r*math.Cos(a), r*math.Sin(a)
	}
	iters := 300
	if n > 300 {
		iters = 120
	}
	dx, dy := make([]float64, n), make([]float64, n)
	temp := k * 2
	for it := 0; it < iters; it++ {
		clear(dx)
		clear(dy)
		for i := 0; i < n; i++ {
			xi, yi := g.Nodes[i].X, g.Nodes[i].Y
			for j := i + 1; j < n; j++ {
				ddx, ddy := xi-g.Nodes[j].X, yi-g.Nodes[j].Y
				d2 := ddx*ddx + ddy*ddy
				if d2 < 0.01 {
					ddx, ddy, d2 = 0.1*float64(i-j), 0.1, 0.01+0.01*float64(i-j)*float64(i-j)
				}
				f := k * k / d2 // repulsion k²/d, along the unit vector (ddx/d)
				dx[i] += ddx * f
				dy[i] += ddy * f
				dx[j] -= ddx * f
				dy[j] -= ddy * f
			}
			// Gravity towards the centre.
			dx[i] -= xi * 0.02 * k / 100
			dy[i] -= yi * 0.02 * k / 100
		}
		for _, e := range g.Edges {
			if e.ai == e.bi {
				continue
			}
			a, b := &g.Nodes[e.ai], &g.Nodes[e.bi]
			ddx, ddy := a.X-b.X, a.Y-b.Y
			d := math.Hypot(ddx, ddy)
			if d < 0.01 {
				continue
			}
			f := d / k // attraction d²/k
			dx[e.ai] -= ddx * f
			dy[e.ai] -= ddy * f
			dx[e.bi] += ddx * f
			dy[e.bi] += ddy * f
		}
		for i := range g.Nodes {
			d := math.Hypot(dx[i], dy[i])
			if d < 1e-9 {
				continue
			}
			step := math.Min(d, temp)
			g.Nodes[i].X += dx[i] / d * step
			g.Nodes[i].Y += dy[i] / d * step
		}
		temp = math.Max(temp*0.97, k*0.01)
	}
	g.fit()
	g.route()
}

// fit scales and moves the nodes into the canvas, with a margin for labels.
func (g *graph) fit() {
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, nd := range g.Nodes {
		minX, maxX = math.Min(minX, nd.X), math.Max(maxX, nd.X)
		minY, maxY = math.Min(minY, nd.Y), math.Max(maxY, nd.Y)
	}
	const margin = 70
	w, h := math.Max(maxX-minX, 1), math.Max(maxY-minY, 1)
	// Keep the drawing's proportions; a small graph is not blown up.
	s := math.Min((g.Width-2*margin)/w, (g.Height-2*margin)/h)
	if len(g.Nodes) <= 12 {
		s = math.Min(s, 2.5)
	}
	// Shrink the canvas to the drawing.
	g.Width, g.Height = w*s+2*margin, h*s+2*margin
	for i := range g.Nodes {
		g.Nodes[i].X = math.Round((g.Nodes[i].X-minX)*s + margin)
		g.Nodes[i].Y = math.Round((g.Nodes[i].Y-minY)*s + margin)
	}
}

// route sets each link's ends and label positions, and bends the
// parallel links between the same two devices apart.
func (g *graph) route() {
	pairs := map[[2]int][]int{}
	for i, e := range g.Edges {
		p := [2]int{min(e.ai, e.bi), max(e.ai, e.bi)}
		pairs[p] = append(pairs[p], i)
	}
	for _, idx := range pairs {
		for k, i := range idx {
			g.Edges[i].Curve = (float64(k) - float64(len(idx)-1)/2) * 28
		}
	}
	for i := range g.Edges {
		e := &g.Edges[i]
		a, b := g.Nodes[e.ai], g.Nodes[e.bi]
		e.X1, e.Y1, e.X2, e.Y2 = a.X, a.Y, b.X, b.Y
		d := math.Max(math.Hypot(b.X-a.X, b.Y-a.Y), 1)
		ux, uy := (b.X-a.X)/d, (b.Y-a.Y)/d
		off := math.Min(62, d*0.32)
		// Labels sit beside the line, on the side of its bend, above a
		// line that runs left to right.
		side := 11 + math.Abs(e.Curve)/2
		if e.Curve < 0 {
			side = -side
		}
		nx, ny := -uy*side, ux*side
		if ny > 0 {
			nx, ny = -nx, -ny
		}
		e.LAX, e.LAY = math.Round(a.X+ux*off+nx), math.Round(a.Y+uy*off+ny)
		e.LBX, e.LBY = math.Round(b.X-ux*off+nx), math.Round(b.Y-uy*off+ny)
		m := math.Min(26, d*0.3)
		e.EAX, e.EAY = math.Round(a.X+ux*m-uy*e.Curve*0.3), math.Round(a.Y+uy*m+ux*e.Curve*0.3)
		e.EBX, e.EBY = math.Round(b.X-ux*m-uy*e.Curve*0.3), math.Round(b.Y-uy*m+ux*e.Curve*0.3)
	}
}

// Path is the SVG path of the link: a line, or a quadratic curve for a
// parallel link.
func (e edge) Path() string {
	if e.Curve == 0 {
		return fmt.Sprintf("M%.0f %.0f L%.0f %.0f", e.X1, e.Y1, e.X2, e.Y2)
	}
	mx, my := (e.X1+e.X2)/2, (e.Y1+e.Y2)/2
	d := math.Max(math.Hypot(e.X2-e.X1, e.Y2-e.Y1), 1)
	nx, ny := -(e.Y2-e.Y1)/d, (e.X2-e.X1)/d
	return fmt.Sprintf("M%.0f %.0f Q%.0f %.0f %.0f %.0f", e.X1, e.Y1, mx+nx*e.Curve*2, my+ny*e.Curve*2, e.X2, e.Y2)
}

// shortIf abbreviates an interface name for a map label, as engineers
// write it: GigabitEthernet0/0/1 is Gi0/0/1 (the full name is in the
// link's title).
func shortIf(name string) string {
	for _, p := range [][2]string{{"HundredGigE", "Hu"}, {"FortyGigE", "Fo"}, {"TwentyFiveGigE", "Twe"},
		{"TenGigabitEthernet", "Te"}, {"TenGigE", "Te"}, {"GigabitEthernet", "Gi"}, {"FastEthernet", "Fa"},
		{"Ethernet", "Eth"}, {"Bundle-Ether", "BE"}, {"Port-channel", "Po"}, {"LoopBack", "Lo"}, {"Loopback", "Lo"}} {
		if rest, ok := strings.CutPrefix(name, p[0]); ok {
			return p[1] + rest
		}
	}
	return name
}

// natCmp orders names with their digit runs as numbers: r2 before r10.
func natCmp(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := a[:da], b[:db]
			if len(na) != len(nb) {
				return cmp.Compare(len(na), len(nb))
			}
			if c := cmp.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func digits(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}
