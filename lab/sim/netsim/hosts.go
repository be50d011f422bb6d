package netsim

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"

	"github.com/netmcp/netmcp/lab/topology"
)

// This file models what makes hosts first-class: a crashed host, and the
// neighbour resolution (ARP, ND) that host faults act through.
//
// Resolution rules (see resolveNeighbor):
//   - a device resolves an address only on an interface whose subnet holds
//     it (routes decide that: a gateway outside every connected subnet
//     leaves the default route unresolved, "Network is unreachable");
//   - every up endpoint of the segment holding the address answers; when
//     several do (an IP conflict), the one that announced itself last wins
//     the sender's cache: hosts announce after routers and switches (they
//     come up, or were reconfigured, later and send gratuitous ARP), and
//     among equals the device listed later in the topology;
//   - a frame goes to the MAC learned; when several endpoints of the
//     segment share that MAC (a MAC conflict), the bridge delivers it to
//     the last announcer only (same order), and a frame to the sender's own
//     MAC never leaves it: the others lose the traffic;
//   - an ACL that has a rule for arp filters ARP requests and replies
//     (IP-only ACLs do not see ARP, as on routers).

// FaultHostCrash is the fault name of a crashed host: a named fault with
// this name and the host as target makes the host answer nothing and
// takes its links down.
const FaultHostCrash = "host_crash"

// reasonDeviceDown is the operational-down reason of a crashed device's
// interfaces; reasonPeerDown that of the interfaces linked to them.
const (
	reasonDeviceDown = "device-down"
	reasonPeerDown   = "peer device-down"
)

// applyHostFaults marks the devices a host_crash fault names as down and
// takes their links down (no carrier on the other end).
func (s *state) applyHostFaults(t *topology.Topology) {
	for _, f := range t.Faults {
		if f.Name != FaultHostCrash || f.Kind != "" {
			continue
		}
		d := s.devs[f.Target]
		if d == nil {
			continue
		}
		d.down = true
		for _, it := range d.ifList {
			if it.link != nil {
				it.link.down = true
			}
		}
	}
}

// downReason returns why an interface is down because of a crashed
// device at either end ("" if neither is).
func downReason(it *iface) string {
	switch {
	case it.dev.down:
		return reasonDeviceDown
	case it.link != nil && it.link.other(it).dev.down:
		return reasonPeerDown
	}
	return ""
}

// validateNamedFaults checks the named faults the model itself acts on
// (host_crash: its target must be a host of t); the other names are the
// configuration changes of the lab's fault layer and pass through.
func validateNamedFaults(t *topology.Topology) error {
	for i, f := range t.Faults {
		if f.Kind != "" || f.Name == "" {
			continue
		}
		if err := f.CheckSpec(); err != nil {
			return fmt.Errorf("netsim: fault %d: %v", i+1, err)
		}
		if f.Name != FaultHostCrash {
			continue
		}
		var dev *topology.Device
		for j := range t.Devices {
			if t.Devices[j].Name == f.Target {
				dev = &t.Devices[j]
			}
		}
		switch {
		case dev == nil:
			return fmt.Errorf("netsim: fault %d (%s): no device %q", i+1, f.Name, f.Target)
		case dev.Kind != topology.KindHost:
			return fmt.Errorf("netsim: fault %d (%s): %q is a %s, not a host", i+1, f.Name, f.Target, kindOf(dev))
		}
	}
	return nil
}

func kindOf(d *topology.Device) string {
	if d.Kind == "" {
		return topology.KindRouter
	}
	return d.Kind
}

// announcesLater tells whether endpoint a's announcement of an address or
// MAC overrides b's: hosts after routers and switches, then topology order.
func announcesLater(a, b *iface) bool {
	ah, bh := a.dev.kind == topology.KindHost, b.dev.kind == topology.KindHost
	if ah != bh {
		return ah
	}
	return a.dev.idx > b.dev.idx
}

// answersFor tells whether endpoint it answers ARP/ND for address a.
func answersFor(it *iface, a netip.Addr) bool {
	return it.adminUp && it.operUp && !it.dev.down && it.has(a)
}

// arpOwner returns the endpoint of out's segment whose answer for a the
// sender keeps (the last announcer), nil when none answers.
func arpOwner(out *iface, a netip.Addr) *l2Reach {
	var best *l2Reach
	for i := range out.reach {
		r := &out.reach[i]
		if !answersFor(r.to, a) || r.to.dev == out.dev {
			continue
		}
		if best == nil || announcesLater(r.to, best.to) {
			best = r
		}
	}
	return best
}

// arpSender is the address out sends an ARP request for a from: its
// address in a's subnet, else its first of the family.
func arpSender(out *iface, a netip.Addr) netip.Addr {
	if p, ok := out.addrIn(a); ok {
		return p.Addr()
	}
	if p, ok := out.addrOf(familyOf(a)); ok {
		return p.Addr()
	}
	return netip.Addr{}
}

// aclFiltersARP tells whether a named ACL of d has a rule for arp.
func aclFiltersARP(d *device, name string) bool {
	a := d.acls[name]
	if a == nil {
		return false
	}
	for _, r := range a.rules {
		if r.protocol == protoARP {
			return true
		}
	}
	return false
}

// arpPasses tells whether an ARP packet from sender to target gets out of
// the interface from and into the interface to.
func arpPasses(from, to *iface, sender, target netip.Addr) bool {
	p := packet{src: sender, dst: target, proto: protoARP}
	if aclFiltersARP(from.dev, from.cfg.EgressACL) && !aclPermits(from.dev, from.cfg.EgressACL, &p) {
		return false
	}
	if aclFiltersARP(to.dev, to.cfg.IngressACL) && !aclPermits(to.dev, to.cfg.IngressACL, &p) {
		return false
	}
	return true
}

// resolveNeighbor resolves a on out as the sender would: the endpoint
// whose answer it keeps (nil: resolution fails, "Destination Host
// Unreachable"), and the endpoint its frames then reach (nil with a
// resolved owner: the frames are lost to a MAC conflict).
func resolveNeighbor(out *iface, a netip.Addr) (owner, receiver *l2Reach) {
	owner = arpOwner(out, a)
	if owner == nil {
		return nil, nil
	}
	if a.Is4() || a.Is4In6() {
		snd := arpSender(out, a)
		if !arpPasses(out, owner.to, snd, a) || !arpPasses(owner.to, out, a, snd) {
			return nil, nil
		}
	}
	return owner, frameReceiver(out, owner)
}

// frameReceiver returns the endpoint that gets the frames out sends to
// r's MAC: r, or the last announcer of the same MAC on the segment; nil
// when the MAC is out's own.
func frameReceiver(out *iface, r *l2Reach) *l2Reach {
	mac := r.to.mac
	if strings.EqualFold(out.mac, mac) && out.dev != r.to.dev {
		return nil
	}
	best := r
	for i := range out.reach {
		o := &out.reach[i]
		if o.to.dev == r.to.dev || o.to.dev == out.dev || !strings.EqualFold(o.to.mac, mac) || !o.to.adminUp || o.to.dev.down {
			continue
		}
		if announcesLater(o.to, best.to) {
			best = o
		}
	}
	return best
}

// AddressConflict is an address answered by more than one device on a
// segment, as the device that sees it logs it.
type AddressConflict struct {
	// Device and Interface are the observer: a device on the segment that
	// holds the address itself or sees the conflicting answers.
	Device, Interface string
	IP                netip.Addr
	// MAC is the address of the conflicting announcer (the winner when the
	// observer does not hold the address itself); OwnMAC the observer's.
	MAC, OwnMAC string
	// With is the device that sent the conflicting announcement.
	With string
}

// AddressConflicts returns the duplicate addresses a device sees on its
// up interfaces: its own addresses announced by another device (what
// routers log as a duplicate address), and addresses that several other
// devices of a segment announce.
func (n *Network) AddressConflicts(dev string) ([]AddressConflict, error) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	d, _, err := n.state.iface(dev, "")
	if err != nil {
		return nil, err
	}
	var out []AddressConflict
	if d.down {
		return nil, nil
	}
	for _, it := range d.ifList {
		if !it.operUp || !it.l3() || it.loopback {
			continue
		}
		for _, r := range it.reach {
			if r.to.dev == d || !r.to.adminUp || r.to.dev.down {
				continue
			}
			for _, pa := range r.to.addrs {
				a := pa.Addr()
				if it.has(a) {
					out = append(out, AddressConflict{Device: d.name, Interface: it.name, IP: a, MAC: r.to.mac, OwnMAC: it.mac, With: r.to.dev.name})
					continue
				}
				if _, ok := it.addrIn(a); !ok {
					continue
				}
				if w := arpOwner(it, a); w != nil && w.to != r.to {
					out = append(out, AddressConflict{Device: d.name, Interface: it.name, IP: a, MAC: w.to.mac, OwnMAC: r.to.mac, With: w.to.dev.name})
				}
			}
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].IP.Less(out[b].IP) })
	return out, nil
}

// Resolution is the outcome of resolving a neighbour address.
type Resolution struct {
	// Interface is the interface the address is resolved on ("" when no
	// route or connected subnet holds it).
	Interface string
	// MAC is the address learned; empty when resolution failed (the entry
	// is FAILED/INCOMPLETE).
	MAC string
	// Device is the device that answered.
	Device string
}

// Resolve resolves a neighbour address from a device as it would before
// sending to it (ip neigh's view of a gateway): on the interface of the
// route to a, by the resolution rules of this file.
func (n *Network) Resolve(dev, vrf string, a netip.Addr) (Resolution, error) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	d, _, err := n.state.iface(dev, "")
	if err != nil {
		return Resolution{}, err
	}
	a = a.Unmap()
	r := n.state.route(d, ribKey{vrf, familyOf(a)}, a)
	if r == nil || r.outIf == nil || d.down {
		return Resolution{}, nil
	}
	res := Resolution{Interface: r.outIf.name}
	if !r.outIf.operUp || r.outIf.loopback {
		return res, nil
	}
	if owner, _ := resolveNeighbor(r.outIf, a); owner != nil {
		res.MAC, res.Device = owner.to.mac, owner.to.dev.name
	}
	return res, nil
}

// DeviceDown tells whether a device is down (a host_crash fault).
func (n *Network) DeviceDown(dev string) (bool, error) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	d, _, err := n.state.iface(dev, "")
	if err != nil {
		return false, err
	}
	return d.down, nil
}
