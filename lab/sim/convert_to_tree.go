package sim

import (
	"cmp"
	"net/netip"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/topology"
)

// Top-level members of the configuration tree (docs/datamodel.md).
const (
	memInterfaces = "openconfig-interfaces:interfaces"
	memVLANs      = "openconfig-vlan:vlans"
	memNetInst    = "openconfig-network-instance:network-instances"
	memRouting    = "ietf-routing:routing"
	memACL        = "openconfig-acl:acl"
	memSystem     = "openconfig-system:system"
	memSwitched   = "openconfig-vlan:switched-vlan"
	memRouted     = "openconfig-vlan:routed-vlan"
	memLLDP       = "openconfig-lldp:lldp"
	// ietfInterfaces is the operational datastore's ietf-interfaces view.
	ietfInterfaces = "ietf-interfaces:interfaces"
	memIPv4Static  = "ietf-ipv4-unicast-routing:ipv4"
	memIPv6Static  = "ietf-ipv6-unicast-routing:ipv6"
	identStatic    = "ietf-routing:static"
	identL3VRF     = "openconfig-network-instance-types:L3VRF"
	globalStatic   = "static" // name of the global static-routes protocol instance
)

// obj is a JSON object of a tree.
type obj = map[string]any

// num converts an integer to the float64 a decoded JSON tree holds.
func num(i int) float64 { return float64(i) }

// DeviceToTree builds the RFC 7951 configuration tree of a device
// (docs/datamodel.md): interfaces, VLANs, VRFs (one network-instance
// each), static routes (ietf-routing; the global table is the static
// protocol named "static", a VRF's table the one named after the VRF; a
// route's administrative distance is its preference leaf, netmcp's
// augmentation), ACLs and their bindings, the hostname, local users and
// SNMP communities (named community1, community2, ...), and OSPF and BGP
// in the default network-instance (convert_routing.go).
func DeviceToTree(d topology.Device) map[string]any {
	return deviceToTree(d, d.Name)
}

// deviceToTree is DeviceToTree with a hostname that may differ from the
// device's lab name (after "sysname"/"hostname").
func deviceToTree(d topology.Device, hostname string) map[string]any {
	tree := obj{}
	var ifs []any
	for _, it := range d.Interfaces {
		ifs = append(ifs, interfaceToTree(it))
	}
	if len(ifs) > 0 {
		tree[memInterfaces] = obj{"interface": ifs}
	}
	if len(d.VLANs) > 0 {
		var vl []any
		for _, v := range d.VLANs {
			c := obj{"vlan-id": num(v.ID), "status": "ACTIVE"}
			if v.Name != "" {
				c["name"] = v.Name
			}
			vl = append(vl, obj{"vlan-id": num(v.ID), "config": c})
		}
		tree[memVLANs] = obj{"vlan": vl}
	}
	ni := vrfsToTree(d)
	if def := defaultInstanceToTree(d); def != nil { // OSPF and BGP: convert_routing.go
		ni = append([]any{def}, ni...)
	}
	if len(ni) > 0 {
		tree[memNetInst] = obj{"network-instance": ni}
	}
	if cpp := staticToTree(d.Routes); len(cpp) > 0 {
		tree[memRouting] = obj{"control-plane-protocols": obj{"control-plane-protocol": cpp}}
	}
	if acl := aclsToTree(d); acl != nil {
		tree[memACL] = acl
	}
	tree[memSystem] = systemToTree(d, hostname)
	if d.LLDP != nil {
		tree[memLLDP] = obj{"config": obj{"enabled": !d.LLDP.Disabled}}
	}
	return tree
}

// interfaceType returns the iana-if-type identity of an interface.
func interfaceType(it topology.Interface) string {
	t := it.Type
	if t == "" {
		t = dialect.GuessType(it.Name)
	}
	return "iana-if-type:" + t
}

func interfaceToTree(it topology.Interface) obj {
	mtu := it.MTU
	if mtu == 0 {
		mtu = 1500
	}
	c := obj{"name": it.Name, "type": interfaceType(it), "mtu": num(mtu), "enabled": !it.Shutdown}
	if it.Description != "" {
		c["description"] = it.Description
	}
	n := obj{"name": it.Name, "config": c}
	var v4, v6 []any
	for _, a := range it.Addresses {
		p, err := netip.ParsePrefix(a)
		if err != nil {
			continue // netsim rejects the topology; nothing to model here
		}
		ip := p.Addr().String()
		e := obj{"ip": ip, "config": obj{"ip": ip, "prefix-length": num(p.Bits())}}
		if p.Addr().Is4() {
			v4 = append(v4, e)
		} else {
			v6 = append(v6, e)
		}
	}
	if len(v4)+len(v6) > 0 {
		sub := obj{"index": num(0), "config": obj{"index": num(0)}}
		if len(v4) > 0 {
			sub["ipv4"] = obj{"addresses": obj{"address": v4}}
		}
		if len(v6) > 0 {
			sub["ipv6"] = obj{"addresses": obj{"address": v6}}
		}
		n["subinterfaces"] = obj{"subinterface": []any{sub}}
	}
	switch {
	case it.AccessVLAN > 0:
		n[memSwitched] = obj{"config": obj{"interface-mode": "ACCESS", "access-vlan": num(it.AccessVLAN)}}
	case len(it.TrunkVLANs) > 0:
		var tv []any
		for _, v := range it.TrunkVLANs {
			tv = append(tv, num(v))
		}
		n[memSwitched] = obj{"config": obj{"interface-mode": "TRUNK", "trunk-vlans": tv}}
	}
	if it.RoutedVLAN > 0 {
		n[memRouted] = obj{"config": obj{"vlan": num(it.RoutedVLAN)}}
	}
	return n
}

func vrfsToTree(d topology.Device) []any {
	var out []any
	for _, v := range d.VRFs {
		c := obj{"name": v.Name, "type": identL3VRF}
		if v.RD != "" {
			c["route-distinguisher"] = v.RD
		}
		ni := obj{"name": v.Name, "config": c}
		var ifs []any
		for _, it := range d.Interfaces {
			if it.VRF == v.Name {
				ifs = append(ifs, obj{"id": it.Name, "config": obj{"id": it.Name, "interface": it.Name}})
			}
		}
		if len(ifs) > 0 {
			ni["interfaces"] = obj{"interface": ifs}
		}
		out = append(out, ni)
	}
	return out
}

func staticToTree(routes []topology.StaticRoute) []any {
	byVRF := map[string][2][]any{}
	var order []string
	for _, r := range routes {
		p, err := netip.ParsePrefix(r.Prefix)
		if err != nil {
			continue
		}
		nh := obj{}
		switch {
		case r.Discard:
			nh["special-next-hop"] = "blackhole"
		default:
			if r.NextHop != "" {
				nh["next-hop-address"] = r.NextHop
			}
			if r.Interface != "" {
				nh["outgoing-interface"] = r.Interface
			}
		}
		e := obj{"destination-prefix": p.Masked().String(), "next-hop": nh}
		if r.Distance > 0 {
			e["preference"] = num(r.Distance)
		}
		name := globalStatic
		if r.VRF != "" {
			name = r.VRF
		}
		fam, ok := byVRF[name]
		if !ok {
			order = append(order, name)
		}
		if p.Addr().Is4() {
			fam[0] = append(fam[0], e)
		} else {
			fam[1] = append(fam[1], e)
		}
		byVRF[name] = fam
	}
	var out []any
	for _, name := range order {
		fam := byVRF[name]
		sr := obj{}
		if len(fam[0]) > 0 {
			sr[memIPv4Static] = obj{"route": fam[0]}
		}
		if len(fam[1]) > 0 {
			sr[memIPv6Static] = obj{"route": fam[1]}
		}
		out = append(out, obj{"type": identStatic, "name": name, "static-routes": sr})
	}
	return out
}

// aclProtocol maps a topology protocol to the openconfig identity.
var aclProtocol = map[string]string{"icmp": "IP_ICMP", "tcp": "IP_TCP", "udp": "IP_UDP"}

func aclsToTree(d topology.Device) obj {
	if len(d.ACLs) == 0 {
		return nil
	}
	types := map[string]string{}
	var sets []any
	for _, a := range d.ACLs {
		fam := dialect.ACLFamily(a)
		types[a.Name] = fam
		af := "ipv4"
		anyPfx := "0.0.0.0/0"
		if fam == "ACL_IPV6" {
			af, anyPfx = "ipv6", "::/0"
		}
		var ents []any
		for _, r := range a.Rules {
			m := obj{"source-address": cmp.Or(r.Source, anyPfx), "destination-address": cmp.Or(r.Destination, anyPfx)}
			if p := aclProtocol[strings.ToLower(r.Protocol)]; p != "" {
				m["protocol"] = p
			} else if strings.EqualFold(r.Protocol, "ospf") {
				m["protocol"] = num(89) // IP protocol 89: openconfig has no identity for OSPF
			}
			action := "DROP"
			if strings.EqualFold(r.Action, "permit") {
				action = "ACCEPT"
			}
			e := obj{"sequence-id": num(r.Seq), "config": obj{"sequence-id": num(r.Seq)},
				af: obj{"config": m}, "actions": obj{"config": obj{"forwarding-action": action}}}
			if strings.EqualFold(r.Protocol, "arp") { // not IP: an L2 match on the ethertype
				delete(e, af)
				e["l2"] = obj{"config": obj{"ethertype": "openconfig-packet-match-types:ETHERTYPE_ARP"}}
			}
			if r.DstPort > 0 || r.SrcPort > 0 {
				tc := obj{}
				if r.DstPort > 0 {
					tc["destination-port"] = num(r.DstPort)
				}
				if r.SrcPort > 0 {
					tc["source-port"] = num(r.SrcPort)
				}
				e["transport"] = obj{"config": tc}
			}
			ents = append(ents, e)
		}
		set := obj{"name": a.Name, "type": fam, "config": obj{"name": a.Name, "type": fam}}
		if len(ents) > 0 {
			set["acl-entries"] = obj{"acl-entry": ents}
		}
		sets = append(sets, set)
	}
	out := obj{"acl-sets": obj{"acl-set": sets}}
	var ifs []any
	for _, it := range d.Interfaces {
		if it.IngressACL == "" && it.EgressACL == "" {
			continue
		}
		n := obj{"id": it.Name, "config": obj{"id": it.Name}}
		for dir, name := range map[string]string{"ingress": it.IngressACL, "egress": it.EgressACL} {
			if name == "" {
				continue
			}
			t := cmp.Or(types[name], "ACL_IPV4")
			n[dir+"-acl-sets"] = obj{dir + "-acl-set": []any{obj{"set-name": name, "type": t,
				"config": obj{"set-name": name, "type": t}}}}
		}
		ifs = append(ifs, n)
	}
	if len(ifs) > 0 {
		out["interfaces"] = obj{"interface": ifs}
	}
	return out
}

func systemToTree(d topology.Device, hostname string) obj {
	sys := obj{"config": obj{"hostname": hostname}}
	if len(d.Users) > 0 {
		var us []any
		for _, u := range d.Users {
			c := obj{"username": u.Name, "password": u.Password}
			if u.Role != "" {
				c["role"] = u.Role
			}
			us = append(us, obj{"username": u.Name, "config": c})
		}
		sys["aaa"] = obj{"authentication": obj{"users": obj{"user": us}}}
	}
	if len(d.SNMPCommunities) > 0 {
		var l []any
		for i, c := range d.SNMPCommunities {
			name := "community" + strconv.Itoa(i+1)
			l = append(l, obj{"name": name, "config": obj{"name": name, "community-string": c, "access": "READ_ONLY"}})
		}
		sys["snmp"] = obj{"communities": obj{"community": l}}
	}
	return sys
}
