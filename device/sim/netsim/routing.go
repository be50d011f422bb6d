package netsim

import (
	"net/netip"
	"sort"

	"github.com/netmcp/netmcp/device/sim/topology"
)

// Route preferences (administrative distances).
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
	order int
}

// routing computes every device's tables.
func (s *state) routing() {
	for _, fam := range []int{4, 6} {
		for _, d := range s.order {
			for _, it := range d.ifList {
				if !it.l3() || !it.operUp {
					continue
				}
				for _, p := range it.addrs {
					if familyOf(p.Addr()) != fam {
						continue
					}
					k := ribKey{it.vrf, fam}
					d.ribs[k] = append(d.ribs[k], &route{Route: Route{Prefix: p.Masked(), Protocol: "direct",
						Preference: prefDirect, Interface: it.name}, outIf: it})
				}
			}
		}
		s.igp(fam)
		for _, d := range s.order {
			d.statics(fam)
		}
	}
	for _, d := range s.order {
		for _, rs := range d.ribs {
			selectBest(rs)
		}
	}
}

// selectBest marks the best route of each prefix active, keeping statics'
// own resolution verdict (an unresolved static stays inactive).
func selectBest(rs []*route) {
	for i, r := range rs {
		r.order = i
	}
	sort.SliceStable(rs, func(a, b int) bool {
		pa, pb := rs[a].Prefix, rs[b].Prefix
		if pa.Addr() != pb.Addr() {
			return pa.Addr().Less(pb.Addr())
		}
		if pa.Bits() != pb.Bits() {
			return pa.Bits() < pb.Bits()
		}
		if rs[a].Preference != rs[b].Preference {
			return rs[a].Preference < rs[b].Preference
		}
		return rs[a].Metric < rs[b].Metric
	})
	best := map[netip.Prefix]bool{}
	for _, r := range rs {
		usable := r.Discard || r.outIf != nil
		if usable && !best[r.Prefix] {
			r.Active = true
			best[r.Prefix] = true
		} else {
			r.Active = false
		}
	}
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

// statics adds the static routes of family fam, resolving next hops
// recursively until nothing changes.
func (d *device) statics(fam int) {
	var pending []*route
	var cfgs []topology.StaticRoute
	for _, sr := range d.cfg.Routes {
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
		d.ribs[k] = append(d.ribs[k], r)
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
			default:
				rs := d.ribs[ribKey{sr.VRF, fam}]
				selectBest(rs)
				via := lookup(rs, r.NextHop, r.Prefix)
				if via == nil || via.Discard || via.outIf == nil {
					continue
				}
				r.outIf, r.Interface = via.outIf, via.outIf.name
				r.gw = via.gw
				if !r.gw.IsValid() {
					r.gw = r.NextHop
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
	cost  int
	outIf *iface
	nh    netip.Addr
}

// igp runs a link-state IGP over the global tables of the routers for one
// family: adjacencies over up links between non-passive interfaces sharing
// a subnet, shortest paths by Dijkstra, every connected prefix advertised.
func (s *state) igp(fam int) {
	var routers []*device
	idx := map[*device]int{}
	for _, d := range s.order {
		if d.kind == topology.KindRouter {
			idx[d] = len(routers)
			routers = append(routers, d)
		}
	}
	adj := make([][]adjacency, len(routers))
	for i, d := range routers {
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
				if _, isR := idx[p.dev]; !isR || p.vrf != "" || p.cfg.Passive || p.dev == d {
					continue
				}
				for _, pa := range p.addrs {
					if familyOf(pa.Addr()) == fam && mine.Masked().Contains(pa.Addr()) {
						adj[i] = append(adj[i], adjacency{to: p.dev, cost: cost, outIf: it, nh: pa.Addr()})
						break
					}
				}
			}
		}
	}
	// Prefixes each router advertises: its connected global prefixes.
	adverts := make([][]netip.Prefix, len(routers))
	for i, d := range routers {
		for _, r := range d.ribs[ribKey{"", fam}] {
			if r.Protocol == "direct" {
				adverts[i] = append(adverts[i], r.Prefix)
			}
		}
	}
	const inf = int(^uint(0) >> 2)
	for src, d := range routers {
		dist := make([]int, len(routers))
		first := make([]*adjacency, len(routers))
		done := make([]bool, len(routers))
		for i := range dist {
			dist[i] = inf
		}
		dist[src] = 0
		for {
			u := -1
			for i := range routers {
				if !done[i] && dist[i] < inf && (u < 0 || dist[i] < dist[u]) {
					u = i
				}
			}
			if u < 0 {
				break
			}
			done[u] = true
			for k := range adj[u] {
				a := &adj[u][k]
				v := idx[a.to]
				if nd := dist[u] + a.cost; nd < dist[v] {
					dist[v] = nd
					if u == src {
						first[v] = a
					} else {
						first[v] = first[u]
					}
				}
			}
		}
		own := map[netip.Prefix]bool{}
		for _, p := range adverts[src] {
			own[p] = true
		}
		best := map[netip.Prefix]int{} // index in list
		var list []*route
		for q := range routers {
			if q == src || dist[q] == inf || first[q] == nil {
				continue
			}
			for _, p := range adverts[q] {
				if own[p] {
					continue
				}
				i, seen := best[p]
				if seen && list[i].Metric <= dist[q] {
					continue
				}
				f := first[q]
				r := &route{Route: Route{Prefix: p, Protocol: "igp", Preference: prefIGP, Metric: dist[q],
					NextHop: f.nh, Interface: f.outIf.name}, outIf: f.outIf, gw: f.nh}
				if seen {
					list[i] = r
				} else {
					best[p] = len(list)
					list = append(list, r)
				}
			}
		}
		k := ribKey{"", fam}
		d.ribs[k] = append(d.ribs[k], list...)
	}
}
