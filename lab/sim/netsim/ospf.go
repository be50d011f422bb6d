package netsim

import (
	"fmt"
	"net/netip"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// This file is the OSPFv2 model: from the topology's OSPF processes and
// interfaces it derives, per link, the outcome the real neighbour state
// machine reaches (FRR 8.4's checks, in the order it makes them), the DR
// and BDR of broadcast segments, and the shortest-path routes over Full
// adjacencies.
//
// Simplifications, documented here once:
//   - Areas are checked on every hello (a wrong area forms no neighbour),
//     but the SPF runs over one graph of every area: no ABR summaries and
//     no backbone-transit rule, which gives the same routes in labs whose
//     areas all touch area 0 (and any one-area lab).
//   - A network-type mismatch (point-to-point against broadcast) stops at
//     2-Way with a reason: FRR would reach Full on one side and the SPF
//     would then refuse the link, so no route crosses it either way.
//   - DR election has no incumbency: the highest priority, then the
//     highest router id, wins on every rebuild.
//   - External routes (redistribution, default-originate) are type 2 with
//     FRR's default metrics (20, and 10 for the default route); a static
//     route is redistributed when it resolves without OSPF (discard, an
//     interface, or a next hop on a connected subnet).

// OSPF defaults (FRR's).
const (
	ospfHello       = 10
	ospfDead        = 40
	ospfPriority    = 1
	ospfRefBW       = 100 // Mbit/s
	ospfLoopbackBW  = 10  // Mbit/s, so a loopback costs 10 as in FRR
	ospfExtMetric   = 20
	ospfDefMetric   = 10
	prefOSPF        = 110
	ospfAllRouters  = "224.0.0.5"
	reasonDeadTimer = "Dead timer expired: no Hello from the neighbour within the dead interval"
	reasonIfDown    = "InterfaceDown: the interface went down"
)

// ospfProc is a router's compiled OSPF process.
type ospfProc struct {
	d       *device
	cfg     *topology.OSPF
	running bool
	rid     netip.Addr
	ifs     []*ospfIf
	idx     int // node index in the OSPF graph
	// ext are the external routes the process originates.
	ext []ospfAdvert
}

// ospfIf is one interface in OSPF.
type ospfIf struct {
	p         *ospfProc
	it        *iface
	area      string
	netType   string
	cost      int
	hello     int
	dead      int
	prio      int
	passive   bool
	mtuIgnore bool
	addr      netip.Prefix // the first IPv4 address (invalid: none)
	up        bool
	state     string
	dr, bdr   netip.Addr
	nbrs      []*ospfNbr
}

// ospfNbr is what an interface knows of one neighbour.
type ospfNbr struct {
	// peer is the neighbour's interface in this state; nil for a
	// neighbour kept from the previous state that is no longer heard
	// (which keeps no pointer into the old state).
	peer   *ospfIf
	rid    netip.Addr
	addr   netip.Addr
	prio   int
	dead   int
	state  string
	reason string
	role   string
	since  time.Time
}

// ospfAdvert is a prefix a router advertises, with its cost.
type ospfAdvert struct {
	prefix   netip.Prefix
	cost     int
	external bool
}

// ospfEdge is one usable adjacency of the SPF graph.
type ospfEdge struct {
	to    int
	cost  int
	outIf *iface
	nh    netip.Addr
}

// ospfGraph is the link-state database: the running OSPF routers, their
// Full adjacencies and what each advertises.
type ospfGraph struct {
	procs   []*ospfProc
	edges   [][]ospfEdge
	adverts [][]ospfAdvert
}

// normArea writes an area id dotted ("0" -> "0.0.0.0").
func normArea(s string) (string, error) {
	if a, err := netip.ParseAddr(s); err == nil && a.Is4() {
		return a.String(), nil
	}
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return "", fmt.Errorf("area %q: want a dotted quad or a number 0-4294967295", s)
	}
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}).String(), nil
}

// ifSpeed is an interface's speed in Mbit/s.
func ifSpeed(it *iface) int {
	switch {
	case it.cfg.SpeedMbps > 0:
		return it.cfg.SpeedMbps
	case it.loopback:
		return ospfLoopbackBW
	case strings.HasPrefix(strings.ToLower(it.name), "tengig"):
		return 10000
	}
	return 1000
}

// routerID is a device's router id for a protocol: the protocol's
// override, the device's router-id, its first loopback IPv4 address, else
// its highest IPv4 address (as FRR picks one).
func routerID(d *device, override string) netip.Addr {
	for _, s := range []string{override, d.cfg.RouterID} {
		if a, err := netip.ParseAddr(s); err == nil && a.Is4() {
			return a
		}
	}
	var best netip.Addr
	for _, it := range d.ifList {
		if it.vrf != "" {
			continue
		}
		if p, ok := it.addrOf(4); ok {
			if it.loopback {
				return p.Addr()
			}
			if !best.IsValid() || best.Less(p.Addr()) {
				best = p.Addr()
			}
		}
	}
	return best
}

// compileOSPF builds the OSPF processes of the routers that have one.
func (s *state) compileOSPF() {
	for _, d := range s.order {
		if d.cfg.OSPF == nil || d.kind == topology.KindHost {
			continue
		}
		p := &ospfProc{d: d, cfg: d.cfg.OSPF, running: !s.daemonDown[d.name], rid: routerID(d, d.cfg.OSPF.RouterID)}
		ref := d.cfg.OSPF.ReferenceBandwidthMbps
		if ref <= 0 {
			ref = ospfRefBW
		}
		for _, it := range d.ifList {
			c := it.cfg.OSPF
			if c == nil || it.vrf != "" {
				continue
			}
			area, _ := normArea(c.Area)
			oi := &ospfIf{p: p, it: it, area: area, netType: c.NetworkType, cost: c.Cost, hello: c.Hello, dead: c.Dead,
				prio: ospfPriority, passive: c.Passive, mtuIgnore: c.MTUIgnore}
			if oi.netType == "" {
				oi.netType = topology.OSPFBroadcast
			}
			if oi.cost <= 0 {
				oi.cost = max(1, ref/ifSpeed(it))
			}
			if oi.hello <= 0 {
				oi.hello = ospfHello
			}
			if oi.dead <= 0 {
				oi.dead = ospfDead
			}
			if c.Priority != nil {
				oi.prio = *c.Priority
			}
			oi.addr, _ = it.addrOf(4)
			oi.up = p.running && it.operUp && it.l3() && oi.addr.IsValid()
			p.ifs = append(p.ifs, oi)
		}
		if s.ospf == nil {
			s.ospf = map[*device]*ospfProc{}
		}
		s.ospf[d] = p
		s.ospfList = append(s.ospfList, p)
	}
}

// ospfIfOf returns the OSPF interface of a compiled interface (nil: none).
func (s *state) ospfIfOf(it *iface) *ospfIf {
	p := s.ospf[it.dev]
	if p == nil {
		return nil
	}
	for _, oi := range p.ifs {
		if oi.it == it {
			return oi
		}
	}
	return nil
}

// sendsHellos tells whether an OSPF interface sends and accepts hellos.
func (oi *ospfIf) sendsHellos() bool {
	return oi.up && !oi.passive && !oi.it.loopback
}

// helloPasses tells whether a hello from one interface reaches another
// over hops (from's side first): the sender's egress ACL, every link up
// and not losing everything in that direction, the receiver's ingress ACL.
func (s *state) helloPasses(from, to *ospfIf, hops []linkHop) bool {
	p := packet{src: from.addr.Addr(), dst: netip.MustParseAddr(ospfAllRouters), ttl: 1, size: 64, proto: protoOSPF}
	if !aclPermits(from.it.dev, from.it.cfg.EgressACL, &p) {
		return false
	}
	m := &sim{s: s, dry: true}
	for _, h := range hops {
		if h.l.down || m.lose(h) {
			return false
		}
		// A named fault corrupting every frame this way (link_high_packet_corruption percent=100).
		if lost, _ := m.crossFx(h, &p, 1); lost {
			return false
		}
	}
	return aclPermits(to.it.dev, to.it.cfg.IngressACL, &p) && !faultDrops(to.it, &p)
}

// helloReject returns why an interface drops a neighbour's hello, in FRR's
// words ("" when it accepts it).
func (oi *ospfIf) helloReject(from *ospfIf) string {
	src := from.addr.Addr()
	switch {
	case from.area != oi.area:
		return fmt.Sprintf("area mismatch: interface %s: ospf_read invalid Area ID %s from %s (local area %s)", oi.it.name, from.area, src, oi.area)
	case oi.netType != topology.OSPFPointToPoint && from.addr.Bits() != oi.addr.Bits():
		return fmt.Sprintf("NetworkMask mismatch: Packet %s [Hello:RECV]: NetworkMask mismatch on %s (configured prefix length is %d, but hello packet indicates %d)", src, oi.it.name, oi.addr.Bits(), from.addr.Bits())
	case oi.netType != topology.OSPFPointToPoint && !oi.addr.Masked().Contains(src):
		return fmt.Sprintf("subnet mismatch: interface %s: ospf_read packet from %s is not on the interface's subnet %s", oi.it.name, src, oi.addr.Masked())
	case from.hello != oi.hello:
		return fmt.Sprintf("Hello/Dead interval mismatch: Packet %s [Hello:RECV]: HelloInterval mismatch (expected %d, but received %d)", src, oi.hello, from.hello)
	case from.dead != oi.dead:
		return fmt.Sprintf("Hello/Dead interval mismatch: Packet %s [Hello:RECV]: RouterDeadInterval mismatch (expected %d, but received %d)", src, oi.dead, from.dead)
	}
	return ""
}

// ospfAdjacencies computes every OSPF interface's state and neighbours,
// keeping the Since of unchanged neighbours from the previous state (old)
// and listing, as Down with the reason, neighbours known before that are
// no longer heard.
func (s *state) ospfAdjacencies(old *state, now time.Time) {
	type view struct {
		heard  bool   // the neighbour's hellos arrive
		reject string // why they are dropped
	}
	views := map[[2]*ospfIf]view{}
	type pair struct {
		oi, peer *ospfIf
	}
	var pairs []pair
	for _, p := range s.ospfList {
		for _, oi := range p.ifs {
			if !oi.sendsHellos() {
				continue
			}
			for _, r := range oi.it.reach {
				peer := s.ospfIfOf(r.to)
				if peer == nil || peer.p == p || !peer.sendsHellos() {
					continue
				}
				// r.hops run from oi towards peer: the peer's hellos need its own path.
				heard := false
				for _, back := range peer.it.reach {
					if back.to == oi.it {
						heard = s.helloPasses(peer, oi, back.hops)
						break
					}
				}
				v := view{heard: heard}
				if heard {
					v.reject = oi.helloReject(peer)
				}
				views[[2]*ospfIf{oi, peer}] = v
				pairs = append(pairs, pair{oi, peer})
			}
		}
	}
	// First pass: the states before DR election.
	for _, pr := range pairs {
		oi, peer := pr.oi, pr.peer
		v := views[[2]*ospfIf{oi, peer}]
		if !v.heard {
			continue
		}
		nb := &ospfNbr{peer: peer, rid: peer.p.rid, addr: peer.addr.Addr(), prio: peer.prio, dead: peer.dead}
		back := views[[2]*ospfIf{peer, oi}]
		switch {
		case v.reject != "":
			nb.state, nb.reason = OSPFDown, v.reject
		case !back.heard || back.reject != "":
			nb.state, nb.reason = OSPFInit, "one-way: the neighbour's Hello does not list this router (it does not receive or accepts no Hello from here)"
		case oi.netType != peer.netType:
			nb.state = OSPF2Way
			nb.reason = fmt.Sprintf("network type mismatch (local %s, neighbour %s): no adjacency the SPF can use", oi.netType, peer.netType)
		default:
			nb.state = OSPF2Way
		}
		oi.nbrs = append(oi.nbrs, nb)
	}
	// DR election on broadcast segments, then the adjacencies' outcome.
	for _, p := range s.ospfList {
		for _, oi := range p.ifs {
			oi.elect()
		}
	}
	for _, p := range s.ospfList {
		for _, oi := range p.ifs {
			for _, nb := range oi.nbrs {
				if nb.state != OSPF2Way || nb.reason != "" {
					continue
				}
				if oi.netType == topology.OSPFBroadcast && !oi.isDRorBDR() && !nb.peer.isDRorBDR() {
					continue // two DROthers stay 2-Way
				}
				nb.state, nb.reason = mtuOutcome(oi, nb.peer)
			}
		}
	}
	s.ospfKeepHistory(old, now)
}

// mtuOutcome is the Database Description exchange's outcome: Full, or
// stuck on an MTU mismatch. A router drops DD packets announcing an MTU
// above its own (unless mtu-ignore), so the smaller side stays in
// ExStart; the larger side reaches Exchange when it is the slave (the
// lower router id), since the master's DD packets are acceptable to it.
//
// The MTU compared is the configured one: an "mtu" fault of the older
// form lowers the data plane's MTU only, and FRR keeps an adjacency up
// through an MTU change until the process resets (a configuration change
// of the interface is such a reset here).
func mtuOutcome(oi, peer *ospfIf) (string, string) {
	mine, theirs := oi.mtu(), peer.mtu()
	switch {
	case theirs > mine && !oi.mtuIgnore:
		return OSPFExStart, fmt.Sprintf("MTU mismatch: Packet[DD]: Neighbor %s MTU %d is larger than [%s]'s MTU %d", peer.p.rid, theirs, oi.it.name, mine)
	case mine > theirs && !peer.mtuIgnore:
		st := OSPFExStart
		if oi.p.rid.Less(peer.p.rid) {
			st = OSPFExchange
		}
		return st, fmt.Sprintf("MTU mismatch: the neighbour's MTU %d is smaller than [%s]'s MTU %d: it drops our Database Description packets", theirs, oi.it.name, mine)
	}
	return OSPFFull, ""
}

// elect sets the interface's state, DR and BDR: on a broadcast segment the
// highest priority, then router id, among this router and its 2-Way
// neighbours (priority 0 never stands) is DR, the next BDR.
func (oi *ospfIf) elect() {
	switch {
	case !oi.up:
		oi.state = "Down"
		return
	case oi.it.loopback:
		oi.state = "Loopback"
		return
	case oi.netType == topology.OSPFPointToPoint:
		oi.state = "Point-To-Point"
		return
	}
	type cand struct {
		prio int
		rid  netip.Addr
		addr netip.Addr
	}
	var cs []cand
	if oi.prio > 0 {
		cs = append(cs, cand{oi.prio, oi.p.rid, oi.addr.Addr()})
	}
	if !oi.passive {
		for _, nb := range oi.nbrs {
			if nb.state == OSPF2Way && nb.reason == "" && nb.prio > 0 {
				cs = append(cs, cand{nb.prio, nb.rid, nb.addr})
			}
		}
	}
	sort.Slice(cs, func(a, b int) bool {
		if cs[a].prio != cs[b].prio {
			return cs[a].prio > cs[b].prio
		}
		return cs[b].rid.Less(cs[a].rid)
	})
	if len(cs) > 0 {
		oi.dr = cs[0].addr
	}
	if len(cs) > 1 {
		oi.bdr = cs[1].addr
	}
	me := oi.addr.Addr()
	switch me {
	case oi.dr:
		oi.state = "DR"
	case oi.bdr:
		oi.state = "Backup"
	default:
		oi.state = "DROther"
	}
	for _, nb := range oi.nbrs {
		switch nb.addr {
		case oi.dr:
			nb.role = "DR"
		case oi.bdr:
			nb.role = "Backup"
		default:
			nb.role = "DROther"
		}
	}
}

// mtu is the interface's configured MTU.
func (oi *ospfIf) mtu() int {
	if oi.it.cfg.MTU > 0 {
		return oi.it.cfg.MTU
	}
	return defaultMTU
}

// isDRorBDR tells whether the interface is its segment's DR or BDR.
func (oi *ospfIf) isDRorBDR() bool { return oi.state == "DR" || oi.state == "Backup" }

// ospfNbrKey names a neighbour across rebuilds.
func ospfNbrKey(oi *ospfIf, rid netip.Addr) string {
	return oi.p.d.name + "|" + oi.it.name + "|" + rid.String()
}

// ospfKeepHistory carries the Since of unchanged neighbours over from the
// previous state and lists neighbours that were known then and are no
// longer heard as Down, with the reason FRR gives for dropping them.
func (s *state) ospfKeepHistory(old *state, now time.Time) {
	prev := map[string]*ospfNbr{}
	if old != nil {
		for _, p := range old.ospfList {
			for _, oi := range p.ifs {
				for _, nb := range oi.nbrs {
					prev[ospfNbrKey(oi, nb.rid)] = nb
				}
			}
		}
	}
	for _, p := range s.ospfList {
		for _, oi := range p.ifs {
			seen := map[string]bool{}
			for _, nb := range oi.nbrs {
				k := ospfNbrKey(oi, nb.rid)
				seen[k] = true
				if o := prev[k]; o != nil && o.state == nb.state {
					nb.since = o.since
				} else {
					nb.since = now
				}
			}
			if old == nil {
				continue
			}
			// Neighbours of the same interface in the previous state that vanished.
			oldIf := old.ospfIfNamed(p.d.name, oi.it.name)
			if oldIf == nil {
				continue
			}
			for _, o := range oldIf.nbrs {
				k := ospfNbrKey(oi, o.rid)
				if seen[k] {
					continue
				}
				nb := &ospfNbr{rid: o.rid, addr: o.addr, prio: o.prio, dead: o.dead, state: OSPFDown, reason: o.reason, since: o.since}
				if o.state != OSPFDown {
					nb.since = now
					nb.reason = reasonDeadTimer
					if !oi.up {
						nb.reason = reasonIfDown
					}
				}
				oi.nbrs = append(oi.nbrs, nb)
			}
		}
	}
}

// ospfIfNamed finds an OSPF interface by names (nil: none).
func (s *state) ospfIfNamed(dev, ifname string) *ospfIf {
	d := s.devs[dev]
	if d == nil {
		return nil
	}
	it := d.ifs[ifname]
	if it == nil {
		return nil
	}
	return s.ospfIfOf(it)
}

// full tells whether both ends of a neighbour relation are Full.
func full(a, b *ospfIf) bool {
	return nbrState(a, b) == OSPFFull && nbrState(b, a) == OSPFFull
}

// nbrState is the state of b as a's neighbour ("" when absent).
func nbrState(a, b *ospfIf) string {
	for _, nb := range a.nbrs {
		if nb.peer == b {
			return nb.state
		}
	}
	return ""
}

// fullWithDR tells whether a broadcast interface is adjacent to its
// segment's DR (being the DR with any Full neighbour counts).
func (oi *ospfIf) fullWithDR() bool {
	for _, nb := range oi.nbrs {
		if nb.peer != nil && full(oi, nb.peer) && (oi.state == "DR" || nb.addr == oi.dr) {
			return true
		}
	}
	return false
}

// ospfBuildGraph builds the SPF graph: an edge for every usable adjacency
// (Full both ways on point-to-point links; on broadcast segments between
// any two routers that are both adjacent to the DR, as the network LSA
// joins them) and each router's advertisements.
func (s *state) ospfBuildGraph() {
	g := &ospfGraph{}
	for _, p := range s.ospfList {
		if !p.running {
			p.idx = -1
			continue
		}
		p.idx = len(g.procs)
		g.procs = append(g.procs, p)
	}
	g.edges = make([][]ospfEdge, len(g.procs))
	g.adverts = make([][]ospfAdvert, len(g.procs))
	for i, p := range g.procs {
		for _, oi := range p.ifs {
			if !oi.up {
				continue
			}
			g.adverts[i] = append(g.adverts[i], ospfAdvert{prefix: oi.addr.Masked(), cost: oi.cost})
			for _, nb := range oi.nbrs {
				peer := nb.peer
				ok := false
				switch {
				case peer == nil, nb.state != OSPFFull && nb.state != OSPF2Way, nb.reason != "":
				case oi.netType == topology.OSPFBroadcast:
					ok = oi.fullWithDR() && peer.fullWithDR()
				default:
					ok = full(oi, peer)
				}
				if ok && peer.p.running {
					g.edges[i] = append(g.edges[i], ospfEdge{to: peer.p.idx, cost: oi.cost, outIf: oi.it, nh: peer.addr.Addr()})
				}
			}
		}
		g.adverts[i] = append(g.adverts[i], p.ext...)
	}
	s.ospfG = g
}

// ospfExternals computes the external routes each running process
// originates: redistributed connected and static routes, and the default
// route of default-information originate.
func (s *state) ospfExternals() {
	for _, p := range s.ospfList {
		if !p.running {
			continue
		}
		seen := map[netip.Prefix]bool{}
		for _, oi := range p.ifs {
			if oi.up {
				seen[oi.addr.Masked()] = true
			}
		}
		add := func(pfx netip.Prefix, metric int) {
			if !seen[pfx] && pfx.Addr().Is4() {
				seen[pfx] = true
				p.ext = append(p.ext, ospfAdvert{prefix: pfx, cost: metric, external: true})
			}
		}
		if p.cfg.DefaultOriginate {
			add(netip.MustParsePrefix("0.0.0.0/0"), ospfDefMetric)
		}
		for _, src := range p.cfg.Redistribute {
			switch src {
			case "connected":
				for _, it := range p.d.ifList {
					if it.vrf != "" || !it.operUp || !it.l3() {
						continue
					}
					for _, a := range it.addrs {
						add(a.Masked(), ospfExtMetric)
					}
				}
			case "static":
				for _, sr := range p.d.staticRoutes() {
					if sr.VRF != "" {
						continue
					}
					pfx, err := netip.ParsePrefix(sr.Prefix)
					if err == nil && staticResolvesLocally(p.d, sr) {
						add(pfx.Masked(), ospfExtMetric)
					}
				}
			}
		}
	}
}

// staticResolvesLocally tells whether a static route resolves without any
// routing protocol: a discard route, an up interface, or a next hop on the
// subnet of an up interface.
func staticResolvesLocally(d *device, sr topology.StaticRoute) bool {
	switch {
	case sr.Discard:
		return true
	case sr.Interface != "":
		it := d.ifs[sr.Interface]
		return it != nil && it.operUp
	}
	nh, err := netip.ParseAddr(sr.NextHop)
	if err != nil {
		return false
	}
	for _, it := range d.ifList {
		if it.operUp && it.vrf == sr.VRF {
			if _, ok := it.addrIn(nh); ok {
				return true
			}
		}
	}
	return false
}

// ospfRoutes runs the SPF from a process (Dijkstra over the graph) and
// returns its OSPF routes: intra-area routes at the cheapest distance to
// the advertising router plus the prefix's cost, then external (type 2)
// routes through the nearest router originating them, for every prefix
// the router does not own. As ospfd does, every equal-cost path counts:
// a route has the first hops of all the cheapest paths to all the
// routers advertising its prefix at the best cost (one route per first
// hop, sorted by next hop, which zebra installs as one multipath route).
func (g *ospfGraph) routes(p *ospfProc) []*route {
	if g == nil || p.idx < 0 {
		return nil
	}
	const inf = int(^uint(0) >> 2)
	n := len(g.procs)
	dist := make([]int, n)
	first := make([][]*ospfEdge, n)
	for i := range dist {
		dist[i] = inf
	}
	src := p.idx
	dist[src] = 0
	key := func(e *ospfEdge) hopKey { return hopKey{e.outIf, e.nh} }
	h := distHeap{{0, src}}
	for len(h) > 0 {
		it := h.pop()
		u := it.node
		if it.dist != dist[u] {
			continue
		}
		for k := range g.edges[u] {
			e := &g.edges[u][k]
			via := first[u]
			if u == src {
				via = []*ospfEdge{e}
			}
			switch nd := dist[u] + e.cost; {
			case nd < dist[e.to]:
				dist[e.to] = nd
				first[e.to] = append([]*ospfEdge(nil), via...)
				h.push(heapItem{nd, e.to})
			case nd == dist[e.to] && e.to != src:
				first[e.to] = mergeHops(first[e.to], via, key)
			}
		}
	}
	own := map[netip.Prefix]bool{}
	for _, a := range g.adverts[src] {
		if !a.external {
			own[a.prefix] = true
		}
	}
	for _, it := range p.d.ifList {
		if it.vrf == "" && it.operUp {
			for _, a := range it.addrs {
				own[a.Masked()] = true
			}
		}
	}
	type cand struct {
		metric   int
		external bool
		tie      int // the distance to the originator (externals)
		hops     []*ospfEdge
	}
	best := map[netip.Prefix]*cand{}
	var order []netip.Prefix
	for q := range g.procs {
		if q == src || dist[q] == inf || len(first[q]) == 0 {
			continue
		}
		for _, a := range g.adverts[q] {
			if own[a.prefix] {
				continue
			}
			metric, tie := dist[q]+a.cost, 0
			if a.external {
				metric, tie = a.cost, dist[q]
			}
			c := best[a.prefix]
			if c != nil {
				if a.external == c.external && metric == c.metric && tie == c.tie {
					c.hops = mergeHops(c.hops, first[q], key)
					continue
				}
				better := !a.external && c.external ||
					a.external == c.external && (metric < c.metric || metric == c.metric && tie < c.tie)
				if !better {
					continue
				}
			} else {
				order = append(order, a.prefix)
			}
			best[a.prefix] = &cand{metric: metric, external: a.external, tie: tie, hops: first[q]}
		}
	}
	var out []*route
	for _, pfx := range order {
		c := best[pfx]
		for _, f := range sortHops(c.hops, func(e *ospfEdge) netip.Addr { return e.nh }) {
			out = append(out, &route{Route: Route{Prefix: pfx, Protocol: ProtoOSPF, Preference: prefOSPF, Metric: c.metric,
				NextHop: f.nh, Interface: f.outIf.name}, outIf: f.outIf, gw: f.nh})
		}
	}
	return out
}

// ospfState renders a process as the API's OSPFState.
func (p *ospfProc) state() OSPFState {
	st := OSPFState{Configured: true, Running: p.running, RouterID: p.rid}
	areas := map[string]bool{}
	for _, oi := range p.ifs {
		if !areas[oi.area] {
			areas[oi.area] = true
			st.Areas = append(st.Areas, oi.area)
		}
		st.Interfaces = append(st.Interfaces, OSPFInterface{Interface: oi.it.name, Area: oi.area, NetworkType: oi.netType,
			Cost: oi.cost, Hello: oi.hello, Dead: oi.dead, Passive: oi.passive, MTU: oi.mtu(), MTUIgnore: oi.mtuIgnore,
			Up: oi.up, Address: oi.addr, State: oi.state, DR: oi.dr, BDR: oi.bdr})
		for _, nb := range oi.nbrs {
			role := ""
			if oi.netType == topology.OSPFBroadcast {
				role = nb.role
			}
			st.Neighbors = append(st.Neighbors, OSPFNeighbor{Interface: oi.it.name, NeighborID: nb.rid,
				Address: nb.addr, Priority: nb.prio, State: nb.state, Role: role, Reason: nb.reason,
				Since: nb.since, DeadSeconds: nb.dead})
		}
	}
	sort.Slice(st.Areas, func(a, b int) bool {
		x, _ := netip.ParseAddr(st.Areas[a])
		y, _ := netip.ParseAddr(st.Areas[b])
		return x.Less(y)
	})
	return st
}
