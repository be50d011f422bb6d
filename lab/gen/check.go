package gen

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
)

// Checker is the health check of a network, derived from its intended
// topology (what the network should be, whatever a fault has made of
// it): every OSPF adjacency between routers Full, every configured BGP
// session Established, every link answering pings both ways (small ones,
// and one of the link's full MTU that must not fragment), every host
// reaching every service by ping, and every host with a resolver getting
// each service's address from it.
//
// A service is a host running a DNS service or named in a DNS zone by an
// alias (an A record under another name than its own).
type Checker struct {
	ospf    []ospfProbe
	bgp     []bgpProbe
	pings   []pingProbe
	lookups []dnsProbe
}

type ospfProbe struct {
	dev, iface string
	peer       netip.Addr // the neighbour's router id
	peerName   string
}

type bgpProbe struct {
	dev  string
	addr netip.Addr
	desc string
}

type pingProbe struct {
	what string // "link r1:Gi0/0/0/0 -> r2", "h3 -> www"
	from string
	to   netip.Addr
	size int // payload bytes; DF set when above the default
}

// dnsProbe is a lookup of a service's alias by a host, from the
// resolver the host has when the check runs.
type dnsProbe struct {
	host string
	name string // absolute
	want string
}

// Probe counts.
const (
	pingCount     = 4
	defaultSize   = 56
	ipICMPHeaders = 28
)

// NewChecker derives the checks of topo.
func NewChecker(topo topology.Topology) *Checker {
	c := &Checker{}
	devs := map[string]*topology.Device{}
	for i := range topo.Devices {
		devs[topo.Devices[i].Name] = &topo.Devices[i]
	}
	for _, l := range topo.Links {
		c.linkChecks(devs, l)
	}
	for _, d := range topo.Devices {
		if d.BGP == nil {
			continue
		}
		for _, nb := range d.BGP.Neighbors {
			a, err := netip.ParseAddr(nb.Address)
			if err != nil || nb.Shutdown {
				continue
			}
			c.bgp = append(c.bgp, bgpProbe{dev: d.Name, addr: a, desc: nb.Description})
		}
	}
	c.serviceChecks(topo)
	return c
}

// end is one end of a link as the checks see it.
type end struct {
	dev   *topology.Device
	iface *topology.Interface
	// l3 is the interface holding the end's address: the interface, or
	// for a switched port the device's VLAN interface of its VLAN.
	l3 *topology.Interface
}

func resolveEnd(devs map[string]*topology.Device, s string) (end, bool) {
	dn, ifn, ok := topology.SplitEnd(s)
	d := devs[dn]
	if !ok || d == nil {
		return end{}, false
	}
	e := end{dev: d}
	for i := range d.Interfaces {
		if d.Interfaces[i].Name == ifn {
			e.iface = &d.Interfaces[i]
		}
	}
	if e.iface == nil {
		return end{}, false
	}
	e.l3 = e.iface
	if v := e.iface.AccessVLAN; v > 0 {
		e.l3 = nil
		for i := range d.Interfaces {
			if d.Interfaces[i].RoutedVLAN == v {
				e.l3 = &d.Interfaces[i]
			}
		}
	}
	return e, e.l3 != nil
}

// addr4 is an interface's first IPv4 address.
func addr4(it *topology.Interface) (netip.Prefix, bool) {
	for _, a := range it.Addresses {
		if p, err := netip.ParsePrefix(a); err == nil && p.Addr().Is4() {
			return p, true
		}
	}
	return netip.Prefix{}, false
}

func mtuOf(it *topology.Interface) int {
	if it.MTU == 0 {
		return 1500
	}
	return it.MTU
}

// linkChecks adds the checks of one link: pings both ways, and the OSPF
// adjacency when both ends run OSPF on it.
func (c *Checker) linkChecks(devs map[string]*topology.Device, l topology.Link) {
	a, okA := resolveEnd(devs, l.A)
	b, okB := resolveEnd(devs, l.B)
	if !okA || !okB {
		return
	}
	pa, okA := addr4(a.l3)
	pb, okB := addr4(b.l3)
	if !okA || !okB || !pa.Contains(pb.Addr()) {
		return
	}
	mtu := min(mtuOf(a.iface), mtuOf(b.iface), mtuOf(a.l3), mtuOf(b.l3))
	for _, dir := range [][2]end{{a, b}, {b, a}} {
		from, to := dir[0], dir[1]
		toAddr := pb.Addr()
		if to.dev == a.dev {
			toAddr = pa.Addr()
		}
		what := fmt.Sprintf("link %s:%s -> %s", from.dev.Name, from.iface.Name, to.dev.Name)
		c.pings = append(c.pings, pingProbe{what: what, from: from.dev.Name, to: toAddr, size: defaultSize},
			pingProbe{what: what + " (full MTU, DF)", from: from.dev.Name, to: toAddr, size: mtu - ipICMPHeaders})
	}
	oa, ob := a.iface.OSPF, b.iface.OSPF
	if a.dev.OSPF == nil || b.dev.OSPF == nil || oa == nil || ob == nil || oa.Passive || ob.Passive {
		return
	}
	for _, dir := range [][2]end{{a, b}, {b, a}} {
		rid, err := netip.ParseAddr(routerID(dir[1].dev))
		if err != nil {
			continue
		}
		c.ospf = append(c.ospf, ospfProbe{dev: dir[0].dev.Name, iface: dir[0].iface.Name, peer: rid, peerName: dir[1].dev.Name})
	}
}

// routerID is a router's OSPF router id.
func routerID(d *topology.Device) string {
	if d.OSPF != nil && d.OSPF.RouterID != "" {
		return d.OSPF.RouterID
	}
	if d.RouterID != "" {
		return d.RouterID
	}
	for _, it := range d.Interfaces {
		if p, ok := addr4(&it); ok && strings.EqualFold(it.Type, "softwareLoopback") {
			return p.Addr().String()
		}
	}
	return ""
}

// serviceChecks adds every host's pings to the services and its lookups
// of their aliases.
func (c *Checker) serviceChecks(topo topology.Topology) {
	owner := map[netip.Addr]string{} // host address -> host
	var hosts []topology.Device
	for _, d := range topo.Devices {
		if d.Kind != topology.KindHost {
			continue
		}
		hosts = append(hosts, d)
		for _, it := range d.Interfaces {
			if p, ok := addr4(&it); ok {
				owner[p.Addr()] = d.Name
			}
		}
	}
	type service struct {
		name string // alias, or the host's name for a DNS server
		addr netip.Addr
		host string
	}
	var services []service
	var aliases []dnsProbe
	seen := map[netip.Addr]bool{}
	add := func(name string, a netip.Addr) {
		if !seen[a] {
			seen[a] = true
			services = append(services, service{name: name, addr: a, host: owner[a]})
		}
	}
	for _, d := range hosts {
		if d.DNS == nil {
			continue
		}
		for _, z := range d.DNS.Zones {
			for _, r := range z.Records {
				a, err := netip.ParseAddr(r.Value)
				if r.Type != "A" || err != nil || owner[a] == "" || owner[a] == r.Name {
					continue
				}
				add(r.Name, a)
				name := r.Name
				if !strings.HasSuffix(name, ".") {
					name += "." + strings.TrimSuffix(z.Name, ".") + "."
				}
				if !slices.ContainsFunc(aliases, func(p dnsProbe) bool { return p.name == name }) {
					aliases = append(aliases, dnsProbe{name: name, want: a.String()})
				}
			}
		}
	}
	for _, d := range hosts {
		if d.DNS == nil {
			continue
		}
		for _, it := range d.Interfaces {
			if p, ok := addr4(&it); ok {
				add(d.Name, p.Addr())
			}
		}
	}
	for _, h := range hosts {
		for _, s := range services {
			if s.host == h.Name {
				continue
			}
			c.pings = append(c.pings, pingProbe{what: fmt.Sprintf("%s -> %s (%s)", h.Name, s.name, s.addr), from: h.Name, to: s.addr, size: defaultSize})
		}
		if len(h.DNSServers) == 0 {
			continue
		}
		for _, a := range aliases {
			c.lookups = append(c.lookups, dnsProbe{host: h.Name, name: a.name, want: a.want})
		}
	}
}

// Result is the outcome of one check.
type Result struct {
	// Check names the check: "ospf r1 GigabitEthernet0/0/0/1 -> r2",
	// "bgp r3 10.255.0.1 (r1)", "link r1:... -> r2", "h3 -> www (10.1.4.10)",
	// "dns h3 www.lab.example.".
	Check string `json:"check"`
	OK    bool   `json:"ok"`
	// Detail says what was seen: a state, a loss, an answer.
	Detail string `json:"detail,omitempty"`
	// RTT is a ping's longest round trip.
	RTT time.Duration `json:"rtt,omitempty"`
}

// String writes the result as one line.
func (r Result) String() string {
	s := "ok"
	if !r.OK {
		s = "FAIL"
	}
	if r.Detail != "" {
		s += ": " + r.Detail
	}
	return r.Check + ": " + s
}

// Observation is the results of a Checker's checks on a network, in the
// checker's order.
type Observation []Result

// Problems lists the failed checks.
func (o Observation) Problems() []Result {
	var out []Result
	for _, r := range o {
		if !r.OK {
			out = append(out, r)
		}
	}
	return out
}

// Symptoms lists what differs from base, an observation of the same
// checks on the healthy network: a check that passed there and fails
// now, a different answer, or a round trip more than three times as long
// and 5 ms longer.
func (o Observation) Symptoms(base Observation) []string {
	var out []string
	for i, r := range o {
		if i >= len(base) || base[i].Check != r.Check {
			out = append(out, r.String()+" (not in the baseline)")
			continue
		}
		b := base[i]
		switch {
		case b.OK && !r.OK:
			out = append(out, r.String())
		case r.Detail != b.Detail:
			out = append(out, fmt.Sprintf("%s: %s, was %s", r.Check, r.Detail, b.Detail))
		case r.RTT > 3*b.RTT && r.RTT-b.RTT > 5*time.Millisecond:
			out = append(out, fmt.Sprintf("%s: round trip %v, was %v", r.Check, r.RTT, b.RTT))
		}
	}
	return out
}

// Observe runs the checks on a running network.
func (c *Checker) Observe(n *netsim.Network) Observation {
	out := make(Observation, 0, len(c.ospf)+len(c.bgp)+len(c.pings)+len(c.lookups))
	ospf := map[string]netsim.OSPFState{}
	for _, p := range c.ospf {
		st, ok := ospf[p.dev]
		if !ok {
			st, _ = n.OSPF(p.dev)
			ospf[p.dev] = st
		}
		r := Result{Check: fmt.Sprintf("ospf %s %s -> %s", p.dev, p.iface, p.peerName), Detail: "no neighbour"}
		switch {
		case !st.Configured:
			r.Detail = "no OSPF process"
		case !st.Running:
			r.Detail = "OSPF not running"
		}
		for _, nb := range st.Neighbors {
			if nb.Interface == p.iface && nb.NeighborID == p.peer {
				r.OK, r.Detail = nb.State == netsim.OSPFFull, nb.State
				if nb.Reason != "" {
					r.Detail += " (" + nb.Reason + ")"
				}
			}
		}
		out = append(out, r)
	}
	bgp := map[string]netsim.BGPState{}
	for _, p := range c.bgp {
		st, ok := bgp[p.dev]
		if !ok {
			st, _ = n.BGP(p.dev)
			bgp[p.dev] = st
		}
		r := Result{Check: fmt.Sprintf("bgp %s %s (%s)", p.dev, p.addr, p.desc), Detail: "not configured"}
		if !st.Running && st.Configured {
			r.Detail = "BGP not running"
		}
		for _, nb := range st.Neighbors {
			if nb.Address == p.addr {
				r.OK, r.Detail = nb.State == netsim.BGPEstablished, nb.State
				if !r.OK && nb.LastError != "" {
					r.Detail += " (" + nb.LastError + ")"
				}
			}
		}
		out = append(out, r)
	}
	for _, p := range c.pings {
		out = append(out, ping(n, p))
	}
	resolvers := map[string][]string{}
	for _, p := range c.lookups {
		rs, ok := resolvers[p.host]
		if !ok {
			d, _ := n.Device(p.host)
			rs = d.DNSServers
			resolvers[p.host] = rs
		}
		out = append(out, lookup(n, p, rs))
	}
	return out
}

// ping runs one ping probe.
func ping(n *netsim.Network, p pingProbe) Result {
	r := Result{Check: "ping " + p.what}
	if p.size != defaultSize {
		r.Check = fmt.Sprintf("ping %s, %d bytes", p.what, p.size)
	}
	count := pingCount
	if p.size != defaultSize {
		count = 1
	}
	o, err := n.Ping(netsim.ProbeRequest{From: p.from, Destination: p.to, Count: count, Size: p.size, DontFragment: p.size != defaultSize})
	switch {
	case err != nil:
		r.Detail = err.Error()
		return r
	case o.Error != "":
		r.Detail = o.Error
		return r
	}
	got := 0
	kinds := map[string]int{}
	for _, rep := range o.Replies {
		if rep.Kind == netsim.ResultReply {
			got++
			r.RTT = max(r.RTT, rep.RTT)
		} else {
			kinds[rep.Kind]++
		}
	}
	r.OK = got == len(o.Replies) && got > 0
	if !r.OK {
		var ks []string
		for k, c := range kinds {
			ks = append(ks, fmt.Sprintf("%d %s", c, k))
		}
		slices.Sort(ks)
		r.Detail = fmt.Sprintf("%d of %d answered", got, len(o.Replies))
		if len(ks) > 0 {
			r.Detail += ", " + strings.Join(ks, ", ")
		}
	}
	return r
}

// lookup runs one DNS probe from the host's first resolver.
func lookup(n *netsim.Network, p dnsProbe, resolvers []string) Result {
	r := Result{Check: fmt.Sprintf("dns %s %s", p.host, p.name)}
	if len(resolvers) == 0 {
		r.Detail = "no resolver"
		return r
	}
	server, err := netip.ParseAddr(resolvers[0])
	if err != nil {
		r.Detail = fmt.Sprintf("resolver %q: %v", resolvers[0], err)
		return r
	}
	o, err := n.DNSQuery(netsim.DNSQuery{From: p.host, Server: server, Name: p.name, Type: "A"})
	switch {
	case err != nil:
		r.Detail = err.Error()
		return r
	case o.Kind != netsim.DNSAnswered:
		r.Detail = fmt.Sprintf("%s from %s", o.Kind, server)
		return r
	case o.Message.Rcode != netsim.RcodeNoError:
		r.Detail = fmt.Sprintf("%s from %s", o.Message.Rcode, server)
		return r
	}
	var got []string
	for _, a := range o.Message.Answer {
		if a.Type == "A" {
			got = append(got, a.Data)
		}
	}
	r.OK = slices.Contains(got, p.want)
	if !r.OK {
		r.Detail = fmt.Sprintf("%s answered %s, want %s", server, strings.Join(got, ", "), p.want)
	}
	return r
}
