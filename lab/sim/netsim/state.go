package netsim

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"net/netip"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// defaultMTU, defaultDelay and defaultIGPCost are the topology defaults.
const (
	defaultMTU     = 1500
	defaultDelayMS = 0.5
	defaultIGPCost = 10
)

// state is the network compiled from a topology and faults; it is rebuilt
// on every change and read under the Network's lock. Routing tables are
// computed per device on first use (see rib).
type state struct {
	devs  map[string]*device
	order []*device
	links []*link
	// routers are the devices of kind router, in topology order; graphs
	// are the IGP's graphs of IPv4 and IPv6.
	routers []*device
	graphs  [2]*igpGraph
	// daemonDown names the routers whose routing daemon a
	// frr_service_down fault stops.
	daemonDown map[string]bool
	// The control plane (controlplane.go): the OSPF and BGP processes by
	// device and in topology order, and the OSPF graph.
	ospf     map[*device]*ospfProc
	ospfList []*ospfProc
	ospfG    *ospfGraph
	bgp      map[*device]*bgpProc
	bgpList  []*bgpProc
	// tables bounds the routing tables kept computed (see tableCache).
	tables tableCache
}

// device is a compiled device.
type device struct {
	cfg    *topology.Device
	name   string
	kind   string
	ifs    map[string]*iface
	ifList []*iface
	acls   map[string]*acl
	vlans  map[int]bool
	// tab holds the device's routing tables, computed on first use under
	// tabMu (see state.tablesOf); nil until then, or after the state's
	// tableCache dropped them to bound its memory. tabUsed is set on
	// every use, for the cache's second chance.
	tab     atomic.Pointer[tables]
	tabMu   sync.Mutex
	tabUsed atomic.Bool
	// idx is the device's position in the topology; down is set by a
	// host_crash fault (see hosts.go).
	idx  int
	down bool
}

// ribKey names one routing table.
type ribKey struct {
	vrf    string
	family int
}

// iface is a compiled interface.
type iface struct {
	dev      *device
	cfg      *topology.Interface
	name     string
	addrs    []netip.Prefix
	vrf      string
	mtu      int
	mac      string
	link     *link
	adminUp  bool
	operUp   bool
	reason   string
	loopback bool
	svi      bool
	switched bool
	// reach lists the L3 endpoints reachable through the L2 network from
	// this interface, with the links crossed (computed for up L3 interfaces).
	reach []l2Reach
	// aclDrops are the prefixes an "acl-drop" fault drops entering here.
	aclDrops []netip.Prefix
	// noFrag: link_fragmentation_disabled (faults_runtime.go).
	noFrag bool
	// detached: link_detach, the interface has no carrier though its
	// link's other end is up (faults_runtime.go).
	detached bool
}

// l2Reach is an L3 endpoint reachable from another through links and switches.
type l2Reach struct {
	to   *iface
	hops []linkHop
}

// linkHop is one link crossed in a direction: from the interface "from".
type linkHop struct {
	l    *link
	from *iface
	to   *iface
}

// link is a compiled link with its faults.
type link struct {
	a, b    *iface
	id      string
	delayMS float64
	down    bool
	loss    float64
	// downWhy is the reason of down when a named fault set it; fx are the
	// named runtime faults' effects per direction (faults_runtime.go).
	downWhy string
	fx      *linkFx
}

func (l *link) other(i *iface) *iface {
	if l.a == i {
		return l.b
	}
	return l.a
}

// key returns "device:interface".
func (i *iface) key() string { return i.dev.name + ":" + i.name }

// l3 tells whether the interface routes (not a switched port).
func (i *iface) l3() bool { return !i.switched }

// carries tells whether a switched port carries a VLAN, and tagged.
func (i *iface) carries(v int) (ok, tagged bool) {
	if i.cfg.AccessVLAN == v && v != 0 {
		return true, false
	}
	for _, t := range i.cfg.TrunkVLANs {
		if t == v {
			return true, true
		}
	}
	return false, false
}

// addrOf returns the interface's first address of a family (4 or 6).
func (i *iface) addrOf(family int) (netip.Prefix, bool) {
	for _, p := range i.addrs {
		if familyOf(p.Addr()) == family {
			return p, true
		}
	}
	return netip.Prefix{}, false
}

// addrIn returns the interface's address in the same subnet as a, if any.
func (i *iface) addrIn(a netip.Addr) (netip.Prefix, bool) {
	for _, p := range i.addrs {
		if p.Contains(a) {
			return p, true
		}
	}
	return netip.Prefix{}, false
}

// has tells whether a is one of the interface's own addresses.
func (i *iface) has(a netip.Addr) bool {
	for _, p := range i.addrs {
		if p.Addr() == a {
			return true
		}
	}
	return false
}

func familyOf(a netip.Addr) int {
	if a.Is4() || a.Is4In6() {
		return 4
	}
	return 6
}

// initialTTL is the TTL a device puts on packets it originates.
func (d *device) initialTTL() int {
	if d.kind == topology.KindHost {
		return 64
	}
	return 255
}

// derivedMAC makes a stable locally administered MAC from a name.
func derivedMAC(dev, ifn string) string {
	h := fnv.New64a()
	h.Write([]byte(dev + "\x00" + ifn))
	s := h.Sum64()
	return fmt.Sprintf("02:%02x:%02x:%02x:%02x:%02x", byte(s>>32), byte(s>>24), byte(s>>16), byte(s>>8), byte(s))
}

func isLoopback(it *topology.Interface) bool {
	if it.Type == "softwareLoopback" {
		return true
	}
	if it.Type != "" {
		return false
	}
	n := strings.ToLower(it.Name)
	return strings.HasPrefix(n, "loopback") || n == "lo" || strings.HasPrefix(n, "lo") && len(n) > 2 && n[2] >= '0' && n[2] <= '9'
}

// build compiles a validated topology into a state; old is the previous
// state (nil at first), from which the control plane keeps its history,
// now stamps the neighbour states that change, and maxRoutes bounds the
// routes of the tables kept computed.
func build(t *topology.Topology, old *state, now time.Time, maxRoutes int) *state {
	s := &state{devs: map[string]*device{}, tables: tableCache{budget: maxRoutes}}
	for i := range t.Devices {
		cfg := &t.Devices[i]
		d := &device{cfg: cfg, name: cfg.Name, kind: cfg.Kind, ifs: map[string]*iface{},
			acls: map[string]*acl{}, vlans: map[int]bool{}, idx: i}
		if d.kind == "" {
			d.kind = topology.KindRouter
		}
		for _, v := range cfg.VLANs {
			d.vlans[v.ID] = true
		}
		for _, a := range cfg.ACLs {
			d.acls[a.Name] = compileACL(a)
		}
		for j := range cfg.Interfaces {
			ic := &cfg.Interfaces[j]
			it := &iface{dev: d, cfg: ic, name: ic.Name, vrf: ic.VRF, mtu: ic.MTU, mac: ic.MAC,
				adminUp: !ic.Shutdown, loopback: isLoopback(ic), svi: ic.RoutedVLAN != 0 || ic.Type == "l3ipvlan",
				switched: ic.AccessVLAN != 0 || len(ic.TrunkVLANs) > 0}
			if it.mtu == 0 {
				it.mtu = defaultMTU
			}
			if it.mac == "" {
				it.mac = derivedMAC(d.name, ic.Name)
			}
			for _, a := range ic.Addresses {
				p, _ := netip.ParsePrefix(a)
				it.addrs = append(it.addrs, p)
			}
			d.ifs[ic.Name] = it
			d.ifList = append(d.ifList, it)
		}
		s.devs[d.name] = d
		s.order = append(s.order, d)
	}
	lookup := func(end string) *iface {
		dn, in, _ := topology.SplitEnd(end)
		return s.devs[dn].ifs[in]
	}
	byEnd := map[string]*link{}
	for _, lc := range t.Links {
		l := &link{a: lookup(lc.A), b: lookup(lc.B), id: lc.A + "|" + lc.B, delayMS: lc.Delay}
		if l.delayMS == 0 {
			l.delayMS = defaultDelayMS
		}
		l.a.link, l.b.link = l, l
		byEnd[lc.A], byEnd[lc.B] = l, l
		s.links = append(s.links, l)
	}
	s.daemonDown = map[string]bool{}
	for _, f := range t.Faults {
		if f.Name == "frr_service_down" {
			s.daemonDown[f.Target] = true
		}
		switch f.Kind {
		case topology.FaultLinkDown:
			byEnd[f.Link].down = true
		case topology.FaultLoss:
			l := byEnd[f.Link]
			// Two loss faults on one link compound.
			l.loss = 100 - (100-l.loss)*(100-f.Percent)/100
		case topology.FaultDelay:
			byEnd[f.Link].delayMS += f.DelayMS
		case topology.FaultMTU:
			lookup(f.Interface).mtu = f.MTU
		case topology.FaultACLDrop:
			p, _, _ := parseAddrOrPrefix(f.Destination)
			it := lookup(f.Interface)
			it.aclDrops = append(it.aclDrops, p) // the zero Prefix means everything
		default:
			applyRuntimeFault(f, byEnd, lookup, now)
		}
	}
	s.applyHostFaults(t)
	s.operState()
	s.l2()
	s.routing()
	s.controlPlane(old, now)
	return s
}

// operState derives the operational state of every interface.
func (s *state) operState() {
	for _, d := range s.order {
		for _, it := range d.ifList {
			switch {
			case !it.adminUp:
				it.reason = "admin-down"
			case it.loopback:
				it.operUp = true
			case it.svi:
				continue // after the physical ports
			case it.link == nil && hasStaticNeighbor(d, it):
				it.operUp = true // a LAN of unmodelled hosts
			case it.link == nil:
				it.reason = "no-link"
			case downReason(it) != "":
				it.reason = downReason(it)
			case it.detached:
				it.reason = "no carrier"
			case it.link.down:
				it.reason = cmp.Or(it.link.downWhy, "link-down fault")
			case !it.link.other(it).adminUp:
				it.reason = "peer admin-down"
			default:
				it.operUp = true
			}
		}
	}
	for _, d := range s.order {
		for _, it := range d.ifList {
			if !it.svi || !it.adminUp {
				continue
			}
			v := it.cfg.RoutedVLAN
			up := false
			if d.vlans[v] {
				for _, p := range d.ifList {
					if ok, _ := p.carries(v); ok && p.operUp {
						up = true
						break
					}
				}
			}
			if hasStaticNeighbor(d, it) {
				up = true
			}
			it.operUp = up
			if !up {
				it.reason = "lower-layer-down"
			}
		}
	}
}

// l2 computes, for every up L3 interface, the L3 endpoints it reaches
// through links and switches (a breadth-first walk over VLAN bridges).
func (s *state) l2() {
	type bridge struct {
		d    *device
		vlan int
	}
	type node struct {
		out *iface // frame leaving out onto its link...
		tag int    // ...with this VLAN tag (0 untagged); or:
		br  bridge // frame inside a device's VLAN bridge (when out is nil)
	}
	for _, d := range s.order {
		for _, start := range d.ifList {
			if !start.l3() || !start.operUp || start.loopback {
				continue
			}
			type item struct {
				n    node
				hops []linkHop
			}
			var queue []item
			seen := map[node]bool{}
			push := func(n node, hops []linkHop) {
				if !seen[n] {
					seen[n] = true
					queue = append(queue, item{n, hops})
				}
			}
			if start.svi {
				push(node{br: bridge{d, start.cfg.RoutedVLAN}}, nil)
			} else {
				push(node{out: start}, nil)
			}
			found := map[*iface]bool{start: true}
			for len(queue) > 0 {
				it := queue[0]
				queue = queue[1:]
				if it.n.out == nil {
					br := it.n.br
					for _, p := range br.d.ifList {
						if !p.operUp {
							continue
						}
						if p.svi && p.cfg.RoutedVLAN == br.vlan && !found[p] {
							found[p] = true
							start.reach = append(start.reach, l2Reach{to: p, hops: it.hops})
						}
						if ok, tagged := p.carries(br.vlan); ok && br.d.vlans[br.vlan] {
							tag := 0
							if tagged {
								tag = br.vlan
							}
							push(node{out: p, tag: tag}, it.hops)
						}
					}
					continue
				}
				out := it.n.out
				l := out.link
				if l == nil || l.down || !out.operUp {
					continue
				}
				peer := l.other(out)
				if !peer.operUp {
					continue
				}
				hops := append(append([]linkHop(nil), it.hops...), linkHop{l: l, from: out, to: peer})
				switch {
				case !peer.switched:
					if it.n.tag == 0 && !peer.svi && !found[peer] {
						found[peer] = true
						start.reach = append(start.reach, l2Reach{to: peer, hops: hops})
					}
				default:
					if it.n.tag == 0 && peer.cfg.AccessVLAN != 0 {
						push(node{br: bridge{peer.dev, peer.cfg.AccessVLAN}}, hops)
					} else if it.n.tag != 0 {
						if ok, tagged := peer.carries(it.n.tag); ok && tagged {
							push(node{br: bridge{peer.dev, it.n.tag}}, hops)
						}
					}
				}
			}
			sort.SliceStable(start.reach, func(a, b int) bool { return len(start.reach[a].hops) < len(start.reach[b].hops) })
		}
	}
}

// hasStaticNeighbor tells whether a static neighbor lives on the interface.
func hasStaticNeighbor(d *device, it *iface) bool {
	for _, nb := range d.cfg.Neighbors {
		if nb.Interface == it.name {
			return true
		}
	}
	return false
}
