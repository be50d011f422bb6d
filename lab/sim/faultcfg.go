package sim

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
)

// This file makes the configuration faults of topology.Catalog: each one
// is a real difference in the device's configuration (an ACL, an OSPF or
// BGP statement, an interface MTU, a host's address, gateway, routes,
// resolver or DNS zone), computed here from the configuration the device
// runs; lab_faults.go commits it through the device's own configuration.

// faultACLs names the ACL each ACL fault creates and its deny rules (a
// "permit ip" rule follows them).
var faultACLs = map[string]struct {
	name  string
	rules func(f topology.Fault) []topology.ACLEntry
}{
	"icmp_acl_block": {"NIKA-ICMP-BLOCK", func(topology.Fault) []topology.ACLEntry {
		return []topology.ACLEntry{{Action: "deny", Protocol: "icmp"}}
	}},
	"bgp_acl_block": {"NIKA-BGP-BLOCK", func(topology.Fault) []topology.ACLEntry {
		return []topology.ACLEntry{{Action: "deny", Protocol: "tcp", DstPort: 179}, {Action: "deny", Protocol: "tcp", SrcPort: 179}}
	}},
	"ospf_acl_block": {"NIKA-OSPF-BLOCK", func(topology.Fault) []topology.ACLEntry {
		return []topology.ACLEntry{{Action: "deny", Protocol: "ospf"}}
	}},
	"http_acl_block": {"NIKA-HTTP-BLOCK", func(f topology.Fault) []topology.ACLEntry {
		port, _ := strconv.Atoi(f.Param("port"))
		return []topology.ACLEntry{{Action: "deny", Protocol: "tcp", DstPort: port}}
	}},
	"dns_port_blocked": {"NIKA-DNS-BLOCK", func(topology.Fault) []topology.ACLEntry {
		return []topology.ACLEntry{{Action: "deny", Protocol: "udp", DstPort: 53}, {Action: "deny", Protocol: "tcp", DstPort: 53},
			{Action: "deny", Protocol: "udp", SrcPort: 53}, {Action: "deny", Protocol: "tcp", SrcPort: 53}}
	}},
	"arp_acl_block": {"NIKA-ARP-BLOCK", func(topology.Fault) []topology.ACLEntry {
		return []topology.ACLEntry{{Action: "deny", Protocol: "arp"}}
	}},
}

// faultTarget is what a configuration fault changes: a device and,
// optionally, one of its interfaces.
func faultTarget(f topology.Fault) (dev, ifname string) {
	if d, i, ok := topology.SplitEnd(f.Target); ok {
		return d, i
	}
	return f.Target, ""
}

// configFault computes the configuration of dev with fault f made, from
// the network's topology (for the defaults derived from neighbours), and
// a note on what it did. It changes nothing itself.
func configFault(net *netsim.Network, dev topology.Device, f topology.Fault) (topology.Device, string, error) {
	d := cloneDev(dev)
	_, ifn := faultTarget(f)
	where := "fault " + f.String()
	iface := func(name string) (*topology.Interface, error) {
		for i := range d.Interfaces {
			if d.Interfaces[i].Name == name {
				return &d.Interfaces[i], nil
			}
		}
		return nil, fmt.Errorf("%s: %s has no interface %q", where, d.Name, name)
	}
	if spec, ok := faultACLs[f.Name]; ok {
		var ifs []string
		if ifn != "" {
			ifs = []string{ifn}
		} else { // dns_port_blocked on a device: its own addressed interfaces
			if d.DNS == nil {
				return d, "", fmt.Errorf("%s: %s runs no DNS service (target an interface instead)", where, d.Name)
			}
			for _, it := range d.Interfaces {
				if len(it.Addresses) > 0 && !strings.EqualFold(it.Type, "softwareLoopback") {
					ifs = append(ifs, it.Name)
				}
			}
		}
		rules := spec.rules(f)
		rules = append(rules, topology.ACLEntry{Action: "permit", Protocol: "ip"})
		for i := range rules {
			rules[i].Seq = 10 * (i + 1)
		}
		if slices.ContainsFunc(d.ACLs, func(a topology.ACL) bool { return a.Name == spec.name }) {
			return d, "", fmt.Errorf("%s: %s already has an ACL %s", where, d.Name, spec.name)
		}
		d.ACLs = append(d.ACLs, topology.ACL{Name: spec.name, Rules: rules})
		var notes []string
		for _, n := range ifs {
			it, err := iface(n)
			if err != nil {
				return d, "", err
			}
			bind := &it.IngressACL
			dir := "inbound"
			if f.Param("direction") == "out" {
				bind, dir = &it.EgressACL, "outbound"
			}
			if *bind != "" {
				notes = append(notes, fmt.Sprintf("replaces ACL %s %s on %s", *bind, dir, n))
			}
			*bind = spec.name
			notes = append(notes, fmt.Sprintf("ACL %s %s on %s", spec.name, dir, n))
		}
		return d, strings.Join(notes, "; "), nil
	}
	switch f.Name {
	case "mtu_mismatch":
		it, err := iface(ifn)
		if err != nil {
			return d, "", err
		}
		mtu, _ := strconv.Atoi(f.Param("mtu"))
		if cmpMTU(it.MTU) == mtu {
			return d, "", fmt.Errorf("%s: %s already has MTU %d", where, f.Target, mtu)
		}
		it.MTU = mtu
		return d, fmt.Sprintf("MTU of %s set to %d", ifn, mtu), nil
	case "ospf_neighbor_missing":
		it, err := iface(ifn)
		if err != nil {
			return d, "", err
		}
		if it.OSPF == nil {
			return d, "", fmt.Errorf("%s: %s is not in OSPF", where, f.Target)
		}
		it.OSPF = nil
		return d, fmt.Sprintf("%s removed from OSPF", ifn), nil
	case "ospf_area_misconfiguration":
		it, err := iface(ifn)
		if err != nil {
			return d, "", err
		}
		if it.OSPF == nil {
			return d, "", fmt.Errorf("%s: %s is not in OSPF", where, f.Target)
		}
		area := f.Param("area")
		if area == "" {
			area = unusedArea(net, d.Name, ifn, it.OSPF.Area)
		}
		area, _ = netsim.ParseArea(area)
		if cur, _ := netsim.ParseArea(it.OSPF.Area); cur == area {
			return d, "", fmt.Errorf("%s: %s is already in area %s", where, f.Target, area)
		}
		o := *it.OSPF
		o.Area = area
		it.OSPF = &o
		return d, fmt.Sprintf("%s moved to OSPF area %s", ifn, area), nil
	case "bgp_asn_misconfig":
		if d.BGP == nil || len(d.BGP.Neighbors) == 0 {
			return d, "", fmt.Errorf("%s: %s has no BGP neighbour", where, d.Name)
		}
		b := *d.BGP
		b.Neighbors = slices.Clone(b.Neighbors)
		d.BGP = &b
		i := 0
		if nb := f.Param("neighbor"); nb != "" {
			i = slices.IndexFunc(b.Neighbors, func(n topology.BGPNeighbor) bool { return n.Address == nb })
			if i < 0 {
				return d, "", fmt.Errorf("%s: %s has no BGP neighbour %s", where, d.Name, nb)
			}
		}
		as := uint64(b.Neighbors[i].RemoteAS) + 1000
		if v := f.Param("remote-as"); v != "" {
			as, _ = strconv.ParseUint(v, 10, 32)
		}
		if uint32(as) == b.Neighbors[i].RemoteAS {
			return d, "", fmt.Errorf("%s: neighbour %s already has remote-as %d", where, b.Neighbors[i].Address, as)
		}
		b.Neighbors[i].RemoteAS = uint32(as)
		return d, fmt.Sprintf("neighbour %s remote-as %d", b.Neighbors[i].Address, as), nil
	case "bgp_missing_route_advertisement":
		if d.BGP == nil || len(d.BGP.Networks) == 0 {
			return d, "", fmt.Errorf("%s: %s has no BGP network statement", where, d.Name)
		}
		b := *d.BGP
		d.BGP = &b
		pfx := f.Param("prefix")
		if pfx == "" {
			pfx = b.Networks[0]
		}
		i := slices.IndexFunc(b.Networks, func(n string) bool { return samePrefix(n, pfx) })
		if i < 0 {
			return d, "", fmt.Errorf("%s: %s has no network statement for %s (has %s)", where, d.Name, pfx, strings.Join(b.Networks, ", "))
		}
		b.Networks = slices.Delete(slices.Clone(b.Networks), i, i+1)
		return d, "network " + pfx + " removed from BGP", nil
	case "dns_service_down":
		if d.DNS == nil || d.DNS.Disabled {
			return d, "", fmt.Errorf("%s: %s runs no DNS service", where, d.Name)
		}
		s := *d.DNS
		s.Disabled = true
		d.DNS = &s
		return d, "DNS service stopped", nil
	case "dns_record_error":
		return dnsRecordError(net, d, f, where)
	}
	return hostFault(net, d, f, where)
}

// cmpMTU is an interface's MTU, 1500 when unset.
func cmpMTU(m int) int {
	if m == 0 {
		return 1500
	}
	return m
}

func samePrefix(a, b string) bool {
	pa, err1 := netip.ParsePrefix(a)
	pb, err2 := netip.ParsePrefix(b)
	return err1 == nil && err2 == nil && pa.Masked() == pb.Masked()
}

// cloneDev deep-copies a device.
func cloneDev(d topology.Device) topology.Device {
	c, err := deviceOf(plainOf(d))
	if err != nil {
		panic(fmt.Sprintf("sim: copying device %s: %v", d.Name, err))
	}
	return c
}

// peerOf returns the device and interface at the other end of dev:ifn's link.
func peerOf(net *netsim.Network, dev, ifn string) (string, string, bool) {
	end := dev + ":" + ifn
	for _, l := range net.Links() {
		other := ""
		switch end {
		case l.A:
			other = l.B
		case l.B:
			other = l.A
		default:
			continue
		}
		return topology.SplitEnd(other)
	}
	return "", "", false
}

// unusedArea picks an OSPF area that neither the interface nor its
// neighbour uses: 0.0.0.1, 0.0.0.2, ...
func unusedArea(net *netsim.Network, dev, ifn, cur string) string {
	used := map[string]bool{}
	if a, err := netsim.ParseArea(cur); err == nil {
		used[a] = true
	}
	if pd, pi, ok := peerOf(net, dev, ifn); ok {
		if d, ok := net.Device(pd); ok {
			for _, it := range d.Interfaces {
				if it.Name == pi && it.OSPF != nil {
					if a, err := netsim.ParseArea(it.OSPF.Area); err == nil {
						used[a] = true
					}
				}
			}
		}
	}
	for i := 1; ; i++ {
		a, _ := netsim.ParseArea(strconv.Itoa(i))
		if !used[a] {
			return a
		}
	}
}

// usedAddrs is every address configured anywhere in the network.
func usedAddrs(net *netsim.Network) map[netip.Addr]bool {
	used := map[netip.Addr]bool{}
	for _, name := range net.DeviceNames() {
		d, _ := net.Device(name)
		for _, it := range d.Interfaces {
			for _, a := range it.Addresses {
				if p, err := netip.ParsePrefix(a); err == nil {
					used[p.Addr()] = true
				}
			}
		}
	}
	return used
}

// unusedIn returns the highest host address of p that no device uses.
func unusedIn(net *netsim.Network, p netip.Prefix) (netip.Addr, bool) {
	used := usedAddrs(net)
	p = p.Masked()
	if !p.Addr().Is4() || p.Bits() > 30 {
		return netip.Addr{}, false
	}
	b := p.Addr().As4()
	n := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	size := uint32(1) << (32 - p.Bits())
	for x := n + size - 2; x > n; x-- {
		a := netip.AddrFrom4([4]byte{byte(x >> 24), byte(x >> 16), byte(x >> 8), byte(x)})
		if !used[a] {
			return a, true
		}
	}
	return netip.Addr{}, false
}

// dnsRecordError gives a record of the device's DNS service a wrong value.
func dnsRecordError(net *netsim.Network, d topology.Device, f topology.Fault, where string) (topology.Device, string, error) {
	if d.DNS == nil {
		return d, "", fmt.Errorf("%s: %s runs no DNS service", where, d.Name)
	}
	s := *d.DNS
	s.Zones = slices.Clone(s.Zones)
	d.DNS = &s
	name := f.Param("name")
	for zi := range s.Zones {
		z := &s.Zones[zi]
		z.Records = slices.Clone(z.Records)
		for ri := range z.Records {
			r := &z.Records[ri]
			if name == "" && r.Type != "A" {
				continue
			}
			fqdn := strings.TrimSuffix(r.Name, ".")
			if !strings.HasSuffix(r.Name, ".") {
				fqdn = strings.TrimPrefix(r.Name+"."+z.Name, "@.")
			}
			if name != "" && !strings.EqualFold(name, r.Name) && !strings.EqualFold(strings.TrimSuffix(name, "."), fqdn) {
				continue
			}
			value := f.Param("value")
			if value == "" {
				v, err := wrongValue(net, r.Type)
				if err != nil {
					return d, "", fmt.Errorf("%s: %v", where, err)
				}
				value = v
			}
			if value == r.Value {
				return d, "", fmt.Errorf("%s: record %s %s already has value %s", where, fqdn, r.Type, value)
			}
			r.Value = value
			return d, fmt.Sprintf("record %s %s now %s", fqdn, r.Type, value), nil
		}
	}
	if name == "" {
		return d, "", fmt.Errorf("%s: %s serves no A record", where, d.Name)
	}
	return d, "", fmt.Errorf("%s: %s serves no record %q", where, d.Name, name)
}

// wrongValue is an unused address for an A or AAAA record (documentation
// prefixes no device of the lab uses), a name for the other types.
func wrongValue(net *netsim.Network, typ string) (string, error) {
	used := usedAddrs(net)
	switch typ {
	case "A":
		for i := 1; i < 255; i++ {
			a := netip.AddrFrom4([4]byte{192, 0, 2, byte(i)})
			if !used[a] {
				return a.String(), nil
			}
		}
		return "", fmt.Errorf("no unused address in 192.0.2.0/24")
	case "AAAA":
		return "2001:db8:dead::1", nil
	}
	return "wrong.invalid.", nil
}
