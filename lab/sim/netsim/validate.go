package netsim

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/netmcp/netmcp/lab/topology"
)

// parseAddrOrPrefix accepts "any", "", an address (a host prefix) or a prefix.
func parseAddrOrPrefix(s string) (netip.Prefix, bool, error) {
	if s == "" || strings.EqualFold(s, "any") {
		return netip.Prefix{}, true, nil
	}
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return netip.Prefix{}, false, err
		}
		return p.Masked(), false, nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, false, err
	}
	return netip.PrefixFrom(a, a.BitLen()), false, nil
}

// validateDevice checks one device's configuration on its own.
func validateDevice(d *topology.Device) error {
	if d.Name == "" {
		return fmt.Errorf("netsim: a device has no name")
	}
	if strings.Contains(d.Name, ":") {
		return fmt.Errorf("netsim: device %q: name must not contain ':'", d.Name)
	}
	switch d.Kind {
	case "", topology.KindRouter, topology.KindSwitch, topology.KindHost:
	default:
		return fmt.Errorf("netsim: device %q: unknown kind %q (want router, switch or host)", d.Name, d.Kind)
	}
	vrfs := map[string]bool{"": true}
	for _, v := range d.VRFs {
		if v.Name == "" {
			return fmt.Errorf("netsim: device %q: a VRF has no name", d.Name)
		}
		if vrfs[v.Name] {
			return fmt.Errorf("netsim: device %q: duplicate VRF %q", d.Name, v.Name)
		}
		vrfs[v.Name] = true
	}
	vlans := map[int]bool{}
	for _, v := range d.VLANs {
		if v.ID < 1 || v.ID > 4094 {
			return fmt.Errorf("netsim: device %q: VLAN id %d out of range 1-4094", d.Name, v.ID)
		}
		if vlans[v.ID] {
			return fmt.Errorf("netsim: device %q: duplicate VLAN %d", d.Name, v.ID)
		}
		vlans[v.ID] = true
	}
	ifs := map[string]bool{}
	for _, it := range d.Interfaces {
		where := fmt.Sprintf("netsim: device %q interface %q", d.Name, it.Name)
		if it.Name == "" {
			return fmt.Errorf("netsim: device %q: an interface has no name", d.Name)
		}
		if ifs[it.Name] {
			return fmt.Errorf("netsim: device %q: duplicate interface %q", d.Name, it.Name)
		}
		ifs[it.Name] = true
		if it.MTU < 0 || (it.MTU > 0 && it.MTU < 68) || it.MTU > 65535 {
			return fmt.Errorf("%s: MTU %d out of range 68-65535", where, it.MTU)
		}
		if !vrfs[it.VRF] {
			return fmt.Errorf("%s: VRF %q is not defined on the device", where, it.VRF)
		}
		for _, a := range it.Addresses {
			if _, err := netip.ParsePrefix(a); err != nil {
				return fmt.Errorf("%s: bad address %q: %v", where, a, err)
			}
		}
		switched := it.AccessVLAN != 0 || len(it.TrunkVLANs) > 0
		if switched && len(it.Addresses) > 0 {
			return fmt.Errorf("%s: a switched port (access/trunk VLAN) cannot have addresses", where)
		}
		if switched && it.RoutedVLAN != 0 {
			return fmt.Errorf("%s: an interface cannot be both a switched port and a VLAN interface", where)
		}
		for _, v := range append([]int{it.AccessVLAN, it.RoutedVLAN}, it.TrunkVLANs...) {
			if v < 0 || v > 4094 {
				return fmt.Errorf("%s: VLAN %d out of range 1-4094", where, v)
			}
		}
		if it.IGPCost < 0 {
			return fmt.Errorf("%s: negative igp-cost %d", where, it.IGPCost)
		}
	}
	if d.Gateway != "" {
		if _, err := netip.ParseAddr(d.Gateway); err != nil {
			return fmt.Errorf("netsim: device %q: bad gateway %q: %v", d.Name, d.Gateway, err)
		}
	}
	for i, r := range d.Routes {
		where := fmt.Sprintf("netsim: device %q static route %d (%s)", d.Name, i+1, r.Prefix)
		p, err := netip.ParsePrefix(r.Prefix)
		if err != nil {
			return fmt.Errorf("%s: bad prefix: %v", where, err)
		}
		if r.NextHop != "" {
			nh, err := netip.ParseAddr(r.NextHop)
			if err != nil {
				return fmt.Errorf("%s: bad next hop %q: %v", where, r.NextHop, err)
			}
			if nh.Is4() != p.Addr().Is4() {
				return fmt.Errorf("%s: next hop %s is not of the prefix's address family", where, nh)
			}
		}
		if r.Interface != "" && !ifs[r.Interface] {
			return fmt.Errorf("%s: no interface %q on the device", where, r.Interface)
		}
		if r.NextHop == "" && r.Interface == "" && !r.Discard {
			return fmt.Errorf("%s: needs a next hop, an interface or discard", where)
		}
		if !vrfs[r.VRF] {
			return fmt.Errorf("%s: VRF %q is not defined on the device", where, r.VRF)
		}
		if r.Distance < 0 || r.Distance > 255 {
			return fmt.Errorf("%s: distance %d out of range 0-255", where, r.Distance)
		}
	}
	acls := map[string]bool{}
	for _, a := range d.ACLs {
		if a.Name == "" {
			return fmt.Errorf("netsim: device %q: an ACL has no name", d.Name)
		}
		if acls[a.Name] {
			return fmt.Errorf("netsim: device %q: duplicate ACL %q", d.Name, a.Name)
		}
		acls[a.Name] = true
		for _, e := range a.Rules {
			where := fmt.Sprintf("netsim: device %q ACL %q rule %d", d.Name, a.Name, e.Seq)
			switch strings.ToLower(e.Action) {
			case "permit", "deny":
			default:
				return fmt.Errorf("%s: action %q (want permit or deny)", where, e.Action)
			}
			switch strings.ToLower(e.Protocol) {
			case "", "ip", "ipv6", "icmp", "icmpv6", "tcp", "udp", "ospf", "arp":
			default:
				return fmt.Errorf("%s: protocol %q (want ip, icmp, tcp, udp, ospf or arp)", where, e.Protocol)
			}
			if _, _, err := parseAddrOrPrefix(e.Source); err != nil {
				return fmt.Errorf("%s: bad source %q: %v", where, e.Source, err)
			}
			if _, _, err := parseAddrOrPrefix(e.Destination); err != nil {
				return fmt.Errorf("%s: bad destination %q: %v", where, e.Destination, err)
			}
			if e.DstPort < 0 || e.DstPort > 65535 {
				return fmt.Errorf("%s: dst-port %d out of range", where, e.DstPort)
			}
			if e.SrcPort < 0 || e.SrcPort > 65535 {
				return fmt.Errorf("%s: src-port %d out of range", where, e.SrcPort)
			}
			if p := strings.ToLower(e.Protocol); (e.SrcPort != 0 || e.DstPort != 0) && p != "tcp" && p != "udp" {
				return fmt.Errorf("%s: ports need protocol tcp or udp, not %q", where, e.Protocol)
			}
		}
	}
	for _, nb := range d.Neighbors {
		where := fmt.Sprintf("netsim: device %q neighbor %q", d.Name, nb.IP)
		if _, err := netip.ParseAddr(nb.IP); err != nil {
			return fmt.Errorf("%s: bad IP: %v", where, err)
		}
		if !ifs[nb.Interface] {
			return fmt.Errorf("%s: no interface %q on the device", where, nb.Interface)
		}
	}
	if d.RouterID != "" {
		if _, err := netip.ParseAddr(d.RouterID); err != nil {
			return fmt.Errorf("netsim: device %q: bad router-id %q: %v", d.Name, d.RouterID, err)
		}
	}
	return validateControl(d)
}

// validate checks a whole topology: devices, links and faults.
func validate(t *topology.Topology) error {
	seen := map[string]bool{}
	for i := range t.Devices {
		d := &t.Devices[i]
		if err := validateDevice(d); err != nil {
			return err
		}
		if seen[d.Name] {
			return fmt.Errorf("netsim: duplicate device %q", d.Name)
		}
		seen[d.Name] = true
	}
	if err := validateRefs(t, nil); err != nil {
		return err
	}
	return validateNamedFaults(t)
}

// interfaceSets maps each device of t to the set of its interface names.
func interfaceSets(t *topology.Topology) map[string]map[string]bool {
	devs := make(map[string]map[string]bool, len(t.Devices))
	for i := range t.Devices {
		d := &t.Devices[i]
		ifs := make(map[string]bool, len(d.Interfaces))
		for _, it := range d.Interfaces {
			ifs[it.Name] = true
		}
		devs[d.Name] = ifs
	}
	return devs
}

// checkEnd checks that s, a "device:interface" reference described by
// what, names an existing interface.
func checkEnd(devs map[string]map[string]bool, what, s string) error {
	dev, ifn, ok := topology.SplitEnd(s)
	if !ok {
		return fmt.Errorf("netsim: %s %q: want \"device:interface\"", what, s)
	}
	ifs, ok := devs[dev]
	if !ok {
		return fmt.Errorf("netsim: %s %q: no device %q", what, s, dev)
	}
	if !ifs[ifn] {
		return fmt.Errorf("netsim: %s %q: device %q has no interface %q", what, s, dev, ifn)
	}
	return nil
}

// linkEnds is the set of the link ends of t.
func linkEnds(t *topology.Topology) map[string]bool {
	ends := make(map[string]bool, 2*len(t.Links))
	for _, l := range t.Links {
		ends[l.A], ends[l.B] = true, true
	}
	return ends
}

// validateRefs checks the links and faults of t against its devices. With
// changed set, the links were valid before devices of those names changed:
// only the references to them are checked again, so reconfiguring one
// device costs in proportion to the links, not to the whole network.
func validateRefs(t *topology.Topology, changed map[string]bool) error {
	devs := interfaceSets(t)
	touches := func(end string) bool {
		if changed == nil {
			return true
		}
		dev, _, _ := topology.SplitEnd(end)
		return changed[dev]
	}
	used := map[string]string{}
	ends := map[string]bool{}
	for _, l := range t.Links {
		name := l.A + " -- " + l.B
		for _, e := range []string{l.A, l.B} {
			ends[e] = true
			if !touches(e) {
				continue
			}
			if err := checkEnd(devs, "link "+name+" end", e); err != nil {
				return err
			}
			if changed != nil {
				continue
			}
			if prev, ok := used[e]; ok {
				return fmt.Errorf("netsim: interface %q is on two links (%s and %s)", e, prev, name)
			}
			used[e] = name
		}
		if changed != nil {
			continue
		}
		if l.A == l.B {
			return fmt.Errorf("netsim: link %s joins an interface to itself", name)
		}
		if l.Delay < 0 {
			return fmt.Errorf("netsim: link %s: negative delay", name)
		}
	}
	return validateFaults(t, devs, ends)
}

// validateFaults checks the faults of t against its interfaces (devs) and
// link ends: named faults as CheckFault does (only runtime ones belong in
// the model's list), the older kinds by their fields.
func validateFaults(t *topology.Topology, devs map[string]map[string]bool, linkEnds map[string]bool) error {
	checkIf := func(s string) error { return checkEnd(devs, "fault interface", s) }
	for i, f := range t.Faults {
		where := fmt.Sprintf("netsim: fault %d (%s)", i+1, f.Kind)
		if f.Name != "" {
			if !IsRuntimeFault(f.Name) {
				return fmt.Errorf("netsim: fault %d (%s): a configuration fault: the lab makes it through the device's configuration, not the model's fault list", i+1, f.Name)
			}
			if err := checkNamed(t, devs, linkEnds, f); err != nil {
				return fmt.Errorf("netsim: %w", err)
			}
			continue
		}
		switch f.Kind {
		case topology.FaultLinkDown, topology.FaultLoss, topology.FaultDelay:
			if f.Link == "" {
				return fmt.Errorf("%s: needs link (either end, \"device:interface\")", where)
			}
			if !linkEnds[f.Link] {
				return fmt.Errorf("%s: no link has end %q", where, f.Link)
			}
		case topology.FaultMTU, topology.FaultACLDrop:
			if f.Interface == "" {
				return fmt.Errorf("%s: needs interface (\"device:interface\")", where)
			}
			if err := checkIf(f.Interface); err != nil {
				return fmt.Errorf("%s: %v", where, err)
			}
		default:
			return fmt.Errorf("%s: unknown fault kind %q (want link-down, loss, mtu, acl-drop or delay)", where, f.Kind)
		}
		switch f.Kind {
		case topology.FaultLoss:
			if f.Percent < 0 || f.Percent > 100 {
				return fmt.Errorf("%s: percent %v out of range 0-100", where, f.Percent)
			}
		case topology.FaultMTU:
			if f.MTU < 68 || f.MTU > 65535 {
				return fmt.Errorf("%s: mtu %d out of range 68-65535", where, f.MTU)
			}
		case topology.FaultACLDrop:
			if _, _, err := parseAddrOrPrefix(f.Destination); err != nil {
				return fmt.Errorf("%s: bad destination %q: %v", where, f.Destination, err)
			}
		case topology.FaultDelay:
			if f.DelayMS < 0 {
				return fmt.Errorf("%s: negative delay-ms", where)
			}
		}
	}
	return nil
}
