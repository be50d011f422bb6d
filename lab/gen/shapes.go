package gen

import "slices"

// The shapes: each lays out the network's routers, their systems, areas
// and links, attaches the providers, and says which routers have client
// LANs (lanRouters) and where servers may go (serverRouters).

// shaped is what a shape leaves for the LANs to be placed.
type shaped struct {
	// lanRouters have a client LAN each.
	lanRouters []int
	// serverRouters may hold a server LAN; preferred ones first.
	serverRouters, preferred []int
}

// layout lays out the routers of p's shape.
func (p *plan) layout() shaped {
	n := p.opts.Routers
	switch p.opts.Shape {
	case ShapeRing, ShapeMesh:
		as := p.addAS()
		cores := p.backbone(as, n, p.opts.Shape == ShapeMesh)
		p.attachProviders([][]int{cores})
		return p.commonLANs()
	case ShapeMultiAS:
		return p.multiAS(n)
	case ShapeFabric:
		return p.fabric(n)
	default:
		return p.hubSpoke(n)
	}
}

// backbone adds n routers to AS as: a backbone (a ring with a chord per
// eight routers, or a random mesh) in area 0 and a quarter of them (at
// least one) as access routers in areas of their own. It returns the
// backbone routers.
func (p *plan) backbone(as, n int, mesh bool) []int {
	access := max(1, n/4)
	c := n - access
	var cores []int
	for range c {
		cores = append(cores, p.addRouter(as, backbone, true))
	}
	switch {
	case c == 2:
		p.link(cores[0], cores[1], backbone, p.coreDelay())
	case c >= 3 && !mesh:
		for i := range c {
			p.link(cores[i], cores[(i+1)%c], backbone, p.coreDelay())
		}
		for range c / 8 {
			p.chord(cores, 3)
		}
	case c >= 3:
		for i := 1; i < c; i++ {
			p.link(cores[i], cores[p.rng.IntN(i)], backbone, p.coreDelay())
		}
		for range c / 2 {
			p.chord(cores, 5)
		}
	}
	p.attachAccess(as, cores, access)
	return cores
}

// chord links two backbone routers not linked yet, each with fewer than
// maxDegree links; it gives up after a few tries.
func (p *plan) chord(cores []int, maxDegree int) {
	for range 20 {
		a, b := pick(p.rng, cores), pick(p.rng, cores)
		if a != b && !p.linked(a, b) && p.degree(a) < maxDegree && p.degree(b) < maxDegree {
			p.link(a, b, backbone, p.coreDelay())
			return
		}
	}
}

// attachProviders links the providers to border routers: the first to a
// router of the first group, the second to one of the last group (a
// different router when the groups are the same).
func (p *plan) attachProviders(groups [][]int) {
	var used []int
	for k := range providerCount(p.opts.Routers) {
		g := groups[0]
		if k > 0 {
			g = groups[len(groups)-1]
		}
		cand := slices.DeleteFunc(slices.Clone(g), func(i int) bool { return slices.Contains(used, i) })
		if len(cand) == 0 {
			cand = g
		}
		b := pick(p.rng, cand)
		used = append(used, b)
		p.addProvider(b)
	}
}

// commonLANs gives a client LAN to every access router and to about a
// third of the backbone routers, and lets servers go anywhere.
func (p *plan) commonLANs() shaped {
	var s shaped
	for _, i := range p.routersOf(-1, false) {
		if !p.nodes[i].core || p.rng.IntN(3) == 0 {
			s.lanRouters = append(s.lanRouters, i)
		}
		s.serverRouters = append(s.serverRouters, i)
	}
	return s
}

// multiAS splits n routers into two to four systems, each a ring or mesh
// backbone with access routers, chained by eBGP links (closed into a ring
// of systems from three on, with a second link between two neighbouring
// systems from 20 routers on).
func (p *plan) multiAS(n int) shaped {
	k := 2
	switch {
	case n >= 30:
		k = 4
	case n >= 12:
		k = 3
	}
	sizes := make([]int, k)
	for i := range sizes {
		sizes[i] = n / k
	}
	for range n % k {
		sizes[p.rng.IntN(k)]++
	}
	cores := make([][]int, k)
	for i, size := range sizes {
		as := p.addAS()
		cores[i] = p.backbone(as, size, p.rng.IntN(2) == 0)
	}
	for i := 0; i+1 < k; i++ {
		p.link(pick(p.rng, cores[i]), pick(p.rng, cores[i+1]), "", 2)
	}
	if k >= 3 {
		p.link(pick(p.rng, cores[0]), pick(p.rng, cores[k-1]), "", 2)
	}
	if n >= 20 {
		i := p.rng.IntN(k - 1)
		p.link(pick(p.rng, cores[i]), pick(p.rng, cores[i+1]), "", 2)
	}
	p.attachProviders(cores)
	return p.commonLANs()
}

// fabric makes a spine-leaf fabric of n routers: two to four spines,
// every leaf linked to every spine in area 0, a sixth of the rest as
// edge routers behind random leaves. Each leaf's LANs and edge routers
// are in the area of its pod, so every leaf is an area border router.
// The providers attach to leaves (border leaves); spines have no LANs.
func (p *plan) fabric(n int) shaped {
	as := p.addAS()
	spines := 2
	switch {
	case n > 30:
		spines = 4
	case n > 12:
		spines = 3
	}
	edges := (n - spines) / 6
	leaves := n - spines - edges
	var sp, lv []int
	for range spines {
		sp = append(sp, p.addRouter(as, backbone, true))
	}
	for range leaves {
		l := p.addRouter(as, backbone, true)
		p.nodes[l].lanArea = ""
		lv = append(lv, l)
		for _, s := range sp {
			p.link(l, s, backbone, 0.5)
		}
	}
	for range edges {
		l := pick(p.rng, lv)
		e := p.addRouter(as, p.abr(l), false)
		p.link(l, e, p.abr(l), 1)
	}
	p.attachProviders([][]int{lv})
	var s shaped
	for _, i := range p.routersOf(as, false) {
		if slices.Contains(sp, i) {
			continue
		}
		if !p.nodes[i].core || p.rng.IntN(5) < 4 {
			s.lanRouters = append(s.lanRouters, i)
		}
		s.serverRouters = append(s.serverRouters, i)
	}
	if len(s.lanRouters) == 0 {
		s.lanRouters = []int{lv[0]}
	}
	return s
}

// hubSpoke makes one to three hubs in a full mesh (area 0) and n-hubs
// branch routers, each in an area of its own, linked to one hub or (two
// in five, when there are two hubs or more) to two. The providers attach
// to hubs; servers go to the hubs' LANs first.
func (p *plan) hubSpoke(n int) shaped {
	as := p.addAS()
	hubs := 1
	switch {
	case n >= 30:
		hubs = 3
	case n >= 8:
		hubs = 2
	}
	var hb []int
	for range hubs {
		h := p.addRouter(as, backbone, true)
		for _, o := range hb {
			p.link(o, h, backbone, p.coreDelay())
		}
		hb = append(hb, h)
	}
	var s shaped
	for range n - hubs {
		area := p.newArea()
		sp := p.addRouter(as, area, false)
		h := pick(p.rng, hb)
		p.link(h, sp, area, 2+float64(p.rng.IntN(8)))
		if hubs >= 2 && p.rng.IntN(5) < 2 {
			other := pick(p.rng, slices.DeleteFunc(slices.Clone(hb), func(i int) bool { return i == h }))
			p.link(other, sp, area, 2+float64(p.rng.IntN(8)))
		}
		s.lanRouters = append(s.lanRouters, sp)
		s.serverRouters = append(s.serverRouters, sp)
	}
	p.attachProviders([][]int{hb})
	s.serverRouters = append(s.serverRouters, hb...)
	s.preferred = hb
	return s
}

// placeLANs plans the client LANs (one to four hosts each) and the server
// LANs (each DNS server alone on its LAN; a web server alone or beside
// another web server), the servers' routers chosen apart where possible,
// and one external server on each provider's LAN.
func (p *plan) placeLANs(s shaped) {
	for _, r := range s.lanRouters {
		hosts := 1 + p.rng.IntN(4)
		roles := make([]string, hosts)
		for i := range roles {
			roles[i] = roleClient
		}
		p.lans = append(p.lans, lanPlan{router: r, roles: roles, vlan: hosts > 1 || p.rng.IntN(4) == 0})
	}
	n := p.opts.Routers
	servers := []string{roleDNS}
	if n >= 10 {
		servers = append(servers, roleDNS)
	}
	for range 1 + n/25 {
		servers = append(servers, roleWeb)
	}
	var used []int
	for _, role := range servers {
		last := &p.lans[len(p.lans)-1]
		if role == roleWeb && last.roles[0] == roleWeb && len(last.roles) == 1 && p.rng.IntN(10) < 3 {
			last.roles = append(last.roles, roleWeb)
			last.vlan = true
			continue
		}
		r := p.serverRouter(s, used)
		used = append(used, r)
		p.lans = append(p.lans, lanPlan{router: r, roles: []string{role}, vlan: p.rng.IntN(4) == 0})
	}
	for i, nd := range p.nodes {
		if nd.provider {
			p.lans = append(p.lans, lanPlan{router: i, roles: []string{roleExt}})
		}
	}
}

// serverRouter picks the router of a server LAN: a preferred router
// (seven times in ten) or any server router, not in used while others
// are left.
func (p *plan) serverRouter(s shaped, used []int) int {
	free := func(c []int) []int {
		return slices.DeleteFunc(slices.Clone(c), func(i int) bool { return slices.Contains(used, i) })
	}
	if c := free(s.preferred); len(c) > 0 && p.rng.IntN(10) < 7 {
		return pick(p.rng, c)
	}
	if c := free(s.serverRouters); len(c) > 0 {
		return pick(p.rng, c)
	}
	return pick(p.rng, s.serverRouters)
}
