package sim

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/lab/topology"
)

// vrpConfigLine parses one huawei-vrp configuration line in mode m.
func vrpConfigLine(s *cfgSession, m mode, w []string, line string) (bool, error) {
	c := s.c
	undo := w[0] == "undo"
	if undo {
		w = w[1:]
		if len(w) == 0 {
			return false, nil
		}
	}
	bad := func(why string) (bool, error) { return true, badArgs(s.dialect, line, why) }
	switch w[0] {
	case "quit":
		s.exit()
		return true, nil
	case "return":
		s.top()
		return true, nil
	case "system-view":
		return true, nil
	}
	if handled, err := vrpRoutingLine(s, m, w, undo, line); handled || err != nil { // OSPF, BGP
		return handled, err
	}
	switch m.kind {
	case "top":
		switch {
		case w[0] == "sysname" && len(w) == 2 && !undo:
			c.hostname = w[1]
		case w[0] == "interface" && len(w) >= 2:
			name := strings.Join(w[1:], "")
			if undo {
				if guessType(name) == "ethernetCsmacd" {
					return bad("a physical interface cannot be deleted")
				}
				if !c.removeInterface(name) {
					return bad("no such interface")
				}
				return true, nil
			}
			s.enter(mode{kind: "interface", name: c.iface(name, true).Name})
		case w[0] == "vlan" && len(w) >= 2 && w[1] == "batch":
			ids, err := parseVLANList(w[2:])
			if err != nil {
				return bad(err.Error())
			}
			for _, id := range ids {
				if undo {
					c.dev.VLANs = slices.DeleteFunc(c.dev.VLANs, func(v topology.VLAN) bool { return v.ID == id })
				} else {
					c.vlan(id)
				}
			}
		case w[0] == "vlan" && len(w) == 2:
			id, err := strconv.Atoi(w[1])
			if err != nil {
				return bad("VLAN id must be a number")
			}
			if undo {
				c.dev.VLANs = slices.DeleteFunc(c.dev.VLANs, func(v topology.VLAN) bool { return v.ID == id })
				return true, nil
			}
			c.vlan(id)
			s.enter(mode{kind: "vlan", vlan: id})
		case len(w) == 3 && w[0] == "ip" && w[1] == "vpn-instance":
			if undo {
				c.dev.VRFs = slices.DeleteFunc(c.dev.VRFs, func(v topology.VRF) bool { return v.Name == w[2] })
				return true, nil
			}
			c.vrf(w[2])
			s.enter(mode{kind: "vrf", name: w[2]})
		case w[0] == "acl" && len(w) >= 2:
			name := w[1]
			if (name == "name" || name == "number") && len(w) >= 3 {
				name = w[2]
			}
			if undo {
				c.dev.ACLs = slices.DeleteFunc(c.dev.ACLs, func(a topology.ACL) bool { return a.Name == name })
				return true, nil
			}
			c.acl(name)
			s.enter(mode{kind: "acl", name: name})
		case (w[0] == "ip" || w[0] == "ipv6") && len(w) >= 2 && w[1] == "route-static":
			r, err := vrpStaticRoute(w[0] == "ipv6", w[2:], undo)
			if err != nil {
				return bad(err.Error())
			}
			return routeChange(s, r, undo, line)
		case w[0] == "aaa" && len(w) == 1:
			s.enter(mode{kind: "aaa"})
		case w[0] == "snmp-agent" && len(w) >= 3 && w[1] == "community":
			name := w[len(w)-1]
			if undo {
				c.dev.SNMPCommunities = slices.DeleteFunc(c.dev.SNMPCommunities, func(x string) bool { return x == name })
			} else if !slices.Contains(c.dev.SNMPCommunities, name) {
				c.dev.SNMPCommunities = append(c.dev.SNMPCommunities, name)
			}
		default:
			return false, nil
		}
		return true, nil
	case "interface":
		return vrpInterfaceLine(s, c.iface(m.name, true), w, undo, line)
	case "vlan":
		if (w[0] == "name" || w[0] == "description") && (undo || len(w) >= 2) {
			v := c.vlan(m.vlan)
			v.Name = ""
			if !undo {
				v.Name = strings.Join(w[1:], " ")
			}
			return true, nil
		}
	case "vrf":
		switch {
		case w[0] == "route-distinguisher" && len(w) == 2:
			c.vrf(m.name).RD = w[1]
			if undo {
				c.vrf(m.name).RD = ""
			}
			return true, nil
		case w[0] == "ipv4-family" || w[0] == "ipv6-family":
			return true, nil
		}
	case "acl":
		if w[0] == "rule" {
			return vrpRule(s, c.acl(m.name), w[1:], undo, line)
		}
	case "aaa":
		if w[0] == "local-user" && len(w) >= 2 {
			name := w[1]
			if undo && len(w) == 2 {
				c.dev.Users = slices.DeleteFunc(c.dev.Users, func(u topology.User) bool { return u.Name == name })
				return true, nil
			}
			u := c.user(name)
			switch {
			case len(w) >= 4 && w[2] == "password":
				u.Password = w[len(w)-1]
			case len(w) == 4 && w[2] == "user-group":
				u.Role = w[3]
			case len(w) >= 3 && (w[2] == "service-type" || w[2] == "privilege" || w[2] == "level"):
			default:
				return bad("expected password, user-group or service-type")
			}
			return true, nil
		}
	}
	return false, nil
}

func vrpInterfaceLine(s *cfgSession, it *topology.Interface, w []string, undo bool, line string) (bool, error) {
	bad := func(why string) (bool, error) { return true, badArgs(s.dialect, line, why) }
	switch {
	case w[0] == "description":
		it.Description = ""
		if !undo {
			it.Description = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "description"))
		}
	case w[0] == "mtu" && (undo || len(w) == 2):
		it.MTU = 0
		if !undo {
			n, err := strconv.Atoi(w[1])
			if err != nil || n < 46 || n > 65535 {
				return bad("MTU must be 46..65535")
			}
			it.MTU = n
		}
	case w[0] == "shutdown" && len(w) == 1:
		it.Shutdown = !undo
	case w[0] == "ip" && len(w) >= 2 && w[1] == "address":
		if !editAddress(it, w[2:], undo, false, "sub") {
			return bad("expected ip address A.B.C.D MASK|LENGTH")
		}
	case w[0] == "ipv6" && len(w) == 2 && w[1] == "enable":
	case w[0] == "ipv6" && len(w) >= 2 && w[1] == "address":
		if !editAddress(it, w[2:], undo, true, "") {
			return bad("expected ipv6 address X:X::X/LENGTH")
		}
	case w[0] == "ip" && len(w) == 4 && w[1] == "binding" && w[2] == "vpn-instance":
		it.VRF = ""
		if !undo {
			if !slices.ContainsFunc(s.c.dev.VRFs, func(v topology.VRF) bool { return v.Name == w[3] }) {
				return bad("vpn-instance " + w[3] + " does not exist")
			}
			it.VRF = w[3]
			// binding a VPN instance clears the interface's IP addresses, as VRP does
			removeAddress(it, netip.Prefix{}, false)
			removeAddress(it, netip.Prefix{}, true)
		}
	case w[0] == "portswitch":
	case w[0] == "port" && len(w) == 3 && w[1] == "link-type":
		switch w[2] {
		case "access":
			it.TrunkVLANs = nil
		case "trunk", "hybrid":
			it.AccessVLAN = 0
		default:
			return bad("link-type must be access, trunk or hybrid")
		}
	case w[0] == "port" && len(w) >= 3 && w[1] == "default" && w[2] == "vlan":
		it.AccessVLAN = 0
		if !undo {
			if len(w) != 4 {
				return bad("expected port default vlan N")
			}
			n, err := strconv.Atoi(w[3])
			if err != nil {
				return bad("VLAN id must be a number")
			}
			it.AccessVLAN, it.TrunkVLANs = n, nil
		}
	case w[0] == "port" && len(w) >= 4 && w[1] == "trunk" && w[2] == "allow-pass" && w[3] == "vlan":
		ids, err := parseVLANList(w[4:])
		if err != nil {
			return bad(err.Error())
		}
		for _, id := range ids {
			if undo {
				it.TrunkVLANs = slices.DeleteFunc(it.TrunkVLANs, func(v int) bool { return v == id })
			} else if !slices.Contains(it.TrunkVLANs, id) {
				it.TrunkVLANs = append(it.TrunkVLANs, id)
			}
		}
		slices.Sort(it.TrunkVLANs)
		it.AccessVLAN = 0
	case w[0] == "traffic-filter" && len(w) >= 2 && (w[1] == "inbound" || w[1] == "outbound"):
		name := ""
		if !undo {
			if len(w) < 4 || w[2] != "acl" {
				return bad("expected traffic-filter inbound|outbound acl [name] ACL")
			}
			name = w[len(w)-1]
			if !slices.ContainsFunc(s.c.dev.ACLs, func(a topology.ACL) bool { return a.Name == name }) {
				return bad("ACL " + name + " does not exist")
			}
		}
		if w[1] == "inbound" {
			it.IngressACL = name
		} else {
			it.EgressACL = name
		}
	default:
		return false, nil
	}
	return true, nil
}

// vrpStaticRoute parses "[vpn-instance V] DEST MASK|LEN {NEXTHOP | IFNAME
// [NEXTHOP] | NULL0} [preference N] [description ...]".
func vrpStaticRoute(v6 bool, w []string, undo bool) (topology.StaticRoute, error) {
	var r topology.StaticRoute
	if len(w) >= 2 && w[0] == "vpn-instance" {
		r.VRF, w = w[1], w[2:]
	}
	if len(w) < 2 {
		return r, errf("expected destination and mask")
	}
	a, err := netip.ParseAddr(w[0])
	if err != nil || a.Is6() != v6 {
		return r, errf("bad destination %q", w[0])
	}
	bits, err := maskBits(w[1], a.Is4(), false)
	if err != nil {
		return r, err
	}
	r.Prefix = netip.PrefixFrom(a, bits).Masked().String()
	w = w[2:]
	for i := 0; i < len(w); i++ {
		switch {
		case w[i] == "preference" && i+1 < len(w):
			n, err := strconv.Atoi(w[i+1])
			if err != nil || n < 1 || n > 255 {
				return r, errf("preference must be 1..255")
			}
			r.Distance = n
			i++
		case w[i] == "description":
			i = len(w)
		case isNull(w[i]):
			r.Discard = true
		default:
			if nh, err := netip.ParseAddr(w[i]); err == nil {
				if nh.Is6() != v6 {
					return r, errf("next hop %s is not of the destination's family", w[i])
				}
				r.NextHop = nh.String()
			} else {
				r.Interface = w[i]
			}
		}
	}
	if !undo && !r.Discard && r.NextHop == "" && r.Interface == "" {
		return r, errf("missing next hop")
	}
	return r, nil
}

// vrpRule parses "[ID] permit|deny [PROTO] [source A W|any] [destination
// A W|any] [destination-port eq N] [source-port eq N]"; PROTO is ip, icmp,
// tcp, udp, ospf or arp.
func vrpRule(s *cfgSession, a *topology.ACL, w []string, undo bool, line string) (bool, error) {
	bad := func(why string) (bool, error) { return true, badArgs(s.dialect, line, why) }
	r := topology.ACLEntry{Protocol: "ip"}
	if len(w) > 0 {
		if n, err := strconv.Atoi(w[0]); err == nil {
			r.Seq, w = n, w[1:]
		}
	}
	if undo {
		if r.Seq == 0 {
			return bad("expected undo rule ID")
		}
		a.Rules = slices.DeleteFunc(a.Rules, func(e topology.ACLEntry) bool { return e.Seq == r.Seq })
		return true, nil
	}
	if len(w) == 0 || (w[0] != "permit" && w[0] != "deny") {
		return bad("expected rule [ID] permit|deny ...")
	}
	r.Action, w = w[0], w[1:]
	if len(w) > 0 && slices.Contains([]string{"ip", "icmp", "tcp", "udp", "ospf", "arp"}, w[0]) {
		r.Protocol, w = w[0], w[1:]
	}
	for len(w) > 0 {
		switch {
		case (w[0] == "source" || w[0] == "destination") && len(w) >= 2:
			side, p, used := w[0], "", 2
			if w[1] != "any" {
				pp, n, err := parseWildcard(w, 1)
				if err != nil {
					return bad(err.Error())
				}
				p, used = pp, 1+n
			}
			if side == "source" {
				r.Source = p
			} else {
				r.Destination = p
			}
			w = w[used:]
		case (w[0] == "destination-port" || w[0] == "source-port") && len(w) >= 3 && w[1] == "eq":
			if r.Protocol != "tcp" && r.Protocol != "udp" {
				return bad("a port needs protocol tcp or udp")
			}
			n, err := strconv.Atoi(w[2])
			if err != nil || n < 1 || n > 65535 {
				return bad("port must be a number 1-65535")
			}
			if w[0] == "source-port" {
				r.SrcPort = n
			} else {
				r.DstPort = n
			}
			w = w[3:]
		default:
			return bad("unexpected " + w[0])
		}
	}
	setRule(a, r, 5)
	return true, nil
}
