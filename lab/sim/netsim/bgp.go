package netsim

import (
	"net/netip"
	"slices"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// This file is the BGP model: sessions whose state follows the TCP
// connection to port 179 through the simulated network (routing, ACLs,
// links, TTL for single-hop eBGP) and the AS numbers both sides expect,
// then the exchange of routes over the Established ones until every
// router's best paths stop changing.
//
// Simplifications: one IPv4 or IPv6 unicast family per session (the
// family of the neighbour address); MED is compared between any two paths;
// next hops resolve over the routes that are not BGP's (connected, static,
// OSPF or the abstract IGP); no route reflection, confederations or
// policies.

// BGP defaults and FRR's texts.
const (
	bgpKeepalive      = 60
	bgpHold           = 180
	bgpLocalPref      = 100
	prefEBGP          = 20
	prefIBGP          = 200
	bgpPort           = 179
	bgpEphemeralPort  = 40179
	errBadPeerAS      = "OPEN Message Error/Bad Peer AS"
	errHoldTimer      = "Hold Timer Expired"
	errAdminShutdown  = "Admin. shutdown"
	errPeerShutdown   = "Cease/Administrative Shutdown"
	errMaxPrefix      = "Cease/Maximum Number of Prefixes Reached"
	errWaitingForNHT  = "Waiting for NHT"
	originIGP         = 0
	originIncomplete  = 2
	bgpMaxOuterRounds = 8
)

var originNames = [...]string{"IGP", "EGP", "incomplete"}

// bgpProc is a router's compiled BGP process.
type bgpProc struct {
	d       *device
	cfg     *topology.BGP
	running bool
	asn     uint32
	rid     netip.Addr
	nbrs    []*bgpNbr
	// base are the device's tables without BGP (next hops resolve over
	// them), index 0 IPv4 and 1 IPv6; baseRoutes their routes.
	base       [2]*fib
	baseRoutes [2][]*route
	// local are the paths the router originates; best the selected path of
	// each prefix; installed the RIB entries of the best learnt paths.
	local     map[netip.Prefix]*bgpPath
	best      map[netip.Prefix]*bgpPath
	installed [2][]*route
}

// bgpNbr is one configured neighbour and its session.
type bgpNbr struct {
	p        *bgpProc
	cfg      *topology.BGPNeighbor
	addr     netip.Addr
	internal bool
	// local is the session's source address; remote the peer's process
	// and rn its neighbour entry for this router, when the session pairs.
	local  netip.Addr
	remote *bgpProc
	rn     *bgpNbr
	done   bool // the session's outcome is computed
	est    bool
	state  string
	cause  string // this build's error ("" none)
	trip   bool   // maximum-prefix exceeded
	// in is the Adj-RIB-In: the paths the peer sent.
	in      map[netip.Prefix]*bgpPath
	sent    int
	lastErr string
	// lastSent tells whether this router sent the notification of lastErr
	// (false: it received it, or lastErr is no notification).
	lastSent bool
	since    time.Time
	peerRID  netip.Addr
}

// bgpPath is one path of a BGP table.
type bgpPath struct {
	prefix   netip.Prefix
	nh       netip.Addr
	from     *bgpNbr // nil: originated here
	asPath   []uint32
	lp, med  int
	origin   int
	internal bool
	valid    bool
	igp      int // the metric of the route resolving nh
	peerRID  netip.Addr
}

// famIdx maps an address to the index of its family's table.
func famIdx(a netip.Addr) int {
	if familyOf(a) == 4 {
		return 0
	}
	return 1
}

// compileBGP builds the BGP processes of the routers that have one.
func (s *state) compileBGP() {
	for _, d := range s.order {
		c := d.cfg.BGP
		if c == nil || d.kind == topology.KindHost {
			continue
		}
		p := &bgpProc{d: d, cfg: c, running: !s.daemonDown[d.name], asn: c.ASN, rid: routerID(d, c.RouterID)}
		for i := range c.Neighbors {
			nc := &c.Neighbors[i]
			a, _ := netip.ParseAddr(nc.Address)
			p.nbrs = append(p.nbrs, &bgpNbr{p: p, cfg: nc, addr: a.Unmap(), internal: nc.RemoteAS == c.ASN})
		}
		if s.bgp == nil {
			s.bgp = map[*device]*bgpProc{}
		}
		s.bgp[d] = p
		s.bgpList = append(s.bgpList, p)
	}
}

// nbrFor returns the process's neighbour configured with address a.
func (p *bgpProc) nbrFor(a netip.Addr) *bgpNbr {
	for _, n := range p.nbrs {
		if n.addr == a {
			return n
		}
	}
	return nil
}

// localAddr is the source address of a neighbour's session: the
// update-source interface's address of the peer's family, else the
// address of the interface the route to the peer leaves by.
func (s *state) localAddr(n *bgpNbr) netip.Addr {
	d := n.p.d
	fam := familyOf(n.addr)
	if n.cfg.UpdateSource != "" {
		it := d.ifs[n.cfg.UpdateSource]
		if it == nil || !it.adminUp {
			return netip.Addr{}
		}
		a, _ := it.addrOf(fam)
		return a.Addr()
	}
	r := s.route(d, ribKey{"", fam}, n.addr)
	if r == nil || r.outIf == nil {
		return netip.Addr{}
	}
	return errorSource(d, r.outIf, fam)
}

// connected tells whether a is on the subnet of one of d's up global interfaces.
func connected(d *device, a netip.Addr) bool {
	for _, it := range d.ifList {
		if it.vrf == "" && it.operUp && it.l3() && !it.loopback {
			if _, ok := it.addrIn(a); ok {
				return true
			}
		}
	}
	return false
}

// ttl is the TTL of a neighbour's session packets: 1 for single-hop eBGP.
func (n *bgpNbr) ttl() int {
	if n.internal {
		return 255
	}
	if n.cfg.EBGPMultihop > 1 {
		return n.cfg.EBGPMultihop
	}
	return 1
}

// tcpReach tells whether a TCP connection from src on device from to dst
// port 179 on device to opens: the SYN arrives (the sender's egress ACL,
// every hop's routing and ACLs, links) and the SYN-ACK, from port 179,
// comes back the same way.
func (s *state) tcpReach(from *device, src netip.Addr, to *device, dst netip.Addr, ttl int) bool {
	m := &sim{s: s, dry: true}
	leg := func(at *device, p packet, want *device) bool {
		r := s.route(at, ribKey{"", familyOf(p.dst)}, p.dst)
		if r != nil && r.outIf != nil && !aclPermits(at, r.outIf.cfg.EgressACL, &p) {
			return false
		}
		res := m.forward(at, nil, "", p)
		return res.kind == fwDelivered && res.at == want && res.neighbor == nil
	}
	syn := packet{src: src, dst: dst, ttl: ttl, size: 60, proto: protoTCP, sport: bgpEphemeralPort, dport: bgpPort}
	ack := packet{src: dst, dst: src, ttl: ttl, size: 60, proto: protoTCP, sport: bgpPort, dport: bgpEphemeralPort}
	return leg(from, syn, to) && leg(to, ack, from)
}

// bgpSessions computes every session's state for the current tables: a
// session pairs a neighbour n of router A with the neighbour rn of the
// router B owning n's address whose address is n's source; it is
// Established when either side's connection opens and both remote-as
// match the other's ASN.
func (s *state) bgpSessions(owner map[netip.Addr]*device) {
	for _, p := range s.bgpList {
		for _, n := range p.nbrs {
			n.done, n.est, n.state, n.cause, n.remote, n.rn, n.peerRID = false, false, "", "", nil, nil, netip.Addr{}
			n.local = netip.Addr{}
		}
	}
	for _, p := range s.bgpList {
		for _, n := range p.nbrs {
			if n.done {
				continue
			}
			s.bgpSession(n, owner)
		}
	}
}

// bgpSession computes the outcome of n's session (and of its pair).
func (s *state) bgpSession(n *bgpNbr, owner map[netip.Addr]*device) {
	set := func(x *bgpNbr, state, cause string) {
		x.done, x.state, x.cause, x.est = true, state, cause, state == BGPEstablished
	}
	p := n.p
	switch {
	case !p.running:
		set(n, BGPIdle, "")
		return
	case n.cfg.Shutdown:
		set(n, BGPIdle, errAdminShutdown)
		return
	case n.trip:
		set(n, BGPIdle, errMaxPrefix)
		return
	}
	n.local = s.localAddr(n)
	if !n.local.IsValid() || !n.internal && n.ttl() == 1 && !connected(p.d, n.addr) {
		set(n, BGPActive, errWaitingForNHT)
		return
	}
	bd := owner[n.addr]
	q := s.bgp[bd]
	if bd == nil || q == nil || !q.running {
		set(n, BGPActive, "")
		return
	}
	rn := q.nbrFor(n.local)
	if rn == nil || rn.done && rn.rn != nil && rn.rn != n {
		set(n, BGPActive, "")
		return
	}
	switch {
	case rn.cfg.Shutdown:
		set(n, BGPActive, "") // the peer refuses; it says why when it was up
		return
	case rn.trip:
		set(n, BGPActive, errMaxPrefix)
		return
	}
	rn.local = s.localAddr(rn)
	if !rn.internal && rn.ttl() == 1 && !connected(bd, rn.addr) {
		set(n, BGPActive, "")
		return
	}
	up := s.tcpReach(p.d, n.local, bd, n.addr, n.ttl())
	if !up && rn.local == n.addr && owner[rn.addr] == p.d {
		up = s.tcpReach(bd, rn.local, p.d, rn.addr, rn.ttl())
	}
	if !up {
		set(n, BGPActive, "")
		if !rn.done {
			set(rn, BGPActive, "")
		}
		return
	}
	n.remote, n.rn, rn.remote, rn.rn = q, rn, p, n
	if n.cfg.RemoteAS != q.asn || rn.cfg.RemoteAS != p.asn {
		set(n, BGPIdle, errBadPeerAS)
		set(rn, BGPIdle, errBadPeerAS)
		return
	}
	n.peerRID, rn.peerRID = q.rid, p.rid
	set(n, BGPEstablished, "")
	set(rn, BGPEstablished, "")
}

// originate computes the paths the router originates: its network
// statements whose prefix is in the table (from a protocol other than
// BGP), then the redistributed connected, static and OSPF routes.
func (p *bgpProc) originate() {
	p.local = map[netip.Prefix]*bgpPath{}
	if !p.running {
		return
	}
	inRIB := func(pfx netip.Prefix) *route {
		for _, r := range p.baseRoutes[famIdx(pfx.Addr())] {
			if r.Active && r.Prefix == pfx {
				return r
			}
		}
		return nil
	}
	for _, s := range p.cfg.Networks {
		pfx, err := netip.ParsePrefix(s)
		if err != nil {
			continue
		}
		pfx = pfx.Masked()
		if inRIB(pfx) != nil {
			p.local[pfx] = &bgpPath{prefix: pfx, lp: bgpLocalPref, origin: originIGP, valid: true}
		}
	}
	for _, src := range p.cfg.Redistribute {
		proto := map[string]string{"connected": "direct", "static": "static", "ospf": ProtoOSPF}[src]
		for _, rs := range p.baseRoutes {
			for _, r := range rs {
				if !r.Active || r.Protocol != proto || p.local[r.Prefix] != nil {
					continue
				}
				med := 0
				if proto == ProtoOSPF || proto == "static" {
					med = r.Metric
				}
				p.local[r.Prefix] = &bgpPath{prefix: r.Prefix, lp: bgpLocalPref, med: med, origin: originIncomplete, valid: true}
			}
		}
	}
}

// resolve looks a next hop up in the tables without BGP: the route, or nil
// when it does not resolve (no route, a discard route, one of our own
// addresses).
func (p *bgpProc) resolve(nh netip.Addr) *route {
	if !nh.IsValid() || ownerOf(p.d, "", nh) != nil {
		return nil
	}
	rs := p.base[famIdx(nh)].lookup(nh)
	if len(rs) == 0 || rs[0].Discard || rs[0].outIf == nil {
		return nil
	}
	return rs[0]
}

// better tells whether path a is preferred to b: the higher local
// preference, a local path, the shorter AS path, the lower origin, the
// lower MED, eBGP over iBGP, the lower IGP metric to the next hop, the
// lower router id, then the lower peer address.
func better(a, b *bgpPath) bool {
	if a.lp != b.lp {
		return a.lp > b.lp
	}
	if (a.from == nil) != (b.from == nil) {
		return a.from == nil
	}
	if len(a.asPath) != len(b.asPath) {
		return len(a.asPath) < len(b.asPath)
	}
	if a.origin != b.origin {
		return a.origin < b.origin
	}
	if a.med != b.med {
		return a.med < b.med
	}
	if a.internal != b.internal {
		return !a.internal
	}
	if a.igp != b.igp {
		return a.igp < b.igp
	}
	if a.peerRID != b.peerRID {
		return a.peerRID.Less(b.peerRID)
	}
	if a.from != nil && b.from != nil {
		return a.from.addr.Less(b.from.addr)
	}
	return false
}

// samePath tells whether two paths carry the same attributes from the same peer.
func samePath(a, b *bgpPath) bool {
	return a.prefix == b.prefix && a.nh == b.nh && a.from == b.from && slices.Equal(a.asPath, b.asPath) &&
		a.lp == b.lp && a.med == b.med && a.origin == b.origin && a.internal == b.internal && a.valid == b.valid
}

// decide selects again the best valid path of some prefixes and returns
// those whose selection changed.
func (p *bgpProc) decide(pfxs map[netip.Prefix]bool) []netip.Prefix {
	var changed []netip.Prefix
	for pfx := range pfxs {
		var best *bgpPath
		consider := func(x *bgpPath) {
			if x != nil && x.valid && (best == nil || better(x, best)) {
				best = x
			}
		}
		consider(p.local[pfx])
		for _, n := range p.nbrs {
			if n.est {
				consider(n.in[pfx])
			}
		}
		old := p.best[pfx]
		switch {
		case best == old:
			continue
		case best == nil:
			delete(p.best, pfx)
		default:
			p.best[pfx] = best
		}
		changed = append(changed, pfx)
	}
	return changed
}

// exportPrefix sends the router's best path of a prefix to an Established
// neighbour (its Adj-RIB-In at the peer), or withdraws it, and tells
// whether what the peer holds changed. eBGP prepends the AS and sets the
// next hop to the session's source; iBGP keeps both, except for paths
// originated here or with next-hop-self, and does not pass on what another
// iBGP peer sent. Nothing goes back to the peer a path came from.
func (p *bgpProc) exportPrefix(n *bgpNbr, pfx netip.Prefix) bool {
	rn, q := n.rn, n.remote
	var x *bgpPath
	if b := p.best[pfx]; b != nil && familyOf(pfx.Addr()) == familyOf(n.addr) && b.from != n &&
		!(n.internal && b.from != nil && b.from.internal) {
		x = &bgpPath{prefix: pfx, from: rn, origin: b.origin, internal: n.internal, peerRID: p.rid}
		if n.internal {
			x.asPath, x.lp, x.med, x.nh = b.asPath, b.lp, b.med, b.nh
			if b.from == nil || n.cfg.NextHopSelf {
				x.nh = n.local
			}
		} else {
			x.asPath = append([]uint32{p.asn}, b.asPath...)
			x.lp, x.nh = bgpLocalPref, n.local
			if b.from == nil {
				x.med = b.med
			}
			if slices.Contains(b.asPath, q.asn) {
				x = nil // the peer drops a path with its own AS in it
			}
		}
	}
	if x != nil {
		if r := q.resolve(x.nh); r != nil {
			x.valid, x.igp = true, r.Metric
		}
	}
	o := rn.in[pfx]
	switch {
	case x == nil && o == nil:
		return false
	case x == nil:
		delete(rn.in, pfx)
		return true
	case o != nil && samePath(o, x) && o.igp == x.igp:
		return false
	}
	rn.in[pfx] = x
	return true
}

// bgpPropagate exchanges routes over the Established sessions until no
// router's best paths change (bounded), prefix by prefix: a change of a
// router's best path of a prefix is sent to its peers, which decide that
// prefix again. Then it trips the sessions whose peer sent more prefixes
// than maximum-prefix allows and tells whether it tripped any (the caller
// recomputes the sessions then).
func (s *state) bgpPropagate() bool {
	pending := map[*bgpProc]map[netip.Prefix]bool{}
	for _, p := range s.bgpList {
		p.best = map[netip.Prefix]*bgpPath{}
		for _, n := range p.nbrs {
			n.in, n.sent = map[netip.Prefix]*bgpPath{}, 0
		}
		p.originate()
		if p.running && len(p.local) > 0 {
			set := make(map[netip.Prefix]bool, len(p.local))
			for pfx := range p.local {
				set[pfx] = true
			}
			pending[p] = set
		}
	}
	for step := 0; len(pending) > 0 && step < 4*len(s.bgpList)+8; step++ {
		cur := pending
		pending = map[*bgpProc]map[netip.Prefix]bool{}
		for _, p := range s.bgpList {
			set := cur[p]
			if set == nil {
				continue
			}
			changed := p.decide(set)
			for _, n := range p.nbrs {
				if !n.est {
					continue
				}
				for _, pfx := range changed {
					if p.exportPrefix(n, pfx) {
						next := pending[n.remote]
						if next == nil {
							next = map[netip.Prefix]bool{}
							pending[n.remote] = next
						}
						next[pfx] = true
					}
				}
			}
		}
	}
	tripped := false
	for _, p := range s.bgpList {
		for _, n := range p.nbrs {
			if n.est {
				n.sent = len(n.rn.in)
			}
			if n.est && n.cfg.MaxPrefix > 0 && len(n.in) > n.cfg.MaxPrefix {
				n.trip, tripped = true, true
			}
		}
	}
	return tripped
}

// install turns the best learnt paths into RIB routes (eBGP preference 20,
// iBGP 200, resolved recursively over the tables without BGP) and tells
// whether they changed since the last call.
func (p *bgpProc) install() bool {
	var out [2][]*route
	for _, b := range p.best {
		if b.from == nil || !b.valid {
			continue
		}
		via := p.resolve(b.nh)
		if via == nil {
			continue
		}
		pref := prefEBGP
		if b.internal {
			pref = prefIBGP
		}
		r := &route{Route: Route{Prefix: b.prefix, Protocol: ProtoBGP, Preference: pref, Metric: b.med,
			NextHop: b.nh, Interface: via.outIf.name}, outIf: via.outIf, gw: via.gw}
		if !r.gw.IsValid() {
			r.gw = b.nh
		} else {
			r.recurse = true
		}
		i := famIdx(b.prefix.Addr())
		out[i] = append(out[i], r)
	}
	changed := false
	for i := range out {
		slices.SortFunc(out[i], func(a, b *route) int {
			return a.Prefix.Addr().Compare(b.Prefix.Addr())*64 + a.Prefix.Bits() - b.Prefix.Bits()
		})
		if !slices.EqualFunc(out[i], p.installed[i], func(a, b *route) bool {
			return a.Prefix == b.Prefix && a.NextHop == b.NextHop && a.Preference == b.Preference && a.outIf == b.outIf && a.gw == b.gw && a.Metric == b.Metric
		}) {
			changed = true
		}
	}
	p.installed = out
	return changed
}

// bgpKey names a session across rebuilds.
func bgpKey(n *bgpNbr) string { return n.p.d.name + "|" + n.addr.String() }

// bgpHistory fills each neighbour's LastError and Since from this build's
// outcome and the previous state's: a session that was Established and is
// no longer, with no other error, expired its hold timer.
func (s *state) bgpHistory(old *state, now time.Time) {
	prev := map[string]*bgpNbr{}
	if old != nil {
		for _, p := range old.bgpList {
			for _, n := range p.nbrs {
				prev[bgpKey(n)] = n
			}
		}
	}
	for _, p := range s.bgpList {
		for _, n := range p.nbrs {
			o := prev[bgpKey(n)]
			switch {
			case n.cause != "":
				n.lastErr, n.lastSent = n.cause, n.sends(n.cause)
			case o != nil && o.state == BGPEstablished && n.state != BGPEstablished && p.running:
				n.lastErr, n.lastSent = errHoldTimer, true
				if n.rn != nil && n.rn.cfg.Shutdown || s.peerShutdown(n) {
					n.lastErr, n.lastSent = errPeerShutdown, false
				}
			case o != nil:
				n.lastErr, n.lastSent = o.lastErr, o.lastSent
			}
			if o != nil && o.state == n.state {
				n.since = o.since
			} else {
				n.since = now
			}
		}
	}
}

// sends tells whether the router itself sends the NOTIFICATION of cause
// (FRR: "BGP Notification send"): the side expecting another AS than the
// peer announces, the side whose hold timer expires, the side shut down,
// the side whose maximum-prefix trips; the other side receives it.
func (n *bgpNbr) sends(cause string) bool {
	switch cause {
	case errBadPeerAS:
		return n.remote != nil && n.cfg.RemoteAS != n.remote.asn
	case errHoldTimer, errAdminShutdown:
		return true
	case errMaxPrefix:
		return n.trip
	}
	return false
}

// peerShutdown tells whether the peer owning n's address shut its side of
// the session down by configuration (it then sent a Cease notification).
func (s *state) peerShutdown(n *bgpNbr) bool {
	for _, q := range s.bgpList {
		if rn := q.nbrFor(n.local); rn != nil && rn.cfg.Shutdown && ownerOf(q.d, "", n.addr) != nil {
			return true
		}
	}
	return false
}

// neighborState renders a neighbour as the API's BGPNeighbor.
func (n *bgpNbr) neighborState() BGPNeighbor {
	p := n.p
	out := BGPNeighbor{Address: n.addr, RemoteAS: n.cfg.RemoteAS, LocalAS: p.asn, Description: n.cfg.Description,
		Internal: n.internal, State: n.state, AdminDown: n.cfg.Shutdown, LocalAddress: n.local,
		RemoteRouterID: n.peerRID, LastError: n.lastErr, LastErrorSent: n.lastSent, Since: n.since, Keepalive: bgpKeepalive, Hold: bgpHold}
	if p.cfg.Keepalive > 0 {
		out.Keepalive = p.cfg.Keepalive
	}
	if p.cfg.Hold > 0 {
		out.Hold = p.cfg.Hold
	}
	if n.est {
		out.PrefixesReceived = len(n.in)
		for _, x := range n.in {
			if x.valid {
				out.PrefixesAccepted++
			}
		}
		out.PrefixesSent = n.sent
	}
	return out
}

// routesOf lists a process's BGP table of one family: per prefix, the
// local path then the paths of each neighbour in configuration order.
func (p *bgpProc) routesOf(family int) []BGPRoute {
	var pfxs []netip.Prefix
	seen := map[netip.Prefix]bool{}
	add := func(m map[netip.Prefix]*bgpPath) {
		for pfx := range m {
			if familyOf(pfx.Addr()) == family && !seen[pfx] {
				seen[pfx] = true
				pfxs = append(pfxs, pfx)
			}
		}
	}
	add(p.local)
	for _, n := range p.nbrs {
		if n.est {
			add(n.in)
		}
	}
	slices.SortFunc(pfxs, func(a, b netip.Prefix) int {
		if c := a.Addr().Compare(b.Addr()); c != 0 {
			return c
		}
		return a.Bits() - b.Bits()
	})
	var out []BGPRoute
	conv := func(x *bgpPath) BGPRoute {
		r := BGPRoute{Prefix: x.prefix, NextHop: x.nh, ASPath: slices.Clone(x.asPath), LocalPref: x.lp, MED: x.med,
			Origin: originNames[x.origin], Internal: x.internal, Best: p.best[x.prefix] == x, Valid: x.valid}
		if x.from != nil {
			r.From = x.from.addr
		}
		return r
	}
	for _, pfx := range pfxs {
		if x := p.local[pfx]; x != nil {
			out = append(out, conv(x))
		}
		for _, n := range p.nbrs {
			if x := n.in[pfx]; n.est && x != nil {
				out = append(out, conv(x))
			}
		}
	}
	return out
}
