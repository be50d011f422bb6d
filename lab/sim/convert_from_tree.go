package sim

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/yang"
)

// TreeToDevice turns a configuration tree back into a topology device.
// What the tree does not carry (kind, vendor, slots, crash records, MAC
// addresses, IGP costs, static neighbours, telemetry bases) is kept from
// base, matched by interface name. It is the inverse of DeviceToTree.
func TreeToDevice(tree map[string]any, base topology.Device) (topology.Device, error) {
	d := base
	d.Interfaces, d.VLANs, d.VRFs, d.Routes, d.ACLs = nil, nil, nil, nil, nil
	d.Users, d.SNMPCommunities = nil, nil
	baseIf := map[string]topology.Interface{}
	for _, it := range base.Interfaces {
		baseIf[it.Name] = it
	}
	for _, n := range yang.List(at(tree, memInterfaces, "interface")) {
		it, err := interfaceFromTree(n, baseIf)
		if err != nil {
			return d, err
		}
		d.Interfaces = append(d.Interfaces, it)
	}
	idx := map[string]int{}
	for i, it := range d.Interfaces {
		idx[it.Name] = i
	}
	for _, v := range yang.List(at(tree, memVLANs, "vlan")) {
		id, ok := intOf(at(v, "vlan-id"))
		if !ok {
			return d, fmt.Errorf("vlan without a numeric vlan-id")
		}
		d.VLANs = append(d.VLANs, topology.VLAN{ID: id, Name: yang.String(at(v, "config", "name"))})
	}
	for _, ni := range yang.List(at(tree, memNetInst, "network-instance")) {
		name := yang.String(at(ni, "name"))
		if name == "" || name == "default" || name == "DEFAULT" {
			continue
		}
		d.VRFs = append(d.VRFs, topology.VRF{Name: name, RD: yang.String(at(ni, "config", "route-distinguisher"))})
		for _, m := range yang.List(at(ni, "interfaces", "interface")) {
			ifn := yang.String(at(m, "config", "interface"))
			if ifn == "" {
				ifn = yang.String(at(m, "id"))
			}
			i, ok := idx[ifn]
			if !ok {
				return d, fmt.Errorf("network-instance %s names interface %s, which is not configured", name, ifn)
			}
			d.Interfaces[i].VRF = name
		}
	}
	if err := routingFromTree(tree, &d, idx); err != nil { // OSPF and BGP: convert_routing.go
		return d, err
	}
	routes, err := staticFromTree(tree)
	if err != nil {
		return d, err
	}
	d.Routes = routes
	if err := aclsFromTree(tree, &d, idx); err != nil {
		return d, err
	}
	for _, u := range yang.List(at(tree, memSystem, "aaa", "authentication", "users", "user")) {
		d.Users = append(d.Users, topology.User{Name: yang.String(at(u, "username")),
			Role: yang.String(at(u, "config", "role")), Password: yang.String(at(u, "config", "password"))})
	}
	for _, c := range yang.List(at(tree, memSystem, "snmp", "communities", "community")) {
		d.SNMPCommunities = append(d.SNMPCommunities, yang.String(at(c, "config", "community-string")))
	}
	d.LLDP = lldpFromTree(tree, base.LLDP)
	return d, nil
}

// Hostname returns the configured hostname of a tree, or fallback.
func Hostname(tree map[string]any, fallback string) string {
	if h := yang.String(at(tree, memSystem, "config", "hostname")); h != "" {
		return h
	}
	return fallback
}

func interfaceFromTree(n any, baseIf map[string]topology.Interface) (topology.Interface, error) {
	name := yang.String(at(n, "name"))
	if name == "" {
		return topology.Interface{}, fmt.Errorf("interface without a name")
	}
	b := baseIf[name]
	it := topology.Interface{Name: name, MAC: b.MAC, IGPCost: b.IGPCost, Passive: b.Passive, OSPF: b.OSPF}
	c := at(n, "config")
	it.Description = yang.String(at(c, "description"))
	it.Type = strings.TrimPrefix(yang.String(at(c, "type")), "iana-if-type:")
	if m, ok := intOf(at(c, "mtu")); ok && m != 1500 {
		it.MTU = m
	}
	if e, ok := at(c, "enabled").(bool); ok && !e {
		it.Shutdown = true
	}
	for _, sub := range yang.List(at(n, "subinterfaces", "subinterface")) {
		for _, fam := range []string{"ipv4", "ipv6"} {
			for _, holder := range []any{sub, at(sub, "config")} {
				for _, key := range []string{fam, "openconfig-if-ip:" + fam} {
					for _, a := range yang.List(at(holder, key, "addresses", "address")) {
						ip := yang.String(at(a, "ip"))
						pl, ok := intOf(at(a, "config", "prefix-length"))
						if !ok {
							return it, fmt.Errorf("interface %s: address %s has no prefix-length", name, ip)
						}
						addr, err := netip.ParseAddr(ip)
						if err != nil {
							return it, fmt.Errorf("interface %s: bad address %q", name, ip)
						}
						p, err := addr.Prefix(pl)
						if err != nil || (fam == "ipv4") != addr.Is4() {
							return it, fmt.Errorf("interface %s: bad %s address %s/%d", name, fam, ip, pl)
						}
						it.Addresses = append(it.Addresses, addr.String()+"/"+strconv.Itoa(p.Bits()))
					}
				}
			}
		}
	}
	sw := at(n, memSwitched, "config")
	switch strings.ToUpper(yang.String(at(sw, "interface-mode"))) {
	case "ACCESS":
		it.AccessVLAN, _ = intOf(at(sw, "access-vlan"))
	case "TRUNK":
		for _, v := range yang.List(at(sw, "trunk-vlans")) {
			if i, ok := intOf(v); ok {
				it.TrunkVLANs = append(it.TrunkVLANs, i)
			}
		}
	}
	it.RoutedVLAN, _ = intOf(at(n, memRouted, "config", "vlan"))
	return it, nil
}

func staticFromTree(tree map[string]any) ([]topology.StaticRoute, error) {
	var out []topology.StaticRoute
	for _, p := range yang.List(at(tree, memRouting, "control-plane-protocols", "control-plane-protocol")) {
		if t := yang.String(at(p, "type")); t != identStatic && t != "static" {
			continue
		}
		vrf := yang.String(at(p, "name"))
		if vrf == globalStatic {
			vrf = ""
		}
		for _, fam := range []string{memIPv4Static, memIPv6Static} {
			for _, r := range yang.List(at(p, "static-routes", fam, "route")) {
				pfx := yang.String(at(r, "destination-prefix"))
				pp, err := netip.ParsePrefix(pfx)
				if err != nil {
					return nil, fmt.Errorf("static route: bad destination-prefix %q", pfx)
				}
				sr := topology.StaticRoute{Prefix: pp.Masked().String(), VRF: vrf}
				nh := at(r, "next-hop")
				sr.NextHop = yang.String(at(nh, "next-hop-address"))
				sr.Interface = yang.String(at(nh, "outgoing-interface"))
				if s := yang.String(at(nh, "special-next-hop")); s == "blackhole" || s == "prohibit" || s == "unreachable" {
					sr.Discard = true
				}
				if sr.NextHop != "" {
					if a, err := netip.ParseAddr(sr.NextHop); err != nil || a.Is4() != pp.Addr().Is4() {
						return nil, fmt.Errorf("static route %s: bad next-hop-address %q", pfx, sr.NextHop)
					}
				}
				if !sr.Discard && sr.NextHop == "" && sr.Interface == "" {
					return nil, fmt.Errorf("static route %s has no next hop", pfx)
				}
				sr.Distance, _ = intOf(at(r, "preference"))
				out = append(out, sr)
			}
		}
	}
	return out, nil
}

var aclProtocolName = map[string]string{"IP_ICMP": "icmp", "IP_TCP": "tcp", "IP_UDP": "udp",
	"openconfig-packet-match-types:IP_ICMP": "icmp", "openconfig-packet-match-types:IP_TCP": "tcp",
	"openconfig-packet-match-types:IP_UDP": "udp"}

func aclsFromTree(tree map[string]any, d *topology.Device, idx map[string]int) error {
	for _, s := range yang.List(at(tree, memACL, "acl-sets", "acl-set")) {
		a := topology.ACL{Name: yang.String(at(s, "name"))}
		for _, e := range yang.List(at(s, "acl-entries", "acl-entry")) {
			seq, _ := intOf(at(e, "sequence-id"))
			r := topology.ACLEntry{Seq: seq, Action: "deny", Protocol: "ip"}
			if strings.HasSuffix(yang.String(at(e, "actions", "config", "forwarding-action")), "ACCEPT") {
				r.Action = "permit"
			}
			for _, fam := range []string{"ipv4", "ipv6"} {
				m := at(e, fam, "config")
				if m == nil {
					continue
				}
				r.Source = anyToEmpty(yang.String(at(m, "source-address")))
				r.Destination = anyToEmpty(yang.String(at(m, "destination-address")))
				if p := aclProtocolName[yang.String(at(m, "protocol"))]; p != "" {
					r.Protocol = p
				} else if n, ok := intOf(at(m, "protocol")); ok && n == 89 {
					r.Protocol = "ospf"
				}
			}
			if strings.HasSuffix(yang.String(at(e, "l2", "config", "ethertype")), "ETHERTYPE_ARP") {
				r.Protocol = "arp"
			}
			r.DstPort, _ = intOf(at(e, "transport", "config", "destination-port"))
			r.SrcPort, _ = intOf(at(e, "transport", "config", "source-port"))
			a.Rules = append(a.Rules, r)
		}
		d.ACLs = append(d.ACLs, a)
	}
	for _, n := range yang.List(at(tree, memACL, "interfaces", "interface")) {
		id := yang.String(at(n, "id"))
		i, ok := idx[id]
		if !ok {
			return fmt.Errorf("ACL bound to interface %s, which is not configured", id)
		}
		if l := yang.List(at(n, "ingress-acl-sets", "ingress-acl-set")); len(l) > 0 {
			d.Interfaces[i].IngressACL = yang.String(at(l[0], "set-name"))
		}
		if l := yang.List(at(n, "egress-acl-sets", "egress-acl-set")); len(l) > 0 {
			d.Interfaces[i].EgressACL = yang.String(at(l[0], "set-name"))
		}
	}
	return nil
}

// anyToEmpty maps the match-all prefixes to "" (the topology's "any").
func anyToEmpty(p string) string {
	if p == "0.0.0.0/0" || p == "::/0" {
		return ""
	}
	return p
}

// at walks object members of a generic tree by their exact names (the
// tree spells some both qualified and bare); nil when absent.
func at(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// intOf returns a leaf as an int, read as yang.Int reads it.
func intOf(v any) (int, bool) {
	n, ok := yang.Int(v)
	return int(n), ok
}
