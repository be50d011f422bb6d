package gen

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/netmcp/netmcp/lab/topology"
)

// The address plan of a generated network:
//
//   - router k (0-based, in the order of the topology's devices) has
//     Loopback0 10.255.(k+1>>8).(k+1&255)/32, its router id;
//   - router-router link k (0-based, as listed) is the /30
//     10.0.(k>>6).((k&63)<<2)/30, end A the first host address;
//   - the network's LAN j (1-based) is 10.(1+j>>8).(j&255).0/24, gateway
//     .1, hosts from .10; provider i's LAN is 203.0.113.0/24,
//     198.51.100.0/24 (the documentation prefixes), its server at .10.
//
// The DNS zone lab.example names every router (its loopback) and host,
// and the services by alias: www, www2, ... (web servers), ns1, ns2 (DNS
// servers) and cdn1, cdn2 (the providers' servers), aliases first.

// Zone is the DNS zone of a generated network.
const Zone = "lab.example"

// lldpTLV is the custom LLDP TLV by which the device-to-device agent finds
// MCP-capable neighbours ("netmcp", OUI 00:00:5e subtype 1).
var lldpTLV = topology.LLDPTLV{OUI: "00:00:5e", Subtype: 1, Value: "6e:65:74:6d:63:70"}

// providerLANs are the providers' LAN prefixes.
var providerLANs = []string{"203.0.113.0/24", "198.51.100.0/24"}

// dialectNames are the interface names and the platform of a dialect.
type dialectNames struct {
	// port and svi are the formats of a port's and a VLAN interface's names.
	port, loopback, svi       string
	vendor, platform, version string
}

var names = map[string]dialectNames{
	DialectVRP: {port: "GigabitEthernet0/0/%d", loopback: "LoopBack0", svi: "Vlanif%d",
		vendor: "Huawei", platform: "NE40E-X8A", version: "V800R021C10SPC600"},
	DialectXR: {port: "GigabitEthernet0/0/0/%d", loopback: "Loopback0", svi: "BVI%d",
		vendor: "Cisco", platform: "ASR-9901", version: "7.5.3"},
}

// builder turns a plan into a topology.
type builder struct {
	p      *plan
	t      topology.Topology
	devs   []*topology.Device // the routers, by node index
	ports  []int              // next free port per router
	hosts  []hostPlan
	lanPfx []netip.Prefix // the LANs' prefixes, by index into plan.lans
	lanNo  int            // the network's LANs numbered so far
}

// hostPlan is one host as built.
type hostPlan struct {
	name string
	role string
	lan  int // index into plan.lans
	addr netip.Prefix
	dev  *topology.Device
}

// loopbackAddr is the loopback address of router k (0-based).
func loopbackAddr(k int) netip.Addr {
	return netip.AddrFrom4([4]byte{10, 255, byte((k + 1) >> 8), byte(k + 1)})
}

// linkAddr is the address of end (1 = A, 2 = B) of router-router link k.
func linkAddr(k, end int) netip.Prefix {
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, byte(k >> 6), byte((k&63)<<2 + end)}), 30)
}

// lanPrefix is the prefix of the network's LAN j (1-based).
func lanPrefix(j int) netip.Prefix {
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(1 + j>>8), byte(j), 0}), 24)
}

// nth returns the address n above the prefix's base address.
func nth(p netip.Prefix, n int) netip.Addr {
	b := p.Masked().Addr().As4()
	x := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]) + uint32(n)
	return netip.AddrFrom4([4]byte{byte(x >> 24), byte(x >> 16), byte(x >> 8), byte(x)})
}

// build makes the topology of a laid-out plan with its LANs placed.
func (p *plan) build() topology.Topology {
	b := &builder{p: p, t: topology.Topology{Name: p.opts.Name()}, ports: make([]int, len(p.nodes))}
	for k, nd := range p.nodes {
		b.devs = append(b.devs, b.router(k, nd))
	}
	for k, e := range p.edges {
		b.routerLink(k, e)
	}
	for i := range p.lans {
		b.lan(i)
	}
	b.routing()
	b.dns()
	for _, d := range b.devs {
		b.t.Devices = append(b.t.Devices, *d)
	}
	for _, h := range b.hosts {
		b.t.Devices = append(b.t.Devices, *h.dev)
	}
	return b.t
}

// router makes router k's device with its loopback.
func (b *builder) router(k int, nd node) *topology.Device {
	dn := names[nd.dialect]
	lo := loopbackAddr(k)
	d := &topology.Device{
		Name: nd.name, Kind: topology.KindRouter, Dialect: nd.dialect,
		Vendor: dn.vendor, Platform: dn.platform, SoftwareVersion: dn.version,
		RouterID: lo.String(), CPUBase: float64(5 + b.p.rng.IntN(20)), MemoryTotalMB: 8192,
		LLDP: &topology.LLDP{CustomTLVs: []topology.LLDPTLV{lldpTLV}},
		Interfaces: []topology.Interface{{Name: dn.loopback, Type: "softwareLoopback", Description: "router-id",
			Addresses: []string{netip.PrefixFrom(lo, 32).String()}}},
	}
	if !nd.provider {
		d.OSPF = &topology.OSPF{}
		d.Interfaces[0].OSPF = &topology.InterfaceOSPF{Area: nd.area, Passive: true}
	}
	return d
}

// port adds router r's next physical interface.
func (b *builder) port(r int, it topology.Interface) string {
	it.Name = fmt.Sprintf(names[b.p.nodes[r].dialect].port, b.ports[r])
	b.ports[r]++
	b.devs[r].Interfaces = append(b.devs[r].Interfaces, it)
	return it.Name
}

// routerLink makes router-router link k.
func (b *builder) routerLink(k int, e edge) {
	ends := [2]int{e.a, e.b}
	var ifn [2]string
	for i, r := range ends {
		peer := b.p.nodes[ends[1-i]].name
		it := topology.Interface{Description: "to " + peer, Addresses: []string{linkAddr(k, i+1).String()}}
		if e.area != "" {
			it.OSPF = &topology.InterfaceOSPF{Area: e.area, NetworkType: topology.OSPFPointToPoint}
		} else {
			it.Description = "eBGP to " + peer
		}
		ifn[i] = b.port(r, it)
	}
	b.t.Links = append(b.t.Links, topology.Link{A: b.p.nodes[e.a].name + ":" + ifn[0],
		B: b.p.nodes[e.b].name + ":" + ifn[1], Delay: e.delay})
}

// lan makes LAN i: its hosts, the router's port (or VLAN interface and
// access ports) and the links.
func (b *builder) lan(i int) {
	l := b.p.lans[i]
	r, nd := l.router, b.p.nodes[l.router]
	var pfx netip.Prefix
	label := ""
	if nd.provider {
		pfx = netip.MustParsePrefix(providerLANs[b.p.providerIndex(r)])
		label = "LAN of " + nd.name
	} else {
		b.lanNo++
		pfx = lanPrefix(b.lanNo)
		label = fmt.Sprintf("lan%d", b.lanNo)
	}
	b.lanPfx = append(b.lanPfx, pfx)
	gw := netip.PrefixFrom(nth(pfx, 1), pfx.Bits()).String()
	first := len(b.hosts)
	for k, role := range l.roles {
		h := hostPlan{role: role, lan: i, addr: netip.PrefixFrom(nth(pfx, 10+k), pfx.Bits())}
		if role == roleExt {
			h.name = fmt.Sprintf("ext%d", b.p.providerIndex(r)+1)
		} else {
			h.name = fmt.Sprintf("h%d", b.countHosts()+1)
		}
		h.dev = &topology.Device{Name: h.name, Kind: topology.KindHost, Gateway: nth(pfx, 1).String(),
			Interfaces: []topology.Interface{{Name: "eth0", MAC: hostMAC(len(b.hosts) + 1), Addresses: []string{h.addr.String()}}}}
		b.hosts = append(b.hosts, h)
	}
	hosts := b.hosts[first:]
	var ospf *topology.InterfaceOSPF
	if !nd.provider {
		ospf = &topology.InterfaceOSPF{Area: b.p.lanAreaOf(r), Passive: true}
	}
	link := func(port string, h hostPlan) {
		b.t.Links = append(b.t.Links, topology.Link{A: nd.name + ":" + port, B: h.name + ":eth0", Delay: 0.2})
	}
	if !l.vlan {
		port := b.port(r, topology.Interface{Description: label + ": " + hosts[0].name, Addresses: []string{gw}, OSPF: ospf})
		link(port, hosts[0])
		return
	}
	dev := b.devs[r]
	vid := 100 + 10*len(dev.VLANs)
	dev.VLANs = append(dev.VLANs, topology.VLAN{ID: vid, Name: label})
	for _, h := range hosts {
		link(b.port(r, topology.Interface{Description: "access port to " + h.name, AccessVLAN: vid}), h)
	}
	dev.Interfaces = append(dev.Interfaces, topology.Interface{Name: fmt.Sprintf(names[nd.dialect].svi, vid),
		Type: "l3ipvlan", Description: label, RoutedVLAN: vid, Addresses: []string{gw}, OSPF: ospf})
}

// countHosts counts the network's own hosts built so far.
func (b *builder) countHosts() int {
	n := 0
	for _, h := range b.hosts {
		if h.role != roleExt {
			n++
		}
	}
	return n
}

// hostMAC is the MAC address of the k-th host (1-based), locally administered.
func hostMAC(k int) string { return fmt.Sprintf("02:00:00:00:%02x:%02x", k>>8, k&255) }

// providerIndex is the index of provider router r among the providers.
func (p *plan) providerIndex(r int) int {
	n := 0
	for i := range r {
		if p.nodes[i].provider {
			n++
		}
	}
	return n
}

// routing configures BGP: each system's routers have iBGP sessions
// (between loopbacks) with every border router of their system, a
// border router's with next-hop-self; eBGP runs over the links between
// systems; each router advertises its LANs.
func (b *builder) routing() {
	p := b.p
	border := map[int]bool{}
	for _, e := range p.edges {
		if e.area == "" {
			border[e.a], border[e.b] = true, true
		}
	}
	for r, nd := range p.nodes {
		bgp := &topology.BGP{ASN: p.asns[nd.as]}
		for k, e := range p.edges {
			if e.area != "" {
				continue
			}
			switch r {
			case e.a:
				bgp.Neighbors = append(bgp.Neighbors, b.ebgpPeer(e.b, linkAddr(k, 2)))
			case e.b:
				bgp.Neighbors = append(bgp.Neighbors, b.ebgpPeer(e.a, linkAddr(k, 1)))
			}
		}
		if !nd.provider {
			for o, on := range p.nodes {
				if o == r || on.provider || on.as != nd.as || (!border[r] && !border[o]) {
					continue
				}
				bgp.Neighbors = append(bgp.Neighbors, topology.BGPNeighbor{Address: loopbackAddr(o).String(),
					RemoteAS: bgp.ASN, Description: on.name, UpdateSource: names[nd.dialect].loopback, NextHopSelf: border[r]})
			}
		}
		for i, l := range p.lans {
			if l.router == r {
				bgp.Networks = append(bgp.Networks, b.lanPfx[i].String())
			}
		}
		slices.Sort(bgp.Networks)
		b.devs[r].BGP = bgp
	}
}

// ebgpPeer is the eBGP neighbour entry for router peer at addr.
func (b *builder) ebgpPeer(peer int, addr netip.Prefix) topology.BGPNeighbor {
	nd := b.p.nodes[peer]
	return topology.BGPNeighbor{Address: addr.Addr().String(), RemoteAS: b.p.asns[nd.as], Description: nd.name}
}

// dns places the zone on the DNS servers and gives every host of the
// network a resolver on another LAN than its own where one exists, and
// every router the first DNS server.
func (b *builder) dns() {
	var dnsHosts []*hostPlan
	var recs []topology.DNSRecord
	count := map[string]int{}
	alias := map[string]string{roleWeb: "www", roleDNS: "ns", roleExt: "cdn"}
	for i := range b.hosts {
		h := &b.hosts[i]
		if h.role == roleClient {
			continue
		}
		count[h.role]++
		name := alias[h.role]
		if h.role != roleWeb || count[h.role] > 1 {
			name += fmt.Sprint(count[h.role])
		}
		recs = append(recs, topology.DNSRecord{Name: name, Type: "A", Value: h.addr.Addr().String()})
		if h.role == roleDNS {
			dnsHosts = append(dnsHosts, h)
		}
	}
	slices.SortStableFunc(recs, func(a, c topology.DNSRecord) int { return aliasOrder(a.Name) - aliasOrder(c.Name) })
	for k, d := range b.devs {
		recs = append(recs, topology.DNSRecord{Name: d.Name, Type: "A", Value: loopbackAddr(k).String()})
	}
	for _, h := range b.hosts {
		recs = append(recs, topology.DNSRecord{Name: h.name, Type: "A", Value: h.addr.Addr().String()})
	}
	zone := topology.DNSZone{Name: Zone, Records: recs}
	for _, h := range dnsHosts {
		h.dev.DNS = &topology.DNSService{Zones: []topology.DNSZone{zone}}
	}
	for i := range b.hosts {
		h := &b.hosts[i]
		if h.role == roleExt {
			continue
		}
		var far []*hostPlan
		for _, s := range dnsHosts {
			if s.lan != h.lan {
				far = append(far, s)
			}
		}
		if len(far) == 0 {
			far = dnsHosts
		}
		h.dev.DNSServers = []string{pick(b.p.rng, far).addr.Addr().String()}
	}
	for k, d := range b.devs {
		if !b.p.nodes[k].provider {
			d.DNSServers = []string{dnsHosts[0].addr.Addr().String()}
		}
	}
}

// aliasOrder sorts the services' aliases: web, DNS, external.
func aliasOrder(name string) int {
	switch name[:2] {
	case "ww":
		return 0
	case "ns":
		return 1
	}
	return 2
}
