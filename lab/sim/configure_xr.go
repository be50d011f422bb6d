package sim

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/lab/topology"
)

// xrConfigLine parses one cisco-iosxr configuration line in mode m. A few
// IOS forms (ip address, ip route, switchport, vlan) are accepted too.
func xrConfigLine(s *cfgSession, m mode, w []string, line string) (bool, error) {
	c := s.c
	no := w[0] == "no"
	if no {
		w = w[1:]
		if len(w) == 0 {
			return false, nil
		}
	}
	bad := func(why string) (bool, error) { return true, badArgs(s.dialect, line, why) }
	switch w[0] {
	case "exit":
		s.exit()
		return true, nil
	case "root", "end":
		s.top()
		return true, nil
	case "configure":
		return true, nil
	}
	if handled, err := xrRoutingLine(s, m, w, no, line); handled || err != nil { // OSPF, BGP
		return handled, err
	}
	switch m.kind {
	case "top":
		switch {
		case w[0] == "hostname" && len(w) == 2:
			c.hostname = w[1]
		case w[0] == "interface" && len(w) >= 2:
			name := strings.Join(w[1:], "")
			if no {
				if guessType(name) == "ethernetCsmacd" {
					return bad("a physical interface cannot be deleted")
				}
				if !c.removeInterface(name) {
					return bad("no such interface")
				}
				return true, nil
			}
			s.enter(mode{kind: "interface", name: c.iface(name, true).Name})
		case w[0] == "vlan" && len(w) == 2:
			ids, err := parseVLANList(w[1:])
			if err != nil {
				return bad(err.Error())
			}
			for _, id := range ids {
				if no {
					c.dev.VLANs = slices.DeleteFunc(c.dev.VLANs, func(v topology.VLAN) bool { return v.ID == id })
				} else {
					c.vlan(id)
				}
			}
			if !no && len(ids) == 1 {
				s.enter(mode{kind: "vlan", vlan: ids[0]})
			}
		case w[0] == "vrf" && len(w) == 2:
			if no {
				c.dev.VRFs = slices.DeleteFunc(c.dev.VRFs, func(v topology.VRF) bool { return v.Name == w[1] })
				return true, nil
			}
			c.vrf(w[1])
			s.enter(mode{kind: "vrf", name: w[1]})
		case (w[0] == "ipv4" || w[0] == "ip" || w[0] == "ipv6") && len(w) >= 3 && w[1] == "access-list":
			name := w[len(w)-1]
			if no {
				c.dev.ACLs = slices.DeleteFunc(c.dev.ACLs, func(a topology.ACL) bool { return a.Name == name })
				return true, nil
			}
			c.acl(name)
			s.enter(mode{kind: "acl", name: name})
		case w[0] == "router" && len(w) == 2 && w[1] == "static":
			if no {
				c.dev.Routes = nil
				return true, nil
			}
			s.enter(mode{kind: "static"})
		case (w[0] == "ip" || w[0] == "ipv6") && len(w) >= 2 && w[1] == "route":
			r, err := iosRoute(w[0] == "ipv6", w[2:], no)
			if err != nil {
				return bad(err.Error())
			}
			return routeChange(s, r, no, line)
		case w[0] == "username" && len(w) == 2:
			if no {
				c.dev.Users = slices.DeleteFunc(c.dev.Users, func(u topology.User) bool { return u.Name == w[1] })
				return true, nil
			}
			c.user(w[1])
			s.enter(mode{kind: "user", name: w[1]})
		case w[0] == "snmp-server" && len(w) >= 3 && w[1] == "community":
			name := w[2]
			if no {
				c.dev.SNMPCommunities = slices.DeleteFunc(c.dev.SNMPCommunities, func(x string) bool { return x == name })
			} else if !slices.Contains(c.dev.SNMPCommunities, name) {
				c.dev.SNMPCommunities = append(c.dev.SNMPCommunities, name)
			}
		default:
			return false, nil
		}
		return true, nil
	case "interface":
		return xrInterfaceLine(s, c.iface(m.name, true), w, no, line)
	case "vlan":
		if w[0] == "name" && (no || len(w) >= 2) {
			v := c.vlan(m.vlan)
			v.Name = ""
			if !no {
				v.Name = strings.Join(w[1:], " ")
			}
			return true, nil
		}
	case "vrf":
		switch {
		case w[0] == "rd" && len(w) == 2:
			c.vrf(m.name).RD = w[1]
			if no {
				c.vrf(m.name).RD = ""
			}
			return true, nil
		case w[0] == "address-family" || w[0] == "description":
			return true, nil
		}
	case "acl":
		return xrACE(s, c.acl(m.name), w, no, line)
	case "user":
		u := c.user(m.name)
		switch {
		case w[0] == "group" && len(w) == 2:
			u.Role = w[1]
			if no {
				u.Role = ""
			}
			return true, nil
		case (w[0] == "secret" || w[0] == "password") && len(w) >= 2:
			u.Password = w[len(w)-1]
			return true, nil
		}
	case "static", "static-vrf":
		switch {
		case w[0] == "address-family" && len(w) >= 2 && (w[1] == "ipv4" || w[1] == "ipv6"):
			s.enter(mode{kind: m.kind + "-af", v6: w[1] == "ipv6", vrf: m.vrf})
			return true, nil
		case w[0] == "vrf" && len(w) == 2 && m.kind == "static":
			if no {
				c.dev.Routes = slices.DeleteFunc(c.dev.Routes, func(r topology.StaticRoute) bool { return r.VRF == w[1] })
				return true, nil
			}
			s.enter(mode{kind: "static-vrf", vrf: w[1]})
			return true, nil
		}
	case "static-af", "static-vrf-af":
		if strings.Contains(w[0], "/") {
			r, err := xrStaticRoute(m.v6, w, no)
			if err != nil {
				return bad(err.Error())
			}
			r.VRF = m.vrf
			return routeChange(s, r, no, line)
		}
	}
	return false, nil
}

func xrInterfaceLine(s *cfgSession, it *topology.Interface, w []string, no bool, line string) (bool, error) {
	bad := func(why string) (bool, error) { return true, badArgs(s.dialect, line, why) }
	switch {
	case w[0] == "description":
		it.Description = ""
		if !no {
			it.Description = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "description"))
		}
	case w[0] == "mtu" && (no || len(w) == 2):
		it.MTU = 0
		if !no {
			n, err := strconv.Atoi(w[1])
			if err != nil || n < 64 || n > 65535 {
				return bad("MTU must be 64..65535")
			}
			it.MTU = n
		}
	case w[0] == "shutdown" && len(w) == 1:
		it.Shutdown = !no
	case (w[0] == "ipv4" || w[0] == "ip") && len(w) >= 2 && w[1] == "address":
		if !editAddress(it, w[2:], no, false, "secondary") {
			return bad("expected ipv4 address A.B.C.D MASK or A.B.C.D/LENGTH")
		}
	case w[0] == "ipv6" && len(w) == 2 && w[1] == "enable":
	case w[0] == "ipv6" && len(w) >= 2 && w[1] == "address":
		if !editAddress(it, w[2:], no, true, "") {
			return bad("expected ipv6 address X:X::X/LENGTH")
		}
	case w[0] == "vrf" && (no || len(w) == 2):
		it.VRF = ""
		if !no {
			if !slices.ContainsFunc(s.c.dev.VRFs, func(v topology.VRF) bool { return v.Name == w[1] }) {
				return bad("VRF " + w[1] + " is not configured")
			}
			it.VRF = w[1]
		}
	case (w[0] == "ipv4" || w[0] == "ip" || w[0] == "ipv6") && len(w) >= 3 && w[1] == "access-group":
		dir := "ingress"
		if len(w) >= 4 && (w[3] == "egress" || w[3] == "out") {
			dir = "egress"
		}
		name := w[2]
		if no {
			name = ""
		} else if !slices.ContainsFunc(s.c.dev.ACLs, func(a topology.ACL) bool { return a.Name == name }) {
			return bad("access-list " + name + " is not configured")
		}
		if dir == "ingress" {
			it.IngressACL = name
		} else {
			it.EgressACL = name
		}
	case w[0] == "switchport" && len(w) == 3 && w[1] == "mode":
		if w[2] == "access" {
			it.TrunkVLANs = nil
		} else {
			it.AccessVLAN = 0
		}
	case w[0] == "switchport" && len(w) >= 3 && w[1] == "access" && w[2] == "vlan":
		it.AccessVLAN = 0
		if !no {
			if len(w) != 4 {
				return bad("expected switchport access vlan N")
			}
			n, err := strconv.Atoi(w[3])
			if err != nil {
				return bad("VLAN id must be a number")
			}
			it.AccessVLAN, it.TrunkVLANs = n, nil
		}
	case w[0] == "switchport" && len(w) >= 5 && w[1] == "trunk" && w[2] == "allowed" && w[3] == "vlan":
		ids, err := parseVLANList(w[4:])
		if err != nil {
			return bad(err.Error())
		}
		it.TrunkVLANs, it.AccessVLAN = ids, 0
		if no {
			it.TrunkVLANs = nil
		}
	default:
		return false, nil
	}
	return true, nil
}

// xrStaticRoute parses "PFX/LEN [IFNAME] [NEXTHOP] [DISTANCE]".
func xrStaticRoute(v6 bool, w []string, no bool) (topology.StaticRoute, error) {
	var r topology.StaticRoute
	p, err := netip.ParsePrefix(w[0])
	if err != nil || p.Addr().Is6() != v6 {
		return r, errf("bad prefix %q for this address family", w[0])
	}
	r.Prefix = p.Masked().String()
	return routeTail(r, v6, w[1:], no)
}

// iosRoute parses "[vrf V] A M|A/LEN NEXTHOP|IFNAME [DISTANCE]" (IOS ip route).
func iosRoute(v6 bool, w []string, no bool) (topology.StaticRoute, error) {
	var r topology.StaticRoute
	if len(w) >= 2 && w[0] == "vrf" {
		r.VRF, w = w[1], w[2:]
	}
	p, used, err := parseAddrMask(w, 0)
	if err != nil || p.Addr().Is6() != v6 {
		return r, errf("expected destination and mask")
	}
	r.Prefix = p.Masked().String()
	return routeTail(r, v6, w[used:], no)
}

func routeTail(r topology.StaticRoute, v6 bool, w []string, no bool) (topology.StaticRoute, error) {
	for _, t := range w {
		if nh, err := netip.ParseAddr(t); err == nil {
			if nh.Is6() != v6 {
				return r, errf("next hop %s is not of the destination's family", t)
			}
			r.NextHop = nh.String()
		} else if n, err := strconv.Atoi(t); err == nil {
			if n < 1 || n > 254 {
				return r, errf("distance must be 1..254")
			}
			r.Distance = n
		} else if isNull(t) {
			r.Discard = true
		} else if t == "description" || t == "tag" {
			break
		} else {
			r.Interface = t
		}
	}
	if !no && !r.Discard && r.NextHop == "" && r.Interface == "" {
		return r, errf("missing next hop")
	}
	return r, nil
}

// xrACE parses "[SEQ] permit|deny PROTO SRC [eq PORT] DST [eq PORT]" or
// "no SEQ"; PROTO is ipv4 (ipv6), icmp, tcp, udp, ospf or arp.
func xrACE(s *cfgSession, a *topology.ACL, w []string, no bool, line string) (bool, error) {
	bad := func(why string) (bool, error) { return true, badArgs(s.dialect, line, why) }
	r := topology.ACLEntry{}
	if n, err := strconv.Atoi(w[0]); err == nil {
		r.Seq, w = n, w[1:]
	}
	if no {
		if r.Seq == 0 || len(w) != 0 {
			return bad("expected no SEQUENCE")
		}
		a.Rules = slices.DeleteFunc(a.Rules, func(e topology.ACLEntry) bool { return e.Seq == r.Seq })
		return true, nil
	}
	if len(w) == 0 || (w[0] != "permit" && w[0] != "deny") {
		if r.Seq == 0 && len(w) > 0 && w[0] != "remark" {
			return false, nil
		}
		return bad("expected [SEQ] permit|deny PROTOCOL SOURCE DESTINATION")
	}
	r.Action = w[0]
	if len(w) < 4 {
		return bad("expected permit|deny PROTOCOL SOURCE DESTINATION")
	}
	switch w[1] {
	case "ipv4", "ip", "ipv6":
		r.Protocol = "ip"
	case "icmp", "tcp", "udp", "icmpv6", "ospf", "arp":
		r.Protocol = strings.TrimSuffix(w[1], "v6")
	default:
		return bad("protocol must be ipv4, icmp, tcp, udp, ospf or arp")
	}
	w = w[2:]
	sides := []struct {
		addr *string
		port *int
	}{{&r.Source, &r.SrcPort}, {&r.Destination, &r.DstPort}}
	for _, side := range sides {
		if len(w) == 0 {
			return bad("missing address")
		}
		if w[0] == "any" {
			w = w[1:]
		} else {
			p, used, err := parseWildcard(w, 0)
			if err != nil {
				return bad(err.Error())
			}
			*side.addr, w = p, w[used:]
		}
		if len(w) >= 2 && w[0] == "eq" {
			if r.Protocol != "tcp" && r.Protocol != "udp" {
				return bad("a port needs protocol tcp or udp")
			}
			n, err := strconv.Atoi(w[1])
			if err != nil || n < 1 || n > 65535 {
				return bad("port must be a number 1-65535")
			}
			*side.port, w = n, w[2:]
		}
	}
	if len(w) != 0 {
		return bad("unexpected " + strings.Join(w, " "))
	}
	setRule(a, r, 10)
	return true, nil
}
