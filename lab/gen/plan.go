package gen

import (
	"fmt"
	"math/rand/v2"
)

// A generated network is planned in the abstract first (this file and
// shapes.go): routers with their autonomous system and OSPF area, the
// links between them, the LANs and what their hosts are. build.go then
// turns the plan into devices, interfaces and addresses.

// backbone is OSPF's backbone area.
const backbone = "0.0.0.0"

// node is one planned router.
type node struct {
	name string
	as   int // index into plan.asns
	// area holds the router's loopback: the backbone for a backbone
	// router, its own area for an access router.
	area string
	// lanArea is the area of the router's LANs: its area, or "" for a
	// fabric leaf, whose LANs are in the area of its pod (plan.abr).
	lanArea  string
	core     bool // in the backbone of its AS (a border may only be one)
	provider bool // an upstream provider's router
	dialect  string
}

// edge is one planned router-router link.
type edge struct {
	a, b int
	// area is the link's OSPF area; "" for a link between autonomous
	// systems, which runs eBGP and no OSPF.
	area  string
	delay float64 // one-way, ms
}

// Host roles.
const (
	roleClient = "client"
	roleDNS    = "dns"
	roleWeb    = "web"
	roleExt    = "external" // a provider's server, beyond the network
)

// lanPlan is one planned LAN behind a router.
type lanPlan struct {
	router int
	roles  []string // one per host
	vlan   bool     // behind a VLAN interface with one access port per host
}

// plan is a network in the abstract.
type plan struct {
	opts  Options
	rng   *rand.Rand
	nodes []node
	edges []edge
	asns  []uint32 // the network's systems first, then the providers'
	lans  []lanPlan
	areas int // non-backbone areas given out so far
	// abrArea is the area given to an area border router's access routers.
	abrArea map[int]string
}

// newPlan starts an empty plan for opts, its randomness seeded by opts.Seed.
func newPlan(o Options) *plan {
	seed := uint64(o.Seed)
	return &plan{opts: o, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), abrArea: map[int]string{}}
}

// addAS adds an autonomous system of the network and returns its index.
func (p *plan) addAS() int {
	p.asns = append(p.asns, uint32(65001+len(p.asns)))
	return len(p.asns) - 1
}

// addRouter adds one of the network's routers.
func (p *plan) addRouter(as int, area string, core bool) int {
	p.nodes = append(p.nodes, node{name: fmt.Sprintf("r%d", len(p.nodes)+1), as: as, area: area, lanArea: area,
		core: core, dialect: p.pickDialect()})
	return len(p.nodes) - 1
}

// pickDialect is the dialect of the next router.
func (p *plan) pickDialect() string {
	switch d := p.opts.dialect(); d {
	case DialectMixed:
		if p.rng.IntN(2) == 0 {
			return DialectVRP
		}
		return DialectXR
	default:
		return d
	}
}

// newArea gives out the next non-backbone area.
func (p *plan) newArea() string {
	p.areas++
	return fmt.Sprintf("0.0.0.%d", p.areas)
}

// link adds a link between routers a and b in area ("" for eBGP).
func (p *plan) link(a, b int, area string, delay float64) {
	p.edges = append(p.edges, edge{a: a, b: b, area: area, delay: delay})
}

// linked tells whether routers a and b share a link.
func (p *plan) linked(a, b int) bool {
	for _, e := range p.edges {
		if (e.a == a && e.b == b) || (e.a == b && e.b == a) {
			return true
		}
	}
	return false
}

// degree is the number of links of router i.
func (p *plan) degree(i int) int {
	n := 0
	for _, e := range p.edges {
		if e.a == i || e.b == i {
			n++
		}
	}
	return n
}

// coreDelay is the one-way delay of a backbone link: 0.5 to 3 ms.
func (p *plan) coreDelay() float64 { return 0.5 * float64(1+p.rng.IntN(6)) }

// pick returns a random element of s.
func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

// lanAreaOf is the area of router i's LANs.
func (p *plan) lanAreaOf(i int) string {
	if p.nodes[i].lanArea == "" {
		return p.abr(i)
	}
	return p.nodes[i].lanArea
}

// abr returns the area of router i's access routers, given out on first use.
func (p *plan) abr(i int) string {
	if a, ok := p.abrArea[i]; ok {
		return a
	}
	a := p.newArea()
	p.abrArea[i] = a
	return a
}

// attachAccess adds n access routers to AS as, each linked to a random
// backbone router of cores (which becomes an area border router, its
// access routers in an area of their own) or, now and then, behind an
// access router added before it, in that router's area.
func (p *plan) attachAccess(as int, cores []int, n int) []int {
	var added []int
	for k := 0; k < n; k++ {
		var parent int
		var area string
		if len(added) > 0 && p.rng.IntN(10) < 3 {
			parent = pick(p.rng, added)
			area = p.nodes[parent].area
		} else {
			parent = pick(p.rng, cores)
			area = p.abr(parent)
		}
		r := p.addRouter(as, area, false)
		p.link(parent, r, area, 1)
		added = append(added, r)
	}
	return added
}

// addProvider adds an upstream provider's router in an AS of its own,
// linked by eBGP to border router b.
func (p *plan) addProvider(b int) int {
	p.asns = append(p.asns, uint32(64500+p.providers()))
	p.nodes = append(p.nodes, node{name: fmt.Sprintf("isp%d", p.providers()+1), as: len(p.asns) - 1,
		provider: true, dialect: p.pickDialect()})
	i := len(p.nodes) - 1
	p.link(b, i, "", 5)
	return i
}

// providers counts the providers' routers.
func (p *plan) providers() int {
	n := 0
	for _, nd := range p.nodes {
		if nd.provider {
			n++
		}
	}
	return n
}

// providerCount is how many upstream providers a network of n routers has.
func providerCount(n int) int {
	if n < 16 {
		return 1
	}
	return 2
}

// routersOf lists the network's routers (not the providers') in AS as
// (-1: every AS), core ones only if core.
func (p *plan) routersOf(as int, coreOnly bool) []int {
	var out []int
	for i, nd := range p.nodes {
		if nd.provider || (as >= 0 && nd.as != as) || (coreOnly && !nd.core) {
			continue
		}
		out = append(out, i)
	}
	return out
}
