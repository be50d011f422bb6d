package vrp

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/topology"
)

// parser reads huawei-vrp configuration: "undo" negates a command and
// "#" starts a comment. Its modes are the VRP views: top (the system
// view), interface, vlan, vrf (vpn-instance), acl, aaa, and the OSPF and
// BGP views of configure_routing.go.
var parser = &dialect.Parser{
	Name:     Name,
	Negation: "undo",
	Comments: []string{"#"},
	Common: []dialect.Rule{
		{Words: "quit", Run: func(l *dialect.Line) (bool, error) { l.S.Exit(); return dialect.Done() }},
		{Words: "return", Run: func(l *dialect.Line) (bool, error) { l.S.Top(); return dialect.Done() }},
		{Words: "system-view", Run: func(*dialect.Line) (bool, error) { return dialect.Done() }},
	},
	Modes: modes(),
}

// modes joins the rules of the OSPF and BGP views (configure_routing.go)
// and the others; in a mode both have, the routing rules come first.
func modes() map[string][]dialect.Rule {
	m := map[string][]dialect.Rule{
		"top": {
			{Words: "sysname", Len: 2, Run: sysname},
			{Words: "interface", Min: 2, Run: interfaceView},
			{Words: "vlan batch", Run: vlanBatch},
			{Words: "vlan", Len: 2, Run: vlanView},
			{Words: "ip vpn-instance", Len: 3, Run: vpnInstance},
			{Words: "acl", Min: 2, Run: aclView},
			{Words: "ip|ipv6 route-static", Run: staticRoute},
			{Words: "aaa", Len: 1, Run: func(l *dialect.Line) (bool, error) { l.S.Enter(dialect.Mode{Kind: "aaa"}); return dialect.Done() }},
			{Words: "snmp-agent community", Min: 3, Run: community},
		},
		"interface": {
			{Words: "description", Run: ifDescription},
			{Words: "mtu", Len: 2, NegAny: true, Run: ifMTU},
			{Words: "shutdown", Len: 1, Run: ifShutdown},
			{Words: "ip address", Run: ifAddress(false, "expected ip address A.B.C.D MASK|LENGTH")},
			{Words: "ipv6 enable", Len: 2, Run: func(*dialect.Line) (bool, error) { return dialect.Done() }},
			{Words: "ipv6 address", Run: ifAddress(true, "expected ipv6 address X:X::X/LENGTH")},
			{Words: "ip binding vpn-instance", Len: 4, Run: ifBinding},
			{Words: "portswitch", Run: func(*dialect.Line) (bool, error) { return dialect.Done() }},
			{Words: "port link-type", Len: 3, Run: ifLinkType},
			{Words: "port default vlan", Run: ifDefaultVLAN},
			{Words: "port trunk allow-pass vlan", Run: ifTrunkVLANs},
			{Words: "traffic-filter inbound|outbound", Run: ifTrafficFilter},
		},
		"vlan": {
			{Words: "name|description", Min: 2, NegAny: true, Run: vlanName},
		},
		"vrf": {
			{Words: "route-distinguisher", Len: 2, Run: vrfRD},
			{Words: "ipv4-family|ipv6-family", Run: func(*dialect.Line) (bool, error) { return dialect.Done() }},
		},
		"acl": {
			{Words: "rule", Run: aclRule},
		},
		"aaa": {
			{Words: "local-user", Min: 2, Run: localUser},
		},
	}
	for kind, rules := range routingModes() {
		m[kind] = append(rules, m[kind]...)
	}
	return m
}

// sysname HOSTNAME
func sysname(l *dialect.Line) (bool, error) {
	if l.Neg {
		return dialect.Pass()
	}
	l.C.Hostname = l.W[1]
	return dialect.Done()
}

// [undo] interface NAME: enter the interface view; undo deletes a logical
// interface.
func interfaceView(l *dialect.Line) (bool, error) {
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

// [undo] vlan batch LIST
func vlanBatch(l *dialect.Line) (bool, error) {
	ids, err := dialect.ParseVLANList(l.W[2:])
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
	return dialect.Done()
}

// [undo] vlan ID: enter the VLAN view.
func vlanView(l *dialect.Line) (bool, error) {
	id, err := strconv.Atoi(l.W[1])
	if err != nil {
		return l.Bad("VLAN id must be a number")
	}
	if l.Neg {
		l.C.RemoveVLAN(id)
		return dialect.Done()
	}
	l.C.VLAN(id)
	l.S.Enter(dialect.Mode{Kind: "vlan", VLAN: id})
	return dialect.Done()
}

// [undo] ip vpn-instance NAME: enter the VPN instance view.
func vpnInstance(l *dialect.Line) (bool, error) {
	if l.Neg {
		l.C.RemoveVRF(l.W[2])
		return dialect.Done()
	}
	l.C.VRF(l.W[2])
	l.S.Enter(dialect.Mode{Kind: "vrf", Name: l.W[2]})
	return dialect.Done()
}

// [undo] acl [name|number] NAME: enter the ACL view.
func aclView(l *dialect.Line) (bool, error) {
	name := l.W[1]
	if (name == "name" || name == "number") && len(l.W) >= 3 {
		name = l.W[2]
	}
	if l.Neg {
		l.C.RemoveACL(name)
		return dialect.Done()
	}
	l.C.ACL(name)
	l.S.Enter(dialect.Mode{Kind: "acl", Name: name})
	return dialect.Done()
}

// [undo] ip|ipv6 route-static ...
func staticRoute(l *dialect.Line) (bool, error) {
	r, err := parseStaticRoute(l.W[0] == "ipv6", l.W[2:], l.Neg)
	if err != nil {
		return l.Fail(err)
	}
	return l.ChangeRoute(r)
}

// [undo] snmp-agent community ... NAME
func community(l *dialect.Line) (bool, error) {
	l.C.SetCommunity(l.W[len(l.W)-1], l.Neg)
	return dialect.Done()
}

// [undo] name|description TEXT in the VLAN view.
func vlanName(l *dialect.Line) (bool, error) {
	v := l.C.VLAN(l.M.VLAN)
	v.Name = ""
	if !l.Neg {
		v.Name = strings.Join(l.W[1:], " ")
	}
	return dialect.Done()
}

// [undo] route-distinguisher RD in the VPN instance view.
func vrfRD(l *dialect.Line) (bool, error) {
	l.C.VRF(l.M.Name).RD = l.W[1]
	if l.Neg {
		l.C.VRF(l.M.Name).RD = ""
	}
	return dialect.Done()
}

// [undo] local-user NAME password|user-group|service-type|privilege|level ...
func localUser(l *dialect.Line) (bool, error) {
	w := l.W
	name := w[1]
	if l.Neg && len(w) == 2 {
		l.C.RemoveUser(name)
		return dialect.Done()
	}
	u := l.C.User(name)
	switch {
	case len(w) >= 4 && w[2] == "password":
		u.Password = w[len(w)-1]
	case len(w) == 4 && w[2] == "user-group":
		u.Role = w[3]
	case len(w) >= 3 && (w[2] == "service-type" || w[2] == "privilege" || w[2] == "level"):
	default:
		return l.Bad("expected password, user-group or service-type")
	}
	return dialect.Done()
}

// iface is the interface of the interface view.
func iface(l *dialect.Line) *topology.Interface { return l.C.Iface(l.M.Name, true) }

// [undo] description TEXT
func ifDescription(l *dialect.Line) (bool, error) {
	it := iface(l)
	it.Description = ""
	if !l.Neg {
		it.Description = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l.Text), "description"))
	}
	return dialect.Done()
}

// [undo] mtu N
func ifMTU(l *dialect.Line) (bool, error) {
	it := iface(l)
	it.MTU = 0
	if l.Neg {
		return dialect.Done()
	}
	n, err := strconv.Atoi(l.W[1])
	if err != nil || n < 46 || n > 65535 {
		return l.Bad("MTU must be 46..65535")
	}
	it.MTU = n
	return dialect.Done()
}

// [undo] shutdown
func ifShutdown(l *dialect.Line) (bool, error) {
	iface(l).Shutdown = !l.Neg
	return dialect.Done()
}

// ifAddress is [undo] ip address A M|LEN [sub], or (v6) ipv6 address X/LEN.
func ifAddress(v6 bool, usage string) func(l *dialect.Line) (bool, error) {
	secondary := "sub"
	if v6 {
		secondary = ""
	}
	return func(l *dialect.Line) (bool, error) {
		if !dialect.EditAddress(iface(l), l.W[2:], l.Neg, v6, secondary) {
			return l.Bad(usage)
		}
		return dialect.Done()
	}
}

// [undo] ip binding vpn-instance NAME; binding clears the interface's IP
// addresses, as VRP does.
func ifBinding(l *dialect.Line) (bool, error) {
	it := iface(l)
	it.VRF = ""
	if l.Neg {
		return dialect.Done()
	}
	if !l.C.HasVRF(l.W[3]) {
		return l.Bad("vpn-instance " + l.W[3] + " does not exist")
	}
	it.VRF = l.W[3]
	dialect.RemoveAddress(it, netip.Prefix{}, false)
	dialect.RemoveAddress(it, netip.Prefix{}, true)
	return dialect.Done()
}

// port link-type access|trunk|hybrid
func ifLinkType(l *dialect.Line) (bool, error) {
	it := iface(l)
	switch l.W[2] {
	case "access":
		it.TrunkVLANs = nil
	case "trunk", "hybrid":
		it.AccessVLAN = 0
	default:
		return l.Bad("link-type must be access, trunk or hybrid")
	}
	return dialect.Done()
}

// [undo] port default vlan N
func ifDefaultVLAN(l *dialect.Line) (bool, error) {
	it := iface(l)
	it.AccessVLAN = 0
	if l.Neg {
		return dialect.Done()
	}
	if len(l.W) != 4 {
		return l.Bad("expected port default vlan N")
	}
	n, err := strconv.Atoi(l.W[3])
	if err != nil {
		return l.Bad("VLAN id must be a number")
	}
	it.AccessVLAN, it.TrunkVLANs = n, nil
	return dialect.Done()
}

// [undo] port trunk allow-pass vlan LIST
func ifTrunkVLANs(l *dialect.Line) (bool, error) {
	it := iface(l)
	ids, err := dialect.ParseVLANList(l.W[4:])
	if err != nil {
		return l.Fail(err)
	}
	for _, id := range ids {
		if l.Neg {
			it.TrunkVLANs = slices.DeleteFunc(it.TrunkVLANs, func(v int) bool { return v == id })
		} else if !slices.Contains(it.TrunkVLANs, id) {
			it.TrunkVLANs = append(it.TrunkVLANs, id)
		}
	}
	slices.Sort(it.TrunkVLANs)
	it.AccessVLAN = 0
	return dialect.Done()
}

// [undo] traffic-filter inbound|outbound acl [name] ACL
func ifTrafficFilter(l *dialect.Line) (bool, error) {
	it := iface(l)
	w := l.W
	name := ""
	if !l.Neg {
		if len(w) < 4 || w[2] != "acl" {
			return l.Bad("expected traffic-filter inbound|outbound acl [name] ACL")
		}
		name = w[len(w)-1]
		if !l.C.HasACL(name) {
			return l.Bad("ACL " + name + " does not exist")
		}
	}
	if w[1] == "inbound" {
		it.IngressACL = name
	} else {
		it.EgressACL = name
	}
	return dialect.Done()
}

// parseStaticRoute parses "[vpn-instance V] DEST MASK|LEN {NEXTHOP | IFNAME
// [NEXTHOP] | NULL0} [preference N] [description ...]".
func parseStaticRoute(v6 bool, w []string, undo bool) (topology.StaticRoute, error) {
	var r topology.StaticRoute
	if len(w) >= 2 && w[0] == "vpn-instance" {
		r.VRF, w = w[1], w[2:]
	}
	if len(w) < 2 {
		return r, fmt.Errorf("expected destination and mask")
	}
	a, err := netip.ParseAddr(w[0])
	if err != nil || a.Is6() != v6 {
		return r, fmt.Errorf("bad destination %q", w[0])
	}
	bits, err := dialect.MaskBits(w[1], a.Is4(), false)
	if err != nil {
		return r, err
	}
	r.Prefix = netip.PrefixFrom(a, bits).Masked().String()
	if err := routeTail(&r, v6, w[2:]); err != nil {
		return r, err
	}
	if !undo && !r.Discard && r.NextHop == "" && r.Interface == "" {
		return r, fmt.Errorf("missing next hop")
	}
	return r, nil
}

// routeTail reads what follows a static route's destination: next hop,
// interface, NULL0, preference and description.
func routeTail(r *topology.StaticRoute, v6 bool, w []string) error {
	for i := 0; i < len(w); i++ {
		switch {
		case w[i] == "preference" && i+1 < len(w):
			n, err := strconv.Atoi(w[i+1])
			if err != nil || n < 1 || n > 255 {
				return fmt.Errorf("preference must be 1..255")
			}
			r.Distance = n
			i++
		case w[i] == "description":
			i = len(w)
		case dialect.IsNull(w[i]):
			r.Discard = true
		default:
			if nh, err := netip.ParseAddr(w[i]); err == nil {
				if nh.Is6() != v6 {
					return fmt.Errorf("next hop %s is not of the destination's family", w[i])
				}
				r.NextHop = nh.String()
			} else {
				r.Interface = w[i]
			}
		}
	}
	return nil
}

// aclRule parses "rule [ID] permit|deny [PROTO] [source A W|any]
// [destination A W|any] [destination-port eq N] [source-port eq N]";
// PROTO is ip, icmp, tcp, udp, ospf or arp. undo rule ID deletes a rule.
func aclRule(l *dialect.Line) (bool, error) {
	a := l.C.ACL(l.M.Name)
	w := l.W[1:]
	r := topology.ACLEntry{Protocol: "ip"}
	if len(w) > 0 {
		if n, err := strconv.Atoi(w[0]); err == nil {
			r.Seq, w = n, w[1:]
		}
	}
	if l.Neg {
		if r.Seq == 0 {
			return l.Bad("expected undo rule ID")
		}
		dialect.RemoveRule(a, r.Seq)
		return dialect.Done()
	}
	if len(w) == 0 || (w[0] != "permit" && w[0] != "deny") {
		return l.Bad("expected rule [ID] permit|deny ...")
	}
	r.Action, w = w[0], w[1:]
	if len(w) > 0 && slices.Contains([]string{"ip", "icmp", "tcp", "udp", "ospf", "arp"}, w[0]) {
		r.Protocol, w = w[0], w[1:]
	}
	for len(w) > 0 {
		used, err := ruleMatch(&r, w)
		if err != nil {
			return l.Fail(err)
		}
		w = w[used:]
	}
	dialect.SetRule(a, r, 5)
	return dialect.Done()
}

// ruleMatch reads one match of a rule at w into r: "source|destination A
// W|any" or "destination-port|source-port eq N". It returns the words used.
func ruleMatch(r *topology.ACLEntry, w []string) (int, error) {
	switch {
	case (w[0] == "source" || w[0] == "destination") && len(w) >= 2:
		p, used := "", 2
		if w[1] != "any" {
			pp, n, err := dialect.ParseWildcard(w, 1)
			if err != nil {
				return 0, err
			}
			p, used = pp, 1+n
		}
		if w[0] == "source" {
			r.Source = p
		} else {
			r.Destination = p
		}
		return used, nil
	case (w[0] == "destination-port" || w[0] == "source-port") && len(w) >= 3 && w[1] == "eq":
		if r.Protocol != "tcp" && r.Protocol != "udp" {
			return 0, fmt.Errorf("a port needs protocol tcp or udp")
		}
		n, err := strconv.Atoi(w[2])
		if err != nil || n < 1 || n > 65535 {
			return 0, fmt.Errorf("port must be a number 1-65535")
		}
		if w[0] == "source-port" {
			r.SrcPort = n
		} else {
			r.DstPort = n
		}
		return 3, nil
	}
	return 0, fmt.Errorf("unexpected %s", w[0])
}
