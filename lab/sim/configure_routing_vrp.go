package sim

import (
	"net/netip"
	"strings"

	"github.com/netmcp/netmcp/lab/topology"
)

// vrpRoutingLine parses the huawei-vrp OSPF and BGP configuration lines:
//
//	ospf [1] [router-id X]            area A / network A W / silent-interface IF /
//	                                  import-route SRC / default-route-advertise [always] /
//	                                  bandwidth-reference N
//	interface IF: ospf enable [1] area A, ospf cost N, ospf network-type p2p|broadcast,
//	              ospf timer hello|dead N, ospf dr-priority N, [undo] ospf mtu-enable
//	bgp ASN                           router-id X / timer keepalive K hold H /
//	                                  peer X as-number N / peer X description D /
//	                                  peer X connect-interface IF / peer X ebgp-max-hop [N] /
//	                                  peer X password cipher|simple P / peer X ignore
//	 ipv4-family unicast              network A M|LEN / import-route SRC / peer X enable /
//	                                  peer X next-hop-local / peer X route-limit N
//
// It reports handled=false for every other line (undo already stripped).
func vrpRoutingLine(s *cfgSession, m mode, w []string, undo bool, line string) (bool, error) {
	bad := func(why string) (bool, error) { return true, badArgs(s.dialect, line, why) }
	c := s.c
	switch m.kind {
	case "top":
		switch {
		case w[0] == "ospf" && len(w) <= 4:
			rest := w[1:]
			if len(rest) > 0 && rest[0] != "router-id" {
				if _, err := atoiRange(rest[0], 1, 65535, "OSPF process id"); err != nil {
					return bad(err.Error())
				}
				rest = rest[1:]
			}
			if undo {
				c.removeOSPF()
				return true, nil
			}
			o := c.ospfProc()
			if len(rest) == 2 && rest[0] == "router-id" {
				if _, err := netip.ParseAddr(rest[1]); err != nil {
					return bad("bad router-id")
				}
				o.RouterID = rest[1]
			} else if len(rest) != 0 {
				return bad("expected ospf [PROCESS] [router-id A.B.C.D]")
			}
			s.enter(mode{kind: "ospf"})
			return true, nil
		case w[0] == "bgp" && len(w) == 2:
			if undo {
				c.dev.BGP = nil
				return true, nil
			}
			if _, err := c.bgpProc(w[1]); err != nil {
				return bad(err.Error())
			}
			s.enter(mode{kind: "bgp"})
			return true, nil
		}
	case "interface":
		if w[0] != "ospf" || len(w) < 2 || w[1] == "router-id" || isDigits(w[1]) {
			return false, nil // not an interface command: "ospf 1" goes to the system view
		}
		return vrpOSPFIfConfig(s, c.iface(m.name, true), w[1:], undo, line)
	case "ospf":
		o := c.ospfProc()
		switch {
		case w[0] == "area" && len(w) == 2:
			area, err := parseArea(w[1])
			if err != nil {
				return bad(err.Error())
			}
			if undo {
				for i := range c.dev.Interfaces {
					if it := &c.dev.Interfaces[i]; it.OSPF != nil && dottedArea(it.OSPF.Area) == area {
						it.OSPF = nil
					}
				}
				return true, nil
			}
			s.enter(mode{kind: "ospf-area", name: area})
		case w[0] == "router-id" && len(w) == 2:
			o.RouterID = ""
			if !undo {
				if _, err := netip.ParseAddr(w[1]); err != nil {
					return bad("bad router-id")
				}
				o.RouterID = w[1]
			}
		case w[0] == "silent-interface" && len(w) >= 2:
			it := c.iface(strings.Join(w[1:], ""), false)
			if it == nil {
				return bad("no such interface")
			}
			io, err := ifOSPF(it)
			if err != nil {
				return bad(err.Error())
			}
			io.Passive = !undo
		case w[0] == "import-route" && len(w) >= 2:
			if err := setRedistribute(&o.Redistribute, w[1], undo, "ospf"); err != nil {
				return bad(err.Error())
			}
		case w[0] == "default-route-advertise":
			o.DefaultOriginate = !undo
		case w[0] == "bandwidth-reference" && (undo || len(w) == 2):
			o.ReferenceBandwidthMbps = 0
			if !undo {
				n, err := atoiRange(w[1], 1, 2147483648, "reference bandwidth")
				if err != nil {
					return bad(err.Error())
				}
				o.ReferenceBandwidthMbps = n
			}
		default:
			return false, nil
		}
		return true, nil
	case "ospf-area":
		if w[0] != "network" || len(w) != 3 {
			return false, nil
		}
		p, _, err := parseWildcard(w, 1)
		if err != nil {
			return bad(err.Error())
		}
		pfx := netip.MustParsePrefix(p)
		matched := false
		for i := range c.dev.Interfaces {
			it := &c.dev.Interfaces[i]
			v4, _ := splitAddrs(*it)
			for _, a := range v4 {
				if !pfx.Contains(a.Addr()) {
					continue
				}
				matched = true
				switch {
				case undo && it.OSPF != nil && dottedArea(it.OSPF.Area) == m.name:
					it.OSPF = nil
				case !undo && it.OSPF == nil:
					it.OSPF = &topology.InterfaceOSPF{Area: m.name}
				case !undo:
					it.OSPF.Area = m.name
				}
			}
		}
		if !matched {
			return bad("no interface address in " + p)
		}
		return true, nil
	case "bgp":
		b := c.dev.BGP
		if b == nil {
			return false, nil
		}
		switch {
		case w[0] == "router-id" && len(w) == 2:
			b.RouterID = ""
			if !undo {
				if _, err := netip.ParseAddr(w[1]); err != nil {
					return bad("bad router-id")
				}
				b.RouterID = w[1]
			}
		case w[0] == "timer" && (undo || len(w) == 5 && w[1] == "keepalive" && w[3] == "hold"):
			b.Keepalive, b.Hold = 0, 0
			if !undo {
				k, err1 := atoiRange(w[2], 0, 21845, "keepalive")
				h, err2 := atoiRange(w[4], 0, 65535, "hold time")
				if err1 != nil || err2 != nil || (h != 0 && h < 3*k) {
					return bad("expected timer keepalive K hold H with H >= 3K")
				}
				b.Keepalive, b.Hold = k, h
			}
		case (w[0] == "ipv4-family" || w[0] == "ipv6-family") && len(w) <= 2 && !undo:
			if len(w) == 2 && w[1] != "unicast" {
				return bad("only the unicast family is supported")
			}
			s.enter(mode{kind: "bgp-af", v6: w[0] == "ipv6-family"})
		case w[0] == "peer" && len(w) >= 2:
			return vrpPeerLine(s, b, w[1:], undo, line, false)
		default:
			return false, nil
		}
		return true, nil
	case "bgp-af":
		b := c.dev.BGP
		if b == nil {
			return false, nil
		}
		switch {
		case w[0] == "network" && len(w) >= 2:
			a, err := netip.ParseAddr(w[1])
			if err != nil || a.Is6() != m.v6 {
				return bad("bad network address")
			}
			bits := a.BitLen()
			if len(w) >= 3 {
				if bits, err = maskBits(w[2], a.Is4(), false); err != nil {
					return bad(err.Error())
				}
			}
			if err := setNetwork(b, netip.PrefixFrom(a, bits), undo); err != nil {
				return bad(err.Error())
			}
		case w[0] == "import-route" && len(w) >= 2:
			if err := setRedistribute(&b.Redistribute, w[1], undo, "bgp"); err != nil {
				return bad(err.Error())
			}
		case w[0] == "synchronization":
		case w[0] == "peer" && len(w) >= 2:
			return vrpPeerLine(s, b, w[1:], undo, line, true)
		default:
			return false, nil
		}
		return true, nil
	}
	return false, nil
}

// vrpPeerLine parses "peer X ..." in the bgp view (af false) or an
// address-family view (af true).
func vrpPeerLine(s *cfgSession, b *topology.BGP, w []string, undo bool, line string, af bool) (bool, error) {
	bad := func(why string) (bool, error) { return true, badArgs(s.dialect, line, why) }
	if len(w) == 1 {
		if !undo {
			return bad("expected peer X as-number N (or another peer option)")
		}
		if err := removePeer(b, w[0]); err != nil {
			return bad(err.Error())
		}
		return true, nil
	}
	create := !af && w[1] == "as-number" && !undo
	p, err := bgpPeer(b, w[0], create)
	if err != nil {
		return bad(err.Error())
	}
	arg := func(i int) string {
		if i < len(w) {
			return w[i]
		}
		return ""
	}
	switch {
	case !af && w[1] == "as-number" && len(w) == 3:
		if undo {
			return bad("use undo peer X to remove the peer")
		}
		n, err := parseASN(w[2])
		if err != nil {
			return bad(err.Error())
		}
		p.RemoteAS = n
	case !af && w[1] == "description":
		p.Description = ""
		if !undo {
			p.Description = strings.Join(w[2:], " ")
		}
	case !af && w[1] == "connect-interface" && (undo || len(w) >= 3):
		p.UpdateSource = ""
		if !undo {
			it := s.c.iface(strings.Join(w[2:], ""), false)
			if it == nil {
				return bad("no such interface")
			}
			p.UpdateSource = it.Name
		}
	case !af && w[1] == "ebgp-max-hop":
		p.EBGPMultihop = 0
		if !undo {
			p.EBGPMultihop = 255
			if arg(2) != "" {
				n, err := atoiRange(arg(2), 1, 255, "hop count")
				if err != nil {
					return bad(err.Error())
				}
				p.EBGPMultihop = n
			}
		}
	case !af && w[1] == "password":
		p.Password = ""
		if !undo {
			if len(w) != 4 || (w[2] != "cipher" && w[2] != "simple") {
				return bad("expected peer X password cipher|simple PASSWORD")
			}
			p.Password = w[3]
		}
	case !af && w[1] == "ignore" && len(w) == 2:
		p.Shutdown = !undo
	case af && w[1] == "enable" && len(w) == 2:
		if undo {
			return bad("a peer cannot be disabled in one address family here: use peer X ignore")
		}
	case af && w[1] == "next-hop-local" && len(w) == 2:
		p.NextHopSelf = !undo
	case af && w[1] == "route-limit" && (undo || len(w) >= 3):
		p.MaxPrefix = 0
		if !undo {
			n, err := atoiRange(w[2], 1, 4294967295, "route limit")
			if err != nil {
				return bad(err.Error())
			}
			p.MaxPrefix = n
		}
	default:
		return false, nil
	}
	return true, nil
}

// vrpOSPFIfConfig parses "ospf ..." in an interface view.
func vrpOSPFIfConfig(s *cfgSession, it *topology.Interface, w []string, undo bool, line string) (bool, error) {
	bad := func(why string) (bool, error) { return true, badArgs(s.dialect, line, why) }
	if w[0] == "enable" {
		if undo {
			it.OSPF = nil
			return true, nil
		}
		rest := w[1:]
		if len(rest) == 3 {
			if _, err := atoiRange(rest[0], 1, 65535, "OSPF process id"); err != nil {
				return bad(err.Error())
			}
			rest = rest[1:]
		}
		if len(rest) != 2 || rest[0] != "area" {
			return bad("expected ospf enable [PROCESS] area AREA")
		}
		area, err := parseArea(rest[1])
		if err != nil {
			return bad(err.Error())
		}
		if it.OSPF == nil {
			it.OSPF = &topology.InterfaceOSPF{}
		}
		it.OSPF.Area = area
		s.c.ospfProc()
		return true, nil
	}
	if it.OSPF == nil {
		if undo {
			return true, nil
		}
		// VRP prints the settings before "ospf enable": the area comes
		// with that line (checkRoutingConfig requires it).
		it.OSPF = &topology.InterfaceOSPF{}
	}
	io := it.OSPF
	num := func(i, lo, hi int, what string) (int, error) {
		if undo {
			return 0, nil
		}
		if i >= len(w) {
			return 0, errf("missing %s", what)
		}
		return atoiRange(w[i], lo, hi, what)
	}
	switch {
	case w[0] == "cost":
		n, err := num(1, 1, 65535, "cost")
		if err != nil {
			return bad(err.Error())
		}
		io.Cost = n
	case w[0] == "network-type":
		io.NetworkType = ""
		if !undo {
			switch {
			case len(w) == 2 && w[1] == "p2p":
				io.NetworkType = topology.OSPFPointToPoint
			case len(w) == 2 && w[1] == "broadcast":
				io.NetworkType = topology.OSPFBroadcast
			default:
				return bad("network-type must be p2p or broadcast")
			}
		}
	case w[0] == "timer" && len(w) >= 2 && w[1] == "hello":
		n, err := num(2, 1, 65535, "hello interval")
		if err != nil {
			return bad(err.Error())
		}
		io.Hello = n
	case w[0] == "timer" && len(w) >= 2 && w[1] == "dead":
		n, err := num(2, 1, 235926000, "dead interval")
		if err != nil {
			return bad(err.Error())
		}
		io.Dead = n
	case w[0] == "dr-priority":
		io.Priority = nil
		if !undo {
			n, err := num(1, 0, 255, "priority")
			if err != nil {
				return bad(err.Error())
			}
			io.Priority = &n
		}
	case w[0] == "mtu-enable" && len(w) == 1:
		// VRP checks the DD packets' MTU only with mtu-enable; the model
		// (as FRR) checks by default, so "undo ospf mtu-enable" is the
		// explicit form of mtu-ignore.
		io.MTUIgnore = undo
	default:
		return bad("unsupported OSPF interface command")
	}
	return true, nil
}

// isDigits reports whether s is a non-empty run of decimal digits.
func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
