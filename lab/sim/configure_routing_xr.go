package sim

import (
	"net/netip"
	"strings"

	"github.com/netmcp/netmcp/lab/topology"
)

// xrRoutingLine parses the cisco-iosxr OSPF and BGP configuration:
//
//	router ospf ID                    router-id X / area A / redistribute SRC /
//	                                  default-information originate [always] /
//	                                  auto-cost reference-bandwidth N
//	 area A                           interface IF
//	  interface IF                    cost N / network point-to-point|broadcast /
//	                                  hello-interval N / dead-interval N / priority N /
//	                                  passive [enable|disable] / mtu-ignore [enable|disable]
//	router bgp ASN                    bgp router-id X / timers bgp K H /
//	                                  address-family ipv4|ipv6 unicast / neighbor X
//	 address-family ipv4 unicast      network P / redistribute SRC
//	 neighbor X                       remote-as N / description D / password clear|encrypted P /
//	                                  update-source IF / ebgp-multihop [N] / shutdown /
//	                                  address-family ipv4|ipv6 unicast
//	  address-family ipv4 unicast     next-hop-self / maximum-prefix N
//
// It reports handled=false for every other line ("no" already stripped).
func xrRoutingLine(s *cfgSession, m mode, w []string, no bool, line string) (bool, error) {
	bad := func(why string) (bool, error) { return true, badArgs(s.dialect, line, why) }
	c := s.c
	switch m.kind {
	case "top":
		switch {
		case w[0] == "router" && len(w) >= 2 && w[1] == "ospf":
			if len(w) != 3 {
				if no && len(w) == 2 {
					c.removeOSPF()
					return true, nil
				}
				return bad("expected router ospf PROCESS")
			}
			if no {
				c.removeOSPF()
				return true, nil
			}
			c.ospfProc()
			s.enter(mode{kind: "ospf", name: w[2]})
			return true, nil
		case w[0] == "router" && len(w) >= 2 && w[1] == "bgp":
			if no {
				c.dev.BGP = nil
				return true, nil
			}
			if len(w) != 3 {
				return bad("expected router bgp ASN")
			}
			if _, err := c.bgpProc(w[2]); err != nil {
				return bad(err.Error())
			}
			s.enter(mode{kind: "bgp"})
			return true, nil
		}
	case "ospf":
		o := c.ospfProc()
		switch {
		case w[0] == "router-id" && (no || len(w) == 2):
			o.RouterID = ""
			if !no {
				if _, err := netip.ParseAddr(w[1]); err != nil {
					return bad("bad router-id")
				}
				o.RouterID = w[1]
			}
		case w[0] == "area" && len(w) == 2:
			area, err := parseArea(w[1])
			if err != nil {
				return bad(err.Error())
			}
			if no {
				for i := range c.dev.Interfaces {
					if it := &c.dev.Interfaces[i]; it.OSPF != nil && dottedArea(it.OSPF.Area) == area {
						it.OSPF = nil
					}
				}
				return true, nil
			}
			s.enter(mode{kind: "ospf-area", name: area})
		case w[0] == "redistribute" && len(w) >= 2:
			if err := setRedistribute(&o.Redistribute, w[1], no, "ospf"); err != nil {
				return bad(err.Error())
			}
		case w[0] == "default-information" && len(w) >= 2 && w[1] == "originate":
			o.DefaultOriginate = !no
		case w[0] == "auto-cost" && len(w) >= 2 && w[1] == "reference-bandwidth":
			o.ReferenceBandwidthMbps = 0
			if !no {
				if len(w) != 3 {
					return bad("expected auto-cost reference-bandwidth MBPS")
				}
				n, err := atoiRange(w[2], 1, 4294967, "reference bandwidth")
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
		if w[0] != "interface" || len(w) < 2 {
			return false, nil
		}
		it := c.iface(strings.Join(w[1:], ""), false)
		if it == nil {
			return bad("no such interface")
		}
		if no {
			if it.OSPF == nil || dottedArea(it.OSPF.Area) != m.name {
				return bad("the interface is not in area " + m.name)
			}
			it.OSPF = nil
			return true, nil
		}
		if it.OSPF == nil {
			it.OSPF = &topology.InterfaceOSPF{}
		}
		it.OSPF.Area = m.name
		s.enter(mode{kind: "ospf-if", name: it.Name})
		return true, nil
	case "ospf-if":
		it := c.iface(m.name, false)
		if it == nil || it.OSPF == nil {
			return false, nil
		}
		return xrOSPFInterface(s, it.OSPF, w, no, line)
	case "bgp":
		b := c.dev.BGP
		if b == nil {
			return false, nil
		}
		switch {
		case w[0] == "bgp" && len(w) >= 2 && w[1] == "router-id":
			b.RouterID = ""
			if !no {
				if len(w) != 3 {
					return bad("expected bgp router-id A.B.C.D")
				}
				if _, err := netip.ParseAddr(w[2]); err != nil {
					return bad("bad router-id")
				}
				b.RouterID = w[2]
			}
		case w[0] == "timers" && len(w) >= 2 && w[1] == "bgp":
			b.Keepalive, b.Hold = 0, 0
			if !no {
				if len(w) != 4 {
					return bad("expected timers bgp KEEPALIVE HOLD")
				}
				k, err1 := atoiRange(w[2], 0, 65535, "keepalive")
				h, err2 := atoiRange(w[3], 0, 65535, "hold time")
				if err1 != nil || err2 != nil || (h != 0 && h < 3) {
					return bad("expected timers bgp KEEPALIVE HOLD")
				}
				b.Keepalive, b.Hold = k, h
			}
		case w[0] == "address-family" && len(w) == 3 && w[2] == "unicast" && (w[1] == "ipv4" || w[1] == "ipv6"):
			if no {
				b.Networks = nil
				b.Redistribute = nil
				return true, nil
			}
			s.enter(mode{kind: "bgp-af", v6: w[1] == "ipv6"})
		case w[0] == "neighbor" && len(w) == 2:
			if no {
				if err := removePeer(b, w[1]); err != nil {
					return bad(err.Error())
				}
				return true, nil
			}
			p, err := bgpPeer(b, w[1], true)
			if err != nil {
				return bad(err.Error())
			}
			s.enter(mode{kind: "bgp-nbr", name: p.Address})
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
		case w[0] == "network" && len(w) == 2:
			p, err := netip.ParsePrefix(w[1])
			if err != nil || p.Addr().Is6() != m.v6 {
				return bad("expected network PREFIX/LENGTH of the address family")
			}
			if err := setNetwork(b, p, no); err != nil {
				return bad(err.Error())
			}
		case w[0] == "redistribute" && len(w) >= 2:
			if err := setRedistribute(&b.Redistribute, w[1], no, "bgp"); err != nil {
				return bad(err.Error())
			}
		default:
			return false, nil
		}
		return true, nil
	case "bgp-nbr", "bgp-nbr-af":
		if c.dev.BGP == nil {
			return false, nil
		}
		p, err := bgpPeer(c.dev.BGP, m.name, false)
		if err != nil {
			return false, nil
		}
		if m.kind == "bgp-nbr-af" {
			switch {
			case w[0] == "next-hop-self" && len(w) == 1:
				p.NextHopSelf = !no
			case w[0] == "maximum-prefix" && (no || len(w) >= 2):
				p.MaxPrefix = 0
				if !no {
					n, err := atoiRange(w[1], 1, 4294967295, "maximum prefix")
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
		switch {
		case w[0] == "remote-as" && len(w) == 2:
			if no {
				return bad("use no neighbor X to remove the peer")
			}
			n, err := parseASN(w[1])
			if err != nil {
				return bad(err.Error())
			}
			p.RemoteAS = n
		case w[0] == "description":
			p.Description = ""
			if !no {
				p.Description = strings.Join(w[1:], " ")
			}
		case w[0] == "password":
			p.Password = ""
			if !no {
				if len(w) != 3 || (w[1] != "clear" && w[1] != "encrypted") {
					return bad("expected password clear|encrypted PASSWORD")
				}
				p.Password = w[2]
			}
		case w[0] == "update-source":
			p.UpdateSource = ""
			if !no {
				it := c.iface(strings.Join(w[1:], ""), false)
				if it == nil {
					return bad("no such interface")
				}
				p.UpdateSource = it.Name
			}
		case w[0] == "ebgp-multihop":
			p.EBGPMultihop = 0
			if !no {
				p.EBGPMultihop = 255
				if len(w) == 2 {
					n, err := atoiRange(w[1], 1, 255, "hop count")
					if err != nil {
						return bad(err.Error())
					}
					p.EBGPMultihop = n
				}
			}
		case w[0] == "shutdown" && len(w) == 1:
			p.Shutdown = !no
		case w[0] == "address-family" && len(w) == 3 && w[2] == "unicast" && (w[1] == "ipv4" || w[1] == "ipv6") && !no:
			s.enter(mode{kind: "bgp-nbr-af", name: p.Address, v6: w[1] == "ipv6"})
		default:
			return false, nil
		}
		return true, nil
	}
	return false, nil
}

// xrOSPFInterface parses a line of an OSPF interface's configuration.
func xrOSPFInterface(s *cfgSession, io *topology.InterfaceOSPF, w []string, no bool, line string) (bool, error) {
	bad := func(why string) (bool, error) { return true, badArgs(s.dialect, line, why) }
	num := func(lo, hi int, what string) (int, error) {
		if no {
			return 0, nil
		}
		if len(w) != 2 {
			return 0, errf("expected %s N", w[0])
		}
		return atoiRange(w[1], lo, hi, what)
	}
	onOff := func() (bool, error) {
		switch {
		case no:
			return false, nil
		case len(w) == 1 || w[1] == "enable":
			return true, nil
		case w[1] == "disable":
			return false, nil
		}
		return false, errf("expected %s [enable|disable]", w[0])
	}
	var err error
	switch w[0] {
	case "cost":
		io.Cost, err = num(1, 65535, "cost")
	case "hello-interval":
		io.Hello, err = num(1, 65535, "hello interval")
	case "dead-interval":
		io.Dead, err = num(1, 65535, "dead interval")
	case "priority":
		io.Priority = nil
		var n int
		if n, err = num(0, 255, "priority"); err == nil && !no {
			io.Priority = &n
		}
	case "network":
		io.NetworkType = ""
		if !no {
			switch {
			case len(w) == 2 && w[1] == "point-to-point":
				io.NetworkType = topology.OSPFPointToPoint
			case len(w) == 2 && w[1] == "broadcast":
				io.NetworkType = topology.OSPFBroadcast
			default:
				return bad("expected network point-to-point|broadcast")
			}
		}
	case "passive":
		io.Passive, err = onOff()
	case "mtu-ignore":
		io.MTUIgnore, err = onOff()
	default:
		return false, nil
	}
	if err != nil {
		return bad(err.Error())
	}
	return true, nil
}
