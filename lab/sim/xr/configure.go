package xr

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/topology"
)

// parser reads cisco-iosxr configuration, and a few IOS forms (ip address,
// ip route, switchport, vlan): "no" negates a command. Its modes are top,
// interface, vlan, vrf, acl, user, the static-route modes (static,
// static-af, static-vrf, static-vrf-af) and the OSPF and BGP modes of
// configure_routing.go.
var parser = &dialect.Parser{
	Name:     Name,
	Negation: "no",
	Common: []dialect.Rule{
		{Words: "exit", Run: func(l *dialect.Line) (bool, error) { l.S.Exit(); return dialect.Done() }},
		{Words: "root|end", Run: func(l *dialect.Line) (bool, error) { l.S.Top(); return dialect.Done() }},
		{Words: "configure", Run: func(*dialect.Line) (bool, error) { return dialect.Done() }},
	},
	Modes: modes(),
}

// modes joins the rules of the OSPF and BGP modes (configure_routing.go)
// and the others; in a mode both have, the routing rules come first.
func modes() map[string][]dialect.Rule {
	static := []dialect.Rule{{Words: "address-family ipv4|ipv6", Run: staticFamily}}
	m := map[string][]dialect.Rule{
		"top": {
			{Words: "hostname", Len: 2, Run: func(l *dialect.Line) (bool, error) { l.C.Hostname = l.W[1]; return dialect.Done() }},
			{Words: "interface", Min: 2, Run: interfaceMode},
			{Words: "vlan", Len: 2, Run: vlanMode},
			{Words: "vrf", Len: 2, Run: vrfMode},
			{Words: "ipv4|ip|ipv6 access-list", Min: 3, Run: aclMode},
			{Words: "router static", Len: 2, Run: staticMode},
			{Words: "ip|ipv6 route", Run: iosRoute},
			{Words: "username", Len: 2, Run: userMode},
			{Words: "snmp-server community", Min: 3, Run: func(l *dialect.Line) (bool, error) { l.C.SetCommunity(l.W[2], l.Neg); return dialect.Done() }},
		},
		"interface": {
			{Words: "description", Run: ifDescription},
			{Words: "mtu", Len: 2, NegAny: true, Run: ifMTU},
			{Words: "shutdown", Len: 1, Run: func(l *dialect.Line) (bool, error) { iface(l).Shutdown = !l.Neg; return dialect.Done() }},
			{Words: "ipv4|ip address", Run: ifAddress(false, "secondary", "expected ipv4 address A.B.C.D MASK or A.B.C.D/LENGTH")},
			{Words: "ipv6 enable", Len: 2, Run: func(*dialect.Line) (bool, error) { return dialect.Done() }},
			{Words: "ipv6 address", Run: ifAddress(true, "", "expected ipv6 address X:X::X/LENGTH")},
			{Words: "vrf", Len: 2, NegAny: true, Run: ifVRF},
			{Words: "ipv4|ip|ipv6 access-group", Min: 3, Run: ifAccessGroup},
			{Words: "switchport mode", Len: 3, Run: ifSwitchportMode},
			{Words: "switchport access vlan", Run: ifAccessVLAN},
			{Words: "switchport trunk allowed vlan", Min: 5, Run: ifTrunkVLANs},
		},
		"vlan": {
			{Words: "name", Min: 2, NegAny: true, Run: vlanName},
		},
		"vrf": {
			{Words: "rd", Len: 2, Run: vrfRD},
			{Words: "address-family|description", Run: func(*dialect.Line) (bool, error) { return dialect.Done() }},
		},
		"acl": {
			{Words: "", Run: ace}, // every line is an entry
		},
		"user": {
			{Words: "group", Len: 2, Run: userGroup},
			{Words: "secret|password", Min: 2, Run: userSecret},
		},
		"static":        append(static, dialect.Rule{Words: "vrf", Len: 2, Run: staticVRF}),
		"static-vrf":    static,
		"static-af":     {{Run: staticRoute}},
		"static-vrf-af": {{Run: staticRoute}},
	}
	for kind, rules := range routingModes() {
		m[kind] = append(rules, m[kind]...)
	}
	return m
}

// [no] interface NAME: enter the interface mode; no deletes a logical
// interface.
func interfaceMode(l *dialect.Line) (bool, error) {
	name := strings.Join(l.W[1:], "")
	if !l.Neg {
		l.S.Enter(dialect.Mode{Kind: "interface", Name: l.C.Iface(name, true).Name})
		return dialect.Done()
	}
	if dialect.GuessType(name) == "ethernetCsmacd" {
		return l.Bad("a physical interface cannot be deleted")
	}
	if !l.C.RemoveInterface(name) {
		return l.Bad("no such interface")
	}
	return dialect.Done()
}

// [no] vlan LIST (IOS); one VLAN enters its mode.
func vlanMode(l *dialect.Line) (bool, error) {
	ids, err := dialect.ParseVLANList(l.W[1:])
	if err != nil {
		return l.Fail(err)
	}
	for _, id := range ids {
		if l.Neg {
			l.C.RemoveVLAN(id)
		} else {
			l.C.VLAN(id)
		}
	}
	if !l.Neg && len(ids) == 1 {
		l.S.Enter(dialect.Mode{Kind: "vlan", VLAN: ids[0]})
	}
	return dialect.Done()
}

// [no] vrf NAME: enter the VRF mode.
func vrfMode(l *dialect.Line) (bool, error) {
	if l.Neg {
		l.C.RemoveVRF(l.W[1])
		return dialect.Done()
	}
	l.C.VRF(l.W[1])
	l.S.Enter(dialect.Mode{Kind: "vrf", Name: l.W[1]})
	return dialect.Done()
}

// [no] ipv4|ip|ipv6 access-list NAME: enter the ACL mode.
func aclMode(l *dialect.Line) (bool, error) {
	name := l.W[len(l.W)-1]
	if l.Neg {
		l.C.RemoveACL(name)
		return dialect.Done()
	}
	l.C.ACL(name)
	l.S.Enter(dialect.Mode{Kind: "acl", Name: name})
	return dialect.Done()
}

// [no] router static: enter the static-route mode; no removes every route.
func staticMode(l *dialect.Line) (bool, error) {
	if l.Neg {
		l.C.Dev.Routes = nil
		return dialect.Done()
	}
	l.S.Enter(dialect.Mode{Kind: "static"})
	return dialect.Done()
}

// [no] username NAME: enter the user mode.
func userMode(l *dialect.Line) (bool, error) {
	if l.Neg {
		l.C.RemoveUser(l.W[1])
		return dialect.Done()
	}
	l.C.User(l.W[1])
	l.S.Enter(dialect.Mode{Kind: "user", Name: l.W[1]})
	return dialect.Done()
}

// [no] name TEXT in the VLAN mode.
func vlanName(l *dialect.Line) (bool, error) {
	v := l.C.VLAN(l.M.VLAN)
	v.Name = ""
	if !l.Neg {
		v.Name = strings.Join(l.W[1:], " ")
	}
	return dialect.Done()
}

// [no] rd RD in the VRF mode.
func vrfRD(l *dialect.Line) (bool, error) {
	l.C.VRF(l.M.Name).RD = l.W[1]
	if l.Neg {
		l.C.VRF(l.M.Name).RD = ""
	}
	return dialect.Done()
}

// [no] group GROUP in the user mode.
func userGroup(l *dialect.Line) (bool, error) {
	u := l.C.User(l.M.Name)
	u.Role = l.W[1]
	if l.Neg {
		u.Role = ""
	}
	return dialect.Done()
}

// secret|password [TYPE] SECRET in the user mode.
func userSecret(l *dialect.Line) (bool, error) {
	l.C.User(l.M.Name).Password = l.W[len(l.W)-1]
	return dialect.Done()
}

// address-family ipv4|ipv6 [unicast] in a static-route mode.
func staticFamily(l *dialect.Line) (bool, error) {
	l.S.Enter(dialect.Mode{Kind: l.M.Kind + "-af", V6: l.W[1] == "ipv6", VRF: l.M.VRF})
	return dialect.Done()
}

// [no] vrf NAME in the static-route mode: no removes the VRF's routes.
func staticVRF(l *dialect.Line) (bool, error) {
	if l.Neg {
		l.C.Dev.Routes = slices.DeleteFunc(l.C.Dev.Routes, func(r topology.StaticRoute) bool { return r.VRF == l.W[1] })
		return dialect.Done()
	}
	l.S.Enter(dialect.Mode{Kind: "static-vrf", VRF: l.W[1]})
	return dialect.Done()
}

// [no] PFX/LEN [IFNAME] [NEXTHOP] [DISTANCE] in a static-route family mode.
func staticRoute(l *dialect.Line) (bool, error) {
	if !strings.Contains(l.W[0], "/") {
		return dialect.Pass()
	}
	r, err := parseStaticRoute(l.M.V6, l.W, l.Neg)
	if err != nil {
		return l.Fail(err)
	}
	r.VRF = l.M.VRF
	return l.ChangeRoute(r)
}

// [no] ip|ipv6 route [vrf V] A M|A/LEN NEXTHOP|IFNAME [DISTANCE] (IOS).
func iosRoute(l *dialect.Line) (bool, error) {
	r, err := parseIOSRoute(l.W[0] == "ipv6", l.W[2:], l.Neg)
	if err != nil {
		return l.Fail(err)
	}
	return l.ChangeRoute(r)
}

// iface is the interface of the interface mode.
func iface(l *dialect.Line) *topology.Interface { return l.C.Iface(l.M.Name, true) }

// [no] description TEXT
func ifDescription(l *dialect.Line) (bool, error) {
	it := iface(l)
	it.Description = ""
	if !l.Neg {
		it.Description = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l.Text), "description"))
	}
	return dialect.Done()
}

// [no] mtu N
func ifMTU(l *dialect.Line) (bool, error) {
	it := iface(l)
	it.MTU = 0
	if l.Neg {
		return dialect.Done()
	}
	n, err := strconv.Atoi(l.W[1])
	if err != nil || n < 64 || n > 65535 {
		return l.Bad("MTU must be 64..65535")
	}
	it.MTU = n
	return dialect.Done()
}

// ifAddress is [no] ipv4 address A M|A/LEN [secondary], or (v6) ipv6
// address X/LEN.
func ifAddress(v6 bool, secondary, usage string) func(l *dialect.Line) (bool, error) {
	return func(l *dialect.Line) (bool, error) {
		if !dialect.EditAddress(iface(l), l.W[2:], l.Neg, v6, secondary) {
			return l.Bad(usage)
		}
		return dialect.Done()
	}
}

// [no] vrf NAME in the interface mode.
func ifVRF(l *dialect.Line) (bool, error) {
	it := iface(l)
	it.VRF = ""
	if l.Neg {
		return dialect.Done()
	}
	if !l.C.HasVRF(l.W[1]) {
		return l.Bad("VRF " + l.W[1] + " is not configured")
	}
	it.VRF = l.W[1]
	return dialect.Done()
}

// [no] ipv4 access-group ACL [ingress|egress] (IOS: in|out).
func ifAccessGroup(l *dialect.Line) (bool, error) {
	it := iface(l)
	w := l.W
	egress := len(w) >= 4 && (w[3] == "egress" || w[3] == "out")
	name := w[2]
	if l.Neg {
		name = ""
	} else if !l.C.HasACL(name) {
		return l.Bad("access-list " + name + " is not configured")
	}
	if egress {
		it.EgressACL = name
	} else {
		it.IngressACL = name
	}
	return dialect.Done()
}

// switchport mode access|trunk
func ifSwitchportMode(l *dialect.Line) (bool, error) {
	it := iface(l)
	if l.W[2] == "access" {
		it.TrunkVLANs = nil
	} else {
		it.AccessVLAN = 0
	}
	return dialect.Done()
}

// [no] switchport access vlan N
func ifAccessVLAN(l *dialect.Line) (bool, error) {
	it := iface(l)
	it.AccessVLAN = 0
	if l.Neg {
		return dialect.Done()
	}
	if len(l.W) != 4 {
		return l.Bad("expected switchport access vlan N")
	}
	n, err := strconv.Atoi(l.W[3])
	if err != nil {
		return l.Bad("VLAN id must be a number")
	}
	it.AccessVLAN, it.TrunkVLANs = n, nil
	return dialect.Done()
}

// [no] switchport trunk allowed vlan LIST
func ifTrunkVLANs(l *dialect.Line) (bool, error) {
	it := iface(l)
	ids, err := dialect.ParseVLANList(l.W[4:])
	if err != nil {
		return l.Fail(err)
	}
	it.TrunkVLANs, it.AccessVLAN = ids, 0
	if l.Neg {
		it.TrunkVLANs = nil
	}
	return dialect.Done()
}

// parseStaticRoute parses "PFX/LEN [IFNAME] [NEXTHOP] [DISTANCE]".
func parseStaticRoute(v6 bool, w []string, no bool) (topology.StaticRoute, error) {
	var r topology.StaticRoute
	p, err := netip.ParsePrefix(w[0])
	if err != nil || p.Addr().Is6() != v6 {
		return r, fmt.Errorf("bad prefix %q for this address family", w[0])
	}
	r.Prefix = p.Masked().String()
	return routeTail(r, v6, w[1:], no)
}

// parseIOSRoute parses "[vrf V] A M|A/LEN NEXTHOP|IFNAME [DISTANCE]".
func parseIOSRoute(v6 bool, w []string, no bool) (topology.StaticRoute, error) {
	var r topology.StaticRoute
	if len(w) >= 2 && w[0] == "vrf" {
		r.VRF, w = w[1], w[2:]
	}
	p, used, err := dialect.ParseAddrMask(w, 0)
	if err != nil || p.Addr().Is6() != v6 {
		return r, fmt.Errorf("expected destination and mask")
	}
	r.Prefix = p.Masked().String()
	return routeTail(r, v6, w[used:], no)
}

// routeTail reads what follows a static route's destination: next hop,
// interface, Null0 and distance, up to a description or tag.
func routeTail(r topology.StaticRoute, v6 bool, w []string, no bool) (topology.StaticRoute, error) {
	for _, t := range w {
		if nh, err := netip.ParseAddr(t); err == nil {
			if nh.Is6() != v6 {
				return r, fmt.Errorf("next hop %s is not of the destination's family", t)
			}
			r.NextHop = nh.String()
		} else if n, err := strconv.Atoi(t); err == nil {
			if n < 1 || n > 254 {
				return r, fmt.Errorf("distance must be 1..254")
			}
			r.Distance = n
		} else if dialect.IsNull(t) {
			r.Discard = true
		} else if t == "description" || t == "tag" {
			break
		} else {
			r.Interface = t
		}
	}
	if !no && !r.Discard && r.NextHop == "" && r.Interface == "" {
		return r, fmt.Errorf("missing next hop")
	}
	return r, nil
}

// ace parses an ACL entry, "[SEQ] permit|deny PROTO SRC [eq PORT] DST
// [eq PORT]", or "no SEQ"; PROTO is ipv4 (ipv6), icmp, tcp, udp, ospf or arp.
func ace(l *dialect.Line) (bool, error) {
	a := l.C.ACL(l.M.Name)
	w := l.W
	r := topology.ACLEntry{}
	if n, err := strconv.Atoi(w[0]); err == nil {
		r.Seq, w = n, w[1:]
	}
	if l.Neg {
		if r.Seq == 0 || len(w) != 0 {
			return l.Bad("expected no SEQUENCE")
		}
		dialect.RemoveRule(a, r.Seq)
		return dialect.Done()
	}
	if len(w) == 0 || (w[0] != "permit" && w[0] != "deny") {
		if r.Seq == 0 && len(w) > 0 && w[0] != "remark" {
			return dialect.Pass()
		}
		return l.Bad("expected [SEQ] permit|deny PROTOCOL SOURCE DESTINATION")
	}
	r.Action = w[0]
	if len(w) < 4 {
		return l.Bad("expected permit|deny PROTOCOL SOURCE DESTINATION")
	}
	switch w[1] {
	case "ipv4", "ip", "ipv6":
		r.Protocol = "ip"
	case "icmp", "tcp", "udp", "icmpv6", "ospf", "arp":
		r.Protocol = strings.TrimSuffix(w[1], "v6")
	default:
		return l.Bad("protocol must be ipv4, icmp, tcp, udp, ospf or arp")
	}
	w = w[2:]
	for _, side := range []struct {
		addr *string
		port *int
	}{{&r.Source, &r.SrcPort}, {&r.Destination, &r.DstPort}} {
		var err error
		if w, err = aceSide(w, r.Protocol, side.addr, side.port); err != nil {
			return l.Fail(err)
		}
	}
	if len(w) != 0 {
		return l.Bad("unexpected " + strings.Join(w, " "))
	}
	dialect.SetRule(a, r, 10)
	return dialect.Done()
}

// aceSide reads one side of an entry, "any|A W|host A|A/LEN [eq PORT]",
// into addr and port, and returns the words after it.
func aceSide(w []string, proto string, addr *string, port *int) ([]string, error) {
	if len(w) == 0 {
		return w, fmt.Errorf("missing address")
	}
	if w[0] == "any" {
		w = w[1:]
	} else {
		p, used, err := dialect.ParseWildcard(w, 0)
		if err != nil {
			return w, err
		}
		*addr, w = p, w[used:]
	}
	if len(w) >= 2 && w[0] == "eq" {
		if proto != "tcp" && proto != "udp" {
			return w, fmt.Errorf("a port needs protocol tcp or udp")
		}
		n, err := strconv.Atoi(w[1])
		if err != nil || n < 1 || n > 65535 {
			return w, fmt.Errorf("port must be a number 1-65535")
		}
		*port, w = n, w[2:]
	}
	return w, nil
}
