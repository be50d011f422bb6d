package controller

import (
	"net/netip"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/netmcp/netmcp/remedy"
	"github.com/netmcp/netmcp/yang"
)

// YANG paths the controller reads (docs/controller.md).
const (
	pathInterfaces = "/openconfig-interfaces:interfaces"
	PathACL        = remedy.PathACL
	pathRouting    = "/ietf-routing:routing"
	pathNetInst    = "/openconfig-network-instance:network-instances"
)

// deviceView is what the controller knows of one device after reading it.
type deviceView struct {
	Name   string
	Ifaces []*ifaceView
	// routes is the default VRF's IPv4 table (Routes). A router's is read
	// only when a check first needs it: a table holds a route per subnet
	// of the network, so reading every router's grows with the square of
	// the network, while the checks follow a few paths.
	routes []route
	// readRoutes, when set, reads routes on the first use (once).
	readRoutes func() []route
	routesOnce sync.Once
	// ACLs are the device's ACL sets by name; Bindings where they apply.
	ACLs     map[string]*aclSet
	Bindings []aclBinding
	// BGP and OSPF are nil when the device reports no such process.
	BGP  *bgpView
	OSPF *ospfView
	// Calls are the numbers of the calls that read each path.
	Calls map[string]int
}

// ifaceView is one interface: state, addresses, MTU, counters, ARP.
type ifaceView struct {
	Name        string
	AdminUp     bool
	OperUp      bool
	OperStatus  string
	MTU         int // operational
	ConfigMTU   int
	Loopback    bool
	VRF         string // "" for the default VRF
	Addrs       []netip.Prefix
	InErrors    int64
	OutErrors   int64
	InDiscards  int64
	OutDiscards int64
	ARP         []arpEntry
}

// arpEntry is one IPv4 neighbour of an interface.
type arpEntry struct {
	IP  netip.Addr
	MAC string
}

// route is one IPv4 route.
type route struct {
	Prefix    netip.Prefix
	Protocol  string
	NextHop   netip.Addr
	Interface string
	Active    bool
	Discard   bool
}

// Iface returns the interface called name (nil when none).
func (d *deviceView) Iface(name string) *ifaceView {
	for _, it := range d.Ifaces {
		if it.Name == name {
			return it
		}
	}
	return nil
}

// Owns tells whether one of the device's default-VRF interfaces holds a.
func (d *deviceView) Owns(a netip.Addr) *ifaceView {
	for _, it := range d.Ifaces {
		if it.VRF != "" {
			continue
		}
		for _, p := range it.Addrs {
			if p.Addr() == a {
				return it
			}
		}
	}
	return nil
}

// Loopback returns the device's first IPv4 /32 loopback address of the
// default VRF (its usual management and router-id address).
func (d *deviceView) Loopback() (netip.Addr, bool) {
	for _, it := range d.Ifaces {
		if !it.Loopback || it.VRF != "" {
			continue
		}
		for _, p := range it.Addrs {
			if p.Addr().Is4() && p.Bits() == 32 {
				return p.Addr(), true
			}
		}
	}
	return netip.Addr{}, false
}

// Routes returns the device's IPv4 table, read first if it was left for
// later. The network's route lookups are made by one goroutine at a time
// (the rules run in turn), so the read is not raced.
func (d *deviceView) Routes() []route {
	if d.readRoutes != nil {
		d.routesOnce.Do(func() { d.routes = d.readRoutes() })
	}
	return d.routes
}

// Lookup returns the active route a packet to a takes (longest match).
func (d *deviceView) Lookup(a netip.Addr) (route, bool) {
	best, found := route{}, false
	for _, r := range d.Routes() {
		if !r.Active || !r.Prefix.Contains(a) {
			continue
		}
		if !found || r.Prefix.Bits() > best.Prefix.Bits() {
			best, found = r, true
		}
	}
	return best, found
}

// parseInterfaces reads the data of a get of pathInterfaces.
func parseInterfaces(data any) []*ifaceView {
	var out []*ifaceView
	for _, n := range yang.List(yang.Member(data, "interface")) {
		m := yang.Object(n)
		if m == nil {
			continue
		}
		it := &ifaceView{Name: yang.Text(m["name"])}
		st := yang.Object(m["state"])
		it.AdminUp = yang.Text(yang.Member(st, "admin-status")) == "UP"
		it.OperStatus = yang.Text(yang.Member(st, "oper-status"))
		it.OperUp = it.OperStatus == "UP"
		mtu, _ := yang.Int(yang.Member(st, "mtu"))
		configMTU, _ := yang.Int(yang.Member(m, "config", "mtu"))
		it.MTU, it.ConfigMTU = int(mtu), int(configMTU)
		if it.MTU == 0 {
			it.MTU = it.ConfigMTU
		}
		it.Loopback = strings.HasSuffix(yang.Text(yang.Leaf(m, "type")), "softwareLoopback")
		c := yang.Object(yang.Member(st, "counters"))
		it.InErrors, _ = yang.Int(c["in-errors"])
		it.OutErrors, _ = yang.Int(c["out-errors"])
		it.InDiscards, _ = yang.Int(c["in-discards"])
		it.OutDiscards, _ = yang.Int(c["out-discards"])
		for _, s := range yang.List(yang.Member(m, "subinterfaces", "subinterface")) {
			for _, fam := range []string{"ipv4", "ipv6"} {
				for _, a := range yang.List(yang.Member(s, fam, "addresses", "address")) {
					ip := yang.Text(yang.Member(a, "config", "ip"))
					if ip == "" {
						ip = yang.Text(yang.Member(a, "ip"))
					}
					bits, _ := yang.Int(yang.Member(a, "config", "prefix-length"))
					if bits == 0 {
						bits, _ = yang.Int(yang.Member(a, "state", "prefix-length"))
					}
					if p, err := netip.ParseAddr(ip); err == nil && bits > 0 {
						it.Addrs = append(it.Addrs, netip.PrefixFrom(p, int(bits)))
					}
				}
			}
			for _, nb := range yang.List(yang.Member(s, "ipv4", "neighbors", "neighbor")) {
				if a, err := netip.ParseAddr(yang.Text(yang.Leaf(yang.Object(nb), "ip"))); err == nil {
					it.ARP = append(it.ARP, arpEntry{IP: a, MAC: yang.Text(yang.Member(nb, "state", "link-layer-address"))})
				}
			}
		}
		out = append(out, it)
	}
	return out
}

// parseVRFs marks the interfaces that belong to a non-default VRF.
func parseVRFs(data any, ifs []*ifaceView) {
	for _, ni := range yang.List(yang.Member(data, "network-instance")) {
		name := yang.Text(yang.Object(ni)["name"])
		if name == "" || name == "default" || strings.EqualFold(name, "DEFAULT") {
			continue
		}
		for _, i := range yang.List(yang.Member(ni, "interfaces", "interface")) {
			id := yang.Text(yang.Leaf(yang.Object(i), "interface"))
			if id == "" {
				id = yang.Text(yang.Object(i)["id"])
			}
			for _, it := range ifs {
				if it.Name == id {
					it.VRF = name
				}
			}
		}
	}
}

// parseRoutes reads the default VRF's IPv4 RIB from a get of pathRouting.
func parseRoutes(data any) []route {
	var out []route
	for _, rib := range yang.List(yang.Member(data, "ribs", "rib")) {
		if yang.Text(yang.Object(rib)["name"]) != "ipv4-master" {
			continue
		}
		for _, r := range yang.List(yang.Member(rib, "routes", "route")) {
			m := yang.Object(r)
			p, err := netip.ParsePrefix(yang.Text(m["destination-prefix"]))
			if err != nil {
				continue
			}
			rt := route{Prefix: p, Protocol: yang.Identity(m["source-protocol"]), Active: m["active"] != nil}
			nh := yang.Object(m["next-hop"])
			if hops := yang.List(yang.Member(nh, "next-hop-list", "next-hop")); len(hops) > 0 {
				nh = yang.Object(hops[0]) // a multipath route: its first next hop
			}
			rt.Interface = yang.Text(nh["outgoing-interface"])
			rt.Discard = yang.Text(nh["special-next-hop"]) == "blackhole"
			if a, err := netip.ParseAddr(yang.Text(nh["next-hop-address"])); err == nil {
				rt.NextHop = a
			}
			out = append(out, rt)
		}
	}
	return out
}

// Host is an end host the controller knows by name (hosts serve no MCP;
// the controller reaches them from routers).
type Host struct {
	Name  string       `json:"name" yaml:"name"`
	Addrs []netip.Addr `json:"addresses" yaml:"addresses"`
}

// end is one end of a link: a device's interface and its address there.
type end struct {
	Device, Iface string
	Addr          netip.Addr
}

// link is a point-to-point or LAN segment between two devices' interfaces,
// inferred from addresses on the same subnet.
type link struct {
	A, B   end
	Prefix netip.Prefix
}

// String is "r1:Gi0/0/0 — r2:Gi0/0/0/0".
func (l link) String() string {
	return l.A.Device + ":" + l.A.Iface + " — " + l.B.Device + ":" + l.B.Iface
}

// hostAttach is where a known host attaches: a router interface of its subnet.
type hostAttach struct {
	Host   Host
	Addr   netip.Addr
	Router end
}

// network is the controller's view of the whole fleet.
type network struct {
	Devices map[string]*deviceView
	Order   []string
	Links   []link
	Hosts   []hostAttach
	// Unread are the devices that could not be read, with why.
	Unread map[string]string
	// HostViews are the hosts of the fleet as they show themselves (nil
	// when the fleet serves no host).
	HostViews map[string]*hostView

	// idx finds a link by one of its ends and a device by its address
	// without a scan of the network (a path's walk asks at every hop);
	// built on first use, once the devices and links are all there.
	idx     netIndex
	idxOnce sync.Once
}

// netIndex is a network's lookup tables (network.index).
type netIndex struct {
	// linkAt is the first link with an end at a device's interface, and
	// whether that end is its B end.
	linkAt map[[2]string]linkRef
	// between are the links between two devices (the names in order),
	// in the order of Links.
	between map[[2]string][]int
	// owner is the first device and interface of the default VRF (in
	// Order, then interface order) holding an address.
	owner map[netip.Addr]ownerRef
}

type linkRef struct {
	i   int
	isB bool
}

type ownerRef struct {
	d  *deviceView
	it *ifaceView
}

// index returns the network's lookup tables, built the first time.
func (n *network) index() *netIndex {
	n.idxOnce.Do(func() {
		x := &n.idx
		x.linkAt = map[[2]string]linkRef{}
		x.between = map[[2]string][]int{}
		x.owner = map[netip.Addr]ownerRef{}
		for i, l := range n.Links {
			for _, e := range []struct {
				end
				isB bool
			}{{l.A, false}, {l.B, true}} {
				k := [2]string{e.Device, e.Iface}
				if _, ok := x.linkAt[k]; !ok {
					x.linkAt[k] = linkRef{i, e.isB}
				}
			}
			k := pairKey(l.A.Device, l.B.Device)
			x.between[k] = append(x.between[k], i)
		}
		for _, name := range n.Order {
			d := n.Devices[name]
			for _, it := range d.Ifaces {
				if it.VRF != "" {
					continue
				}
				for _, p := range it.Addrs {
					if _, ok := x.owner[p.Addr()]; !ok {
						x.owner[p.Addr()] = ownerRef{d, it}
					}
				}
			}
		}
	})
	return &n.idx
}

// pairKey is the key of two devices' links, whatever their order.
func pairKey(a, b string) [2]string {
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}

// infer finds the links between read devices and where known hosts attach.
func (n *network) infer(hosts []Host) {
	type addrIf struct {
		dev string
		it  *ifaceView
		p   netip.Prefix
	}
	var all []addrIf
	for _, name := range n.Order {
		d := n.Devices[name]
		for _, it := range d.Ifaces {
			if it.Loopback || it.VRF != "" {
				continue
			}
			for _, p := range it.Addrs {
				if p.Addr().Is4() && p.Bits() < 32 {
					all = append(all, addrIf{name, it, p})
				}
			}
		}
	}
	// Addresses are grouped by subnet, so that pairing them costs the
	// size of each subnet, not of the network; the links come in the
	// order of their first address, then their second.
	bySubnet := map[netip.Prefix][]int{}
	for i, a := range all {
		bySubnet[a.p.Masked()] = append(bySubnet[a.p.Masked()], i)
	}
	for i, a := range all {
		for _, j := range bySubnet[a.p.Masked()] {
			if b := all[j]; j > i && a.dev != b.dev {
				n.Links = append(n.Links, link{A: end{a.dev, a.it.Name, a.p.Addr()}, B: end{b.dev, b.it.Name, b.p.Addr()}, Prefix: a.p.Masked()})
			}
		}
	}
	n.attachHosts(hosts)
}

// attachHosts finds where known hosts attach: a router interface of the
// subnet of one of their addresses.
func (n *network) attachHosts(hosts []Host) {
	for _, h := range hosts {
		for _, ha := range h.Addrs {
			if !ha.Is4() {
				continue
			}
			for _, name := range n.Order {
				for _, it := range n.Devices[name].Ifaces {
					for _, p := range it.Addrs {
						if p.Bits() < 32 && p.Contains(ha) && p.Addr() != ha {
							n.Hosts = append(n.Hosts, hostAttach{Host: h, Addr: ha, Router: end{name, it.Name, p.Addr()}})
						}
					}
				}
			}
		}
	}
	sort.SliceStable(n.Hosts, func(i, j int) bool { return n.Hosts[i].Host.Name < n.Hosts[j].Host.Name })
}

// Owner returns the device and interface holding address a.
func (n *network) Owner(a netip.Addr) (*deviceView, *ifaceView) {
	o := n.index().owner[a]
	return o.d, o.it
}

// LinkOf returns the link of a device's interface.
func (n *network) LinkOf(dev, iface string) (link, bool) {
	ref, ok := n.index().linkAt[[2]string{dev, iface}]
	if !ok {
		return link{}, false
	}
	l := n.Links[ref.i]
	if ref.isB {
		return link{A: l.B, B: l.A, Prefix: l.Prefix}, true
	}
	return l, true
}

// LinksBetween returns the links between two devices, oriented a to b.
func (n *network) LinksBetween(a, b string) []link {
	var out []link
	for _, i := range n.index().between[pairKey(a, b)] {
		l := n.Links[i]
		switch {
		case l.A.Device == a && l.B.Device == b:
			out = append(out, l)
		case l.A.Device == b && l.B.Device == a:
			out = append(out, link{A: l.B, B: l.A, Prefix: l.Prefix})
		}
	}
	return out
}

// HostNamed returns the attachment of a known host.
func (n *network) HostNamed(name string) (hostAttach, bool) {
	for _, h := range n.Hosts {
		if strings.EqualFold(h.Host.Name, name) {
			return h, true
		}
	}
	return hostAttach{}, false
}

// HostAt returns the attachment of the known host holding a.
func (n *network) HostAt(a netip.Addr) (hostAttach, bool) {
	for _, h := range n.Hosts {
		if h.Addr == a {
			return h, true
		}
	}
	return hostAttach{}, false
}

// sortedKeys returns a map's keys sorted.
func sortedKeys[V any](m map[string]V) []string {
	k := make([]string, 0, len(m))
	for s := range m {
		k = append(k, s)
	}
	slices.Sort(k)
	return k
}
