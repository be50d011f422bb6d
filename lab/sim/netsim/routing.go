package netsim

import (
	"net/netip"
	"slices"
	"sort"

	"github.com/netmcp/netmcp/lab/topology"
)

// Route preferences (administrative distances; OSPF's and BGP's are in
// ospf.go and bgp.go).
const (
	prefDirect = 0
	prefStatic = 1
	prefIGP    = 110
)

// route is a routing-table entry with its forwarding resolution.
type route struct {
	Route
	// outIf and gw say where to send: gw is the address to resolve on outIf
	// (invalid: the destination itself is on the link).
	outIf *iface
	gw    netip.Addr
	// recurse is set on a route whose next hop is not on a connected
	// subnet (iBGP over loopbacks): forwarding resolves NextHop again per
	// flow, so that it spreads over the equal-cost routes to it as the
	// kernel's recursively resolved multipath route does.
	recurse bool
}

// routing prepares what every device's tables are computed from: the IGP
// graph of each family. The tables themselves are computed per device on
// first use (rib), so a network of a thousand routers costs a graph, not a
// million routes, until someone looks.
func (s *state) routing() {
	// The abstract IGP: IPv4 among the routers without an OSPF process (a
	// router with one routes IPv4 by OSPFv2, ospf.go), IPv6 among all
	// routers (standing in for OSPFv3, which the topology has no schema
	// for); a router whose routing daemon is down takes part in neither.
	var routers4 []*device
	for _, d := range s.order {
		if d.kind == topology.KindRouter && !s.daemonDown[d.name] {
			s.routers = append(s.routers, d)
			if d.cfg.OSPF == nil {
				routers4 = append(routers4, d)
			}
		}
	}
	s.graphs[0] = s.igpGraph(4, routers4)
	s.graphs[1] = s.igpGraph(6, s.routers)
}

// rib returns a device's candidate routes of one table, computing all of
// the device's tables on first use. Safe under the Network's read lock.
func (s *state) rib(d *device, k ribKey) []*route {
	return s.tablesOf(d).ribs[k]
}

// route returns the active route of a device's table that forwards to a,
// by longest prefix match (nil: none); of equal-cost routes, the first.
func (s *state) route(d *device, k ribKey, a netip.Addr) *route {
	if rs := s.tablesOf(d).fibs[k].lookup(a); len(rs) > 0 {
		return rs[0]
	}
	return nil
}

// routeFlow is route for one flow: of equal-cost routes, the one the
// flow's hash picks (see flowPick).
func (s *state) routeFlow(d *device, k ribKey, a netip.Addr, src, dst netip.Addr) *route {
	rs := s.tablesOf(d).fibs[k].lookup(a)
	switch len(rs) {
	case 0:
		return nil
	case 1:
		return rs[0]
	}
	return rs[flowPick(src, dst, len(rs))]
}

// flowPick chooses one of n equal-cost paths for the flow from src to dst,
// as Linux does with its default multipath hash policy (0, layer 3: the
// real lab leaves fib_multipath_hash_policy alone): a hash of the two
// addresses only, so every packet between them (every probe of a ping or
// a traceroute, whatever its protocol and ports) takes the same path. The
// addresses are ordered before hashing, as the kernel does, so that a
// flow and its reverse (and ICMP errors about it) hash alike. The kernel's
// hash key is random per boot; here it is fixed, so that a flow takes the
// same path in every run and in the control plane's own checks.
func flowPick(src, dst netip.Addr, n int) int {
	if dst.Less(src) {
		src, dst = dst, src
	}
	h := hash01(0, "ecmp/"+src.String()+"/"+dst.String(), 0)
	return min(int(h*float64(n)), n-1)
}

// fib is a table's active routes indexed for longest prefix match: a
// binary search per prefix length in use, instead of a scan of every
// route. The routes are in their table's order (see selectBest), so that
// the equal-cost routes of a prefix are adjacent.
type fib struct {
	active []*route // the active routes, by prefix
	lens   []int    // the prefix lengths in use, longest first
}

// newFIB indexes the active routes of rs, sorted by selectBest (one per
// prefix, or several of equal cost).
func newFIB(rs []*route) *fib {
	n := 0
	for _, r := range rs {
		if r.Active {
			n++
		}
	}
	f := &fib{active: make([]*route, 0, n)}
	seen := map[int]bool{}
	for _, r := range rs {
		if !r.Active {
			continue
		}
		f.active = append(f.active, r)
		if !seen[r.Prefix.Bits()] {
			seen[r.Prefix.Bits()] = true
			f.lens = append(f.lens, r.Prefix.Bits())
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(f.lens)))
	return f
}

// lookup is the longest prefix match of a: the prefix's equal-cost routes
// (nil f: an empty table).
func (f *fib) lookup(a netip.Addr) []*route {
	if f == nil {
		return nil
	}
	for _, bits := range f.lens {
		if bits > a.BitLen() {
			continue
		}
		p, err := a.Prefix(bits)
		if err != nil {
			continue
		}
		if rs := f.of(p); rs != nil {
			return rs
		}
	}
	return nil
}

// of returns the active routes of prefix p (nil: none).
func (f *fib) of(p netip.Prefix) []*route {
	i := sort.Search(len(f.active), func(i int) bool {
		q := f.active[i].Prefix
		if q.Addr() != p.Addr() {
			return p.Addr().Less(q.Addr())
		}
		return q.Bits() >= p.Bits()
	})
	j := i
	for j < len(f.active) && f.active[j].Prefix == p {
		j++
	}
	if j == i {
		return nil
	}
	return f.active[i:j:j]
}

// computeRIBs computes every table of d (see tablesOf): connected routes, then the IGP's
// (routers only), then statics resolved over both, per family; then the
// best route of each prefix is marked active.
func (s *state) computeRIBs(d *device) *tables {
	ribs := map[ribKey][]*route{}
	for gi, fam := range []int{4, 6} {
		for _, it := range d.ifList {
			if !it.l3() || !it.operUp {
				continue
			}
			for _, p := range it.addrs {
				if familyOf(p.Addr()) != fam {
					continue
				}
				k := ribKey{it.vrf, fam}
				ribs[k] = append(ribs[k], &route{Route: Route{Prefix: p.Masked(), Protocol: "direct",
					Preference: prefDirect, Interface: it.name}, outIf: it})
			}
		}
		k := ribKey{"", fam}
		if g := s.graphs[gi]; g != nil {
			if src, ok := g.idx[d]; ok {
				ribs[k] = append(ribs[k], g.routes(src)...)
			}
		}
		if p := s.ospf[d]; p != nil && fam == 4 {
			ribs[k] = append(ribs[k], s.ospfG.routes(p)...)
		}
		ribs[k] = append(ribs[k], s.bgpRoutesOf(d, k)...)
		if !s.daemonDown[d.name] {
			// Static routes are FRR's too (staticd, installed by zebra):
			// with the routing daemons down (frr_service_down) they are
			// withdrawn, and only the connected routes remain.
			d.statics(ribs, fam)
		}
	}
	t := &tables{ribs: ribs, fibs: make(map[ribKey]*fib, len(ribs))}
	for k, rs := range ribs {
		selectBest(rs)
		t.fibs[k] = newFIB(rs)
		t.routes += len(rs)
	}
	return t
}

// selectBest marks the best route of each prefix active, keeping statics'
// own resolution verdict (an unresolved static stays inactive). Routes of
// the same protocol, preference and metric as the best are active too
// (equal-cost multipath, as zebra installs them), but for BGP, which
// installs one path unless configured with maximum-paths, and for
// discard and connected routes; equal-cost routes sort by next hop.
func selectBest(rs []*route) {
	// A stable sort by routeBefore (slices' stable sort makes the same
	// comparisons as sort.SliceStable, without its reflection).
	slices.SortStableFunc(rs, func(a, b *route) int {
		switch {
		case routeBefore(a, b):
			return -1
		case routeBefore(b, a):
			return 1
		}
		return 0
	})
	// The routes of a prefix are adjacent once sorted: each run of them
	// is decided on its own, so that a table of thousands of prefixes
	// costs a pass, not a scan of the table per route.
	for start := 0; start < len(rs); {
		end := start + 1
		for end < len(rs) && rs[end].Prefix == rs[start].Prefix {
			end++
		}
		group := rs[start:end]
		var b *route // the prefix's best route
		for _, r := range group {
			usable := r.Discard || r.outIf != nil
			switch {
			case !usable:
				r.Active = false
			case b == nil:
				r.Active = true
				b = r
			default:
				r.Active = multipath(b) && multipath(r) && r.Protocol == b.Protocol &&
					r.Preference == b.Preference && r.Metric == b.Metric && !sameHop(r, group)
			}
		}
		start = end
	}
}

// routeBefore orders a table's routes: by prefix, the better first (by
// preference, then metric), equal-cost paths by next hop.
func routeBefore(a, b *route) bool {
	pa, pb := a.Prefix, b.Prefix
	if pa.Addr() != pb.Addr() {
		return pa.Addr().Less(pb.Addr())
	}
	if pa.Bits() != pb.Bits() {
		return pa.Bits() < pb.Bits()
	}
	if a.Preference != b.Preference {
		return a.Preference < b.Preference
	}
	if a.Metric != b.Metric {
		return a.Metric < b.Metric
	}
	if a.Protocol == b.Protocol && multipath(a) && multipath(b) {
		return a.NextHop.Less(b.NextHop)
	}
	return false
}

// multipath tells whether a route may share its prefix with other routes
// of equal cost: a resolved route through a next hop, not of BGP.
func multipath(r *route) bool {
	return !r.Discard && r.outIf != nil && r.NextHop.IsValid() && r.Protocol != ProtoBGP && r.Protocol != "direct"
}

// sameHop tells whether an active route of r's prefix already goes
// through r's next hop and interface (a duplicate is not a second path);
// rs holds r's prefix's routes (others are skipped).
func sameHop(r *route, rs []*route) bool {
	for _, o := range rs {
		if o != r && o.Active && o.Prefix == r.Prefix && o.NextHop == r.NextHop && o.outIf == r.outIf {
			return true
		}
	}
	return false
}

// lookup is a longest-prefix match over active routes.
func lookup(rs []*route, a netip.Addr, skip netip.Prefix) *route {
	var best *route
	for _, r := range rs {
		if !r.Active || !r.Prefix.Contains(a) || r.Prefix == skip {
			continue
		}
		if best == nil || r.Prefix.Bits() > best.Prefix.Bits() {
			best = r
		}
	}
	return best
}

// staticRoutes returns the device's static routes with its Gateway, if
// any, as a default route of distance 1 (a host's "default via").
func (d *device) staticRoutes() []topology.StaticRoute {
	if d.cfg.Gateway == "" {
		return d.cfg.Routes
	}
	gw, err := netip.ParseAddr(d.cfg.Gateway)
	if err != nil {
		return d.cfg.Routes
	}
	def := "0.0.0.0/0"
	if gw.Is6() {
		def = "::/0"
	}
	return append([]topology.StaticRoute{{Prefix: def, NextHop: gw.String()}}, d.cfg.Routes...)
}

// statics adds the static routes of family fam, resolving next hops
// recursively until nothing changes.
func (d *device) statics(ribs map[ribKey][]*route, fam int) {
	var pending []*route
	var cfgs []topology.StaticRoute
	for _, sr := range d.staticRoutes() {
		p, _ := netip.ParsePrefix(sr.Prefix)
		if familyOf(p.Addr()) != fam {
			continue
		}
		r := &route{Route: Route{Prefix: p.Masked(), Protocol: "static", Preference: sr.Distance,
			Discard: sr.Discard, Interface: sr.Interface}}
		if r.Preference == 0 {
			r.Preference = prefStatic
		}
		if sr.NextHop != "" {
			r.NextHop, _ = netip.ParseAddr(sr.NextHop)
		}
		k := ribKey{sr.VRF, fam}
		ribs[k] = append(ribs[k], r)
		pending = append(pending, r)
		cfgs = append(cfgs, sr)
	}
	resolved := make([]bool, len(pending))
	for changed := true; changed; {
		changed = false
		for i, r := range pending {
			if resolved[i] {
				continue
			}
			sr := cfgs[i]
			switch {
			case r.Discard:
				resolved[i] = true
			case sr.Interface != "":
				it := d.ifs[sr.Interface]
				if it.operUp && it.vrf == sr.VRF {
					r.outIf, r.gw = it, r.NextHop
					resolved[i] = true
				}
			case ownerOf(d, sr.VRF, r.NextHop) != nil:
				// A next hop that is the device's own address is invalid
				// (Linux: "Nexthop has invalid gateway"): never resolved.
			default:
				rs := ribs[ribKey{sr.VRF, fam}]
				selectBest(rs)
				via := lookup(rs, r.NextHop, r.Prefix)
				if via == nil || via.Discard || via.outIf == nil {
					continue
				}
				r.outIf, r.Interface = via.outIf, via.outIf.name
				r.gw = via.gw
				if !r.gw.IsValid() {
					r.gw = r.NextHop
				} else {
					r.recurse = true
				}
				resolved[i] = true
			}
			if resolved[i] {
				changed = true
			}
		}
	}
}

// adjacency is one IGP adjacency from a router.
type adjacency struct {
	to    *device
	toIdx int // to's index in the graph
	cost  int
	outIf *iface
	nh    netip.Addr
}

// igpGraph is the link-state database of one family: the routers, their
// adjacencies and the prefixes each advertises.
type igpGraph struct {
	routers []*device
	idx     map[*device]int
	adj     [][]adjacency
	// adverts are each router's connected global prefixes; advIDs the
	// same as indexes into prefixes, the prefixes advertised, each once.
	adverts  [][]netip.Prefix
	advIDs   [][]int
	prefixes []netip.Prefix
}

// igpGraph builds the IGP's graph of some routers' global tables for one
// family: adjacencies over up links between non-passive interfaces sharing
// a subnet, every connected prefix advertised.
func (s *state) igpGraph(fam int, routers []*device) *igpGraph {
	g := &igpGraph{routers: routers, idx: make(map[*device]int, len(routers))}
	for i, d := range routers {
		g.idx[d] = i
	}
	g.adj = make([][]adjacency, len(g.routers))
	g.adverts = make([][]netip.Prefix, len(g.routers))
	for i, d := range g.routers {
		for _, it := range d.ifList {
			if !it.l3() || !it.operUp || it.vrf != "" {
				continue
			}
			for _, p := range it.addrs {
				if familyOf(p.Addr()) == fam {
					g.adverts[i] = append(g.adverts[i], p.Masked())
				}
			}
		}
		for _, it := range d.ifList {
			if it.vrf != "" || !it.operUp || it.cfg.Passive || it.loopback {
				continue
			}
			mine, ok := it.addrOf(fam)
			if !ok {
				continue
			}
			cost := it.cfg.IGPCost
			if cost == 0 {
				cost = defaultIGPCost
			}
			for _, r := range it.reach {
				p := r.to
				if _, isR := g.idx[p.dev]; !isR || p.vrf != "" || p.cfg.Passive || p.dev == d {
					continue
				}
				for _, pa := range p.addrs {
					if familyOf(pa.Addr()) == fam && mine.Masked().Contains(pa.Addr()) {
						g.adj[i] = append(g.adj[i], adjacency{to: p.dev, toIdx: g.idx[p.dev], cost: cost, outIf: it, nh: pa.Addr()})
						break
					}
				}
			}
		}
	}
	ids := map[netip.Prefix]int{}
	g.advIDs = make([][]int, len(g.routers))
	for i, ps := range g.adverts {
		for _, p := range ps {
			id, ok := ids[p]
			if !ok {
				id = len(g.prefixes)
				ids[p] = id
				g.prefixes = append(g.prefixes, p)
			}
			g.advIDs[i] = append(g.advIDs[i], id)
		}
	}
	return g
}

// routes runs shortest paths from router src (Dijkstra over a binary heap
// ordered by distance, then router index) and returns its IGP routes: each
// prefix advertised by another router, through the first hops of every
// cheapest path to the nearest routers advertising it (equal-cost
// multipath: one route per first hop).
func (g *igpGraph) routes(src int) []*route {
	const inf = int(^uint(0) >> 2)
	n := len(g.routers)
	dist := make([]int, n)
	first := make([][]*adjacency, n)
	done := make([]bool, n)
	for i := range dist {
		dist[i] = inf
	}
	dist[src] = 0
	h := distHeap{{0, src}}
	for len(h) > 0 {
		it := h.pop()
		u := it.node
		if done[u] || it.dist != dist[u] {
			continue
		}
		done[u] = true
		for k := range g.adj[u] {
			a := &g.adj[u][k]
			v := a.toIdx
			via := first[u]
			if u == src {
				via = []*adjacency{a}
			}
			switch nd := dist[u] + a.cost; {
			case nd < dist[v]:
				dist[v] = nd
				first[v] = append([]*adjacency(nil), via...)
				h.push(heapItem{nd, v})
			case nd == dist[v]:
				first[v] = mergeHops(first[v], via, func(a *adjacency) hopKey { return hopKey{a.outIf, a.nh} })
			}
		}
	}
	// The prefixes are indexed (advIDs), so that choosing the nearest
	// advertisers of each costs no map of thousands of prefixes per
	// router.
	own := make([]bool, len(g.prefixes))
	for _, id := range g.advIDs[src] {
		own[id] = true
	}
	type cand struct {
		seen   bool
		metric int
		hops   []*adjacency
	}
	best := make([]cand, len(g.prefixes))
	var order []int
	for q := range g.routers {
		if q == src || dist[q] == inf || len(first[q]) == 0 {
			continue
		}
		for _, id := range g.advIDs[q] {
			if own[id] {
				continue
			}
			c := &best[id]
			switch {
			case !c.seen:
				order = append(order, id)
				*c = cand{true, dist[q], first[q]}
			case dist[q] < c.metric:
				*c = cand{true, dist[q], first[q]}
			case dist[q] == c.metric:
				c.hops = mergeHops(c.hops, first[q], func(a *adjacency) hopKey { return hopKey{a.outIf, a.nh} })
			}
		}
	}
	// The routes are allocated together: a table of thousands of routes
	// is one object for the allocator and the collector, not thousands.
	total := 0
	for _, id := range order {
		total += len(best[id].hops)
	}
	slab := make([]route, 0, total)
	list := make([]*route, 0, total)
	for _, id := range order {
		c, p := best[id], g.prefixes[id]
		for _, f := range sortHops(c.hops, func(a *adjacency) netip.Addr { return a.nh }) {
			slab = append(slab, route{Route: Route{Prefix: p, Protocol: "igp", Preference: prefIGP, Metric: c.metric,
				NextHop: f.nh, Interface: f.outIf.name}, outIf: f.outIf, gw: f.nh})
			list = append(list, &slab[len(slab)-1])
		}
	}
	return list
}

// hopKey identifies a first hop: the interface and the neighbour's address.
type hopKey struct {
	outIf *iface
	nh    netip.Addr
}

// mergeHops returns hops with those of more it lacks appended (a new
// slice: hops may be shared with another node's).
func mergeHops[T any](hops, more []T, key func(T) hopKey) []T {
	out := append([]T(nil), hops...)
	for _, m := range more {
		dup := false
		for _, h := range out {
			if key(h) == key(m) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, m)
		}
	}
	return out
}

// sortHops returns hops sorted by next-hop address, as zebra orders the
// next hops of a multipath route.
func sortHops[T any](hops []T, nh func(T) netip.Addr) []T {
	out := append([]T(nil), hops...)
	sort.SliceStable(out, func(a, b int) bool { return nh(out[a]).Less(nh(out[b])) })
	return out
}

// heapItem is a router and a tentative distance.
type heapItem struct{ dist, node int }

// distHeap is a binary min-heap of heapItems by distance, then node.
type distHeap []heapItem

func (h distHeap) less(i, j int) bool {
	return h[i].dist < h[j].dist || h[i].dist == h[j].dist && h[i].node < h[j].node
}

func (h *distHeap) push(x heapItem) {
	*h = append(*h, x)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !a.less(i, p) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *distHeap) pop() heapItem {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a = a[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(a) && a.less(l, m) {
			m = l
		}
		if r < len(a) && a.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return top
}
