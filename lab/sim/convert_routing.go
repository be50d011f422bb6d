package sim

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/yang"
)

// This file converts a device's OSPF and BGP configuration to and from the
// openconfig-network-instance tree: the default instance's protocols
// (identifier openconfig-policy-types:OSPF name "ospf", BGP name "bgp")
// and its table connections (redistribution).

// Identities and names of the default instance's routing protocols.
const (
	identDefaultNI = "openconfig-network-instance-types:DEFAULT_INSTANCE"
	identOSPF      = "openconfig-policy-types:OSPF"
	identBGP       = "openconfig-policy-types:BGP"
	protoNameOSPF  = "ospf"
	protoNameBGP   = "bgp"
	afiIPv4Unicast = "openconfig-bgp-types:IPV4_UNICAST"
	afiIPv6Unicast = "openconfig-bgp-types:IPV6_UNICAST"
	ospfP2P        = "openconfig-ospf-types:POINT_TO_POINT_NETWORK"
	ospfBroadcast  = "openconfig-ospf-types:BROADCAST_NETWORK"
	defaultNI      = "default"
)

// redistSource maps a topology redistribution source to the
// openconfig-policy-types identity of a table connection, and back.
var redistSource = map[string]string{
	"connected": "openconfig-policy-types:DIRECTLY_CONNECTED",
	"static":    "openconfig-policy-types:STATIC",
	"ospf":      identOSPF,
	"bgp":       identBGP,
}

// defaultInstanceToTree returns the default network-instance with the
// device's OSPF and BGP configuration, or nil when it has neither.
func defaultInstanceToTree(d topology.Device) obj {
	var protos, conns []any
	if o := ospfToTree(d); o != nil {
		protos = append(protos, o)
		if d.OSPF != nil {
			conns = append(conns, tableConnections(d.OSPF.Redistribute, identOSPF)...)
		}
	}
	if d.BGP != nil {
		protos = append(protos, bgpToTree(*d.BGP))
		conns = append(conns, tableConnections(d.BGP.Redistribute, identBGP)...)
	}
	if len(protos) == 0 {
		return nil
	}
	ni := obj{"name": defaultNI, "config": obj{"name": defaultNI, "type": identDefaultNI},
		"protocols": obj{"protocol": protos}}
	if len(conns) > 0 {
		ni["table-connections"] = obj{"table-connection": conns}
	}
	return ni
}

func tableConnections(srcs []string, dst string) []any {
	var out []any
	for _, s := range srcs {
		src, ok := redistSource[strings.ToLower(s)]
		if !ok {
			continue // netsim rejects an unknown source
		}
		c := obj{"src-protocol": src, "dst-protocol": dst, "address-family": "openconfig-types:IPV4"}
		e := obj{"config": c}
		for k, v := range c {
			e[k] = v
		}
		out = append(out, e)
	}
	return out
}

func protocolEntry(ident, name string) obj {
	return obj{"identifier": ident, "name": name,
		"config": obj{"identifier": ident, "name": name, "enabled": true}}
}

func ospfToTree(d topology.Device) obj {
	inOSPF := d.OSPF != nil
	var areas []any
	areaIdx := map[string]int{}
	for _, it := range d.Interfaces {
		if it.OSPF == nil {
			continue
		}
		inOSPF = true
		o := it.OSPF
		id := dialect.DottedArea(o.Area)
		c := obj{"id": it.Name}
		switch o.NetworkType {
		case topology.OSPFPointToPoint:
			c["network-type"] = ospfP2P
		case topology.OSPFBroadcast:
			c["network-type"] = ospfBroadcast
		}
		if o.Cost > 0 {
			c["metric"] = num(o.Cost)
		}
		if o.Passive {
			c["passive"] = true
		}
		if o.Priority != nil {
			c["priority"] = num(*o.Priority)
		}
		if o.MTUIgnore {
			c["netmcp-mtu-ignore"] = true
		}
		e := obj{"id": it.Name, "config": c}
		if o.Hello > 0 || o.Dead > 0 {
			tc := obj{}
			if o.Hello > 0 {
				tc["hello-interval"] = num(o.Hello)
			}
			if o.Dead > 0 {
				tc["dead-interval"] = num(o.Dead)
			}
			e["timers"] = obj{"config": tc}
		}
		i, ok := areaIdx[id]
		if !ok {
			i = len(areas)
			areaIdx[id] = i
			areas = append(areas, obj{"identifier": id, "config": obj{"identifier": id}, "interfaces": obj{"interface": []any{}}})
		}
		ifl := areas[i].(obj)["interfaces"].(obj)
		ifl["interface"] = append(ifl["interface"].([]any), e)
	}
	if !inOSPF {
		return nil
	}
	g := obj{}
	if d.OSPF != nil {
		if d.OSPF.RouterID != "" {
			g["router-id"] = d.OSPF.RouterID
		}
		if d.OSPF.DefaultOriginate {
			g["netmcp-default-originate"] = true
		}
		if d.OSPF.ReferenceBandwidthMbps > 0 {
			g["netmcp-reference-bandwidth"] = num(d.OSPF.ReferenceBandwidthMbps)
		}
	}
	v2 := obj{}
	if len(g) > 0 {
		v2["global"] = obj{"config": g}
	}
	if len(areas) > 0 {
		v2["areas"] = obj{"area": areas}
	}
	p := protocolEntry(identOSPF, protoNameOSPF)
	p["ospfv2"] = v2
	return p
}

func bgpToTree(b topology.BGP) obj {
	g := obj{"as": num(int(b.ASN))}
	if b.RouterID != "" {
		g["router-id"] = b.RouterID
	}
	if b.Keepalive > 0 {
		g["netmcp-keepalive-interval"] = num(b.Keepalive)
	}
	if b.Hold > 0 {
		g["netmcp-hold-time"] = num(b.Hold)
	}
	global := obj{"config": g}
	var v4, v6 []any
	for _, n := range b.Networks {
		p, err := netip.ParsePrefix(n)
		if err != nil {
			continue
		}
		if p.Addr().Is4() {
			v4 = append(v4, p.Masked().String())
		} else {
			v6 = append(v6, p.Masked().String())
		}
	}
	var afs []any
	for _, f := range []struct {
		name string
		nets []any
	}{{afiIPv4Unicast, v4}, {afiIPv6Unicast, v6}} {
		if len(f.nets) > 0 {
			afs = append(afs, obj{"afi-safi-name": f.name,
				"config": obj{"afi-safi-name": f.name, "enabled": true, "netmcp-networks": f.nets}})
		}
	}
	if len(afs) > 0 {
		global["afi-safis"] = obj{"afi-safi": afs}
	}
	bgp := obj{"global": global}
	var ns []any
	for _, n := range b.Neighbors {
		ns = append(ns, bgpNeighborToTree(n))
	}
	if len(ns) > 0 {
		bgp["neighbors"] = obj{"neighbor": ns}
	}
	p := protocolEntry(identBGP, protoNameBGP)
	p["bgp"] = bgp
	return p
}

func bgpNeighborToTree(n topology.BGPNeighbor) obj {
	c := obj{"neighbor-address": n.Address, "peer-as": num(int(n.RemoteAS)), "enabled": !n.Shutdown}
	if n.Description != "" {
		c["description"] = n.Description
	}
	if n.Password != "" {
		c["auth-password"] = n.Password
	}
	if n.NextHopSelf {
		c["netmcp-next-hop-self"] = true
	}
	e := obj{"neighbor-address": n.Address, "config": c}
	if n.UpdateSource != "" {
		e["transport"] = obj{"config": obj{"local-address": n.UpdateSource}}
	}
	if n.EBGPMultihop > 0 {
		e["ebgp-multihop"] = obj{"config": obj{"enabled": true, "multihop-ttl": num(n.EBGPMultihop)}}
	}
	if n.MaxPrefix > 0 {
		af, fam := afiIPv4Unicast, "ipv4-unicast"
		if a, err := netip.ParseAddr(n.Address); err == nil && a.Is6() {
			af, fam = afiIPv6Unicast, "ipv6-unicast"
		}
		e["afi-safis"] = obj{"afi-safi": []any{obj{"afi-safi-name": af,
			"config": obj{"afi-safi-name": af, "enabled": true},
			fam:      obj{"prefix-limit": obj{"config": obj{"max-prefixes": num(n.MaxPrefix)}}}}}}
	}
	return e
}

// routingFromTree reads the default instance's OSPF and BGP configuration
// into d (whose interfaces idx indexes by name).
func routingFromTree(tree map[string]any, d *topology.Device, idx map[string]int) error {
	d.OSPF, d.BGP = nil, nil
	for i := range d.Interfaces {
		d.Interfaces[i].OSPF = nil
	}
	for _, ni := range yang.List(at(tree, memNetInst, "network-instance")) {
		if name := yang.String(at(ni, "name")); name != defaultNI && name != "DEFAULT" {
			continue
		}
		for _, p := range yang.List(at(ni, "protocols", "protocol")) {
			var err error
			switch identName(yang.String(at(p, "identifier"))) {
			case "OSPF":
				err = ospfFromTree(p, d, idx)
			case "BGP":
				err = bgpFromTree(p, d)
			}
			if err != nil {
				return err
			}
		}
		for _, tc := range yang.List(at(ni, "table-connections", "table-connection")) {
			src := identName(yang.String(at(tc, "src-protocol")))
			var name string
			for k, v := range redistSource {
				if identName(v) == src {
					name = k
				}
			}
			if name == "" {
				return fmt.Errorf("table-connection: unknown src-protocol %q", yang.String(at(tc, "src-protocol")))
			}
			switch identName(yang.String(at(tc, "dst-protocol"))) {
			case "OSPF":
				if d.OSPF == nil {
					d.OSPF = &topology.OSPF{}
				}
				d.OSPF.Redistribute = append(d.OSPF.Redistribute, name)
			case "BGP":
				if d.BGP == nil {
					return fmt.Errorf("table-connection into BGP, which is not configured")
				}
				d.BGP.Redistribute = append(d.BGP.Redistribute, name)
			default:
				return fmt.Errorf("table-connection: unsupported dst-protocol %q", yang.String(at(tc, "dst-protocol")))
			}
		}
	}
	return nil
}

// identName strips an identity's module prefix.
func identName(s string) string {
	if i := strings.IndexByte(s, ':'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func ospfFromTree(p any, d *topology.Device, idx map[string]int) error {
	o := &topology.OSPF{}
	g := at(p, "ospfv2", "global", "config")
	o.RouterID = yang.String(at(g, "router-id"))
	o.DefaultOriginate, _ = at(g, "netmcp-default-originate").(bool)
	o.ReferenceBandwidthMbps, _ = intOf(at(g, "netmcp-reference-bandwidth"))
	d.OSPF = o
	for _, a := range yang.List(at(p, "ospfv2", "areas", "area")) {
		area := yang.String(at(a, "identifier"))
		if n, ok := intOf(at(a, "identifier")); ok && area == "" {
			area = dialect.DottedArea(strconv.Itoa(n))
		}
		if area == "" {
			return fmt.Errorf("ospfv2 area without an identifier")
		}
		for _, e := range yang.List(at(a, "interfaces", "interface")) {
			id := yang.String(at(e, "id"))
			i, ok := idx[id]
			if !ok {
				return fmt.Errorf("ospfv2 area %s names interface %s, which is not configured", area, id)
			}
			c := at(e, "config")
			io := &topology.InterfaceOSPF{Area: area}
			switch identName(yang.String(at(c, "network-type"))) {
			case "POINT_TO_POINT_NETWORK":
				io.NetworkType = topology.OSPFPointToPoint
			case "BROADCAST_NETWORK":
				io.NetworkType = topology.OSPFBroadcast
			case "":
			default:
				return fmt.Errorf("ospfv2 interface %s: unsupported network-type %q", id, yang.String(at(c, "network-type")))
			}
			io.Cost, _ = intOf(at(c, "metric"))
			io.Passive, _ = at(c, "passive").(bool)
			io.MTUIgnore, _ = at(c, "netmcp-mtu-ignore").(bool)
			if pr, ok := intOf(at(c, "priority")); ok {
				io.Priority = &pr
			}
			io.Hello, _ = intOf(at(e, "timers", "config", "hello-interval"))
			io.Dead, _ = intOf(at(e, "timers", "config", "dead-interval"))
			d.Interfaces[i].OSPF = io
		}
	}
	return nil
}

func bgpFromTree(p any, d *topology.Device) error {
	g := at(p, "bgp", "global", "config")
	asn, ok := intOf(at(g, "as"))
	if !ok || asn <= 0 {
		return fmt.Errorf("bgp: global config has no AS number")
	}
	b := &topology.BGP{ASN: uint32(asn), RouterID: yang.String(at(g, "router-id"))}
	b.Keepalive, _ = intOf(at(g, "netmcp-keepalive-interval"))
	b.Hold, _ = intOf(at(g, "netmcp-hold-time"))
	for _, af := range yang.List(at(p, "bgp", "global", "afi-safis", "afi-safi")) {
		for _, n := range yang.List(at(af, "config", "netmcp-networks")) {
			pfx, err := netip.ParsePrefix(yang.String(n))
			if err != nil {
				return fmt.Errorf("bgp: bad network %v", n)
			}
			b.Networks = append(b.Networks, pfx.Masked().String())
		}
	}
	for _, n := range yang.List(at(p, "bgp", "neighbors", "neighbor")) {
		addr := yang.String(at(n, "neighbor-address"))
		a, err := netip.ParseAddr(addr)
		if err != nil {
			return fmt.Errorf("bgp: bad neighbor-address %q", addr)
		}
		c := at(n, "config")
		ras, ok := intOf(at(c, "peer-as"))
		if !ok || ras <= 0 {
			return fmt.Errorf("bgp neighbor %s has no peer-as", addr)
		}
		nb := topology.BGPNeighbor{Address: a.String(), RemoteAS: uint32(ras),
			Description: yang.String(at(c, "description")), Password: yang.String(at(c, "auth-password")),
			UpdateSource: yang.String(at(n, "transport", "config", "local-address"))}
		if e, ok := at(c, "enabled").(bool); ok && !e {
			nb.Shutdown = true
		}
		nb.NextHopSelf, _ = at(c, "netmcp-next-hop-self").(bool)
		if e, _ := at(n, "ebgp-multihop", "config", "enabled").(bool); e {
			nb.EBGPMultihop, _ = intOf(at(n, "ebgp-multihop", "config", "multihop-ttl"))
			nb.EBGPMultihop = max(nb.EBGPMultihop, 1)
		}
		for _, af := range yang.List(at(n, "afi-safis", "afi-safi")) {
			for _, fam := range []string{"ipv4-unicast", "ipv6-unicast"} {
				if m, ok := intOf(at(af, fam, "prefix-limit", "config", "max-prefixes")); ok {
					nb.MaxPrefix = m
				}
			}
		}
		b.Neighbors = append(b.Neighbors, nb)
	}
	d.BGP = b
	return nil
}
