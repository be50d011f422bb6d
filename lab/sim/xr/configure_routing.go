package xr

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/topology"
)

// routingModes are the rules of the cisco-iosxr OSPF and BGP configuration:
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
func routingModes() map[string][]dialect.Rule {
	return map[string][]dialect.Rule{
		"top": {
			{Words: "router ospf", Run: routerOSPF},
			{Words: "router bgp", Run: routerBGP},
		},
		"ospf": {
			{Words: "router-id", Len: 2, NegAny: true, Run: ospfRouterID},
			{Words: "area", Len: 2, Run: ospfArea},
			{Words: "redistribute", Min: 2, Run: ospfRedistribute},
			{Words: "default-information originate", Run: ospfDefault},
			{Words: "auto-cost reference-bandwidth", Run: ospfBandwidth},
		},
		"ospf-area": {
			{Words: "interface", Min: 2, Run: areaInterface},
		},
		"ospf-if": {
			{Words: "cost|hello-interval|dead-interval|priority|network|passive|mtu-ignore", Run: ospfInterface},
		},
		"bgp": {
			{Words: "bgp router-id", Run: bgpRouterID},
			{Words: "timers bgp", Run: bgpTimers},
			{Words: "address-family ipv4|ipv6 unicast", Len: 3, Run: bgpFamily},
			{Words: "neighbor", Len: 2, Run: neighborMode},
		},
		"bgp-af": {
			{Words: "network", Len: 2, Run: afNetwork},
			{Words: "redistribute", Min: 2, Run: afRedistribute},
		},
		"bgp-nbr": {
			{Words: "remote-as", Len: 2, Run: nbrRemoteAS},
			{Words: "description", Run: nbrDescription},
			{Words: "password", Run: nbrPassword},
			{Words: "update-source", Run: nbrUpdateSource},
			{Words: "ebgp-multihop", Run: nbrMultihop},
			{Words: "shutdown", Len: 1, Run: nbrRun(func(l *dialect.Line, p *topology.BGPNeighbor) (bool, error) {
				p.Shutdown = !l.Neg
				return dialect.Done()
			})},
			{Words: "address-family ipv4|ipv6 unicast", Len: 3, Run: nbrFamily},
		},
		"bgp-nbr-af": {
			{Words: "next-hop-self", Len: 1, Run: nbrRun(func(l *dialect.Line, p *topology.BGPNeighbor) (bool, error) {
				p.NextHopSelf = !l.Neg
				return dialect.Done()
			})},
			{Words: "maximum-prefix", Min: 2, NegAny: true, Run: nbrMaximumPrefix},
		},
	}
}

// [no] router ospf PROCESS: enter the OSPF mode.
func routerOSPF(l *dialect.Line) (bool, error) {
	if len(l.W) != 3 {
		if l.Neg && len(l.W) == 2 {
			l.C.RemoveOSPF()
			return dialect.Done()
		}
		return l.Bad("expected router ospf PROCESS")
	}
	if l.Neg {
		l.C.RemoveOSPF()
		return dialect.Done()
	}
	l.C.OSPFProc()
	l.S.Enter(dialect.Mode{Kind: "ospf", Name: l.W[2]})
	return dialect.Done()
}

// [no] router bgp ASN: enter the BGP mode.
func routerBGP(l *dialect.Line) (bool, error) {
	if l.Neg {
		l.C.Dev.BGP = nil
		return dialect.Done()
	}
	if len(l.W) != 3 {
		return l.Bad("expected router bgp ASN")
	}
	if _, err := l.C.BGPProc(l.W[2]); err != nil {
		return l.Fail(err)
	}
	l.S.Enter(dialect.Mode{Kind: "bgp"})
	return dialect.Done()
}

// [no] router-id A.B.C.D in the OSPF mode.
func ospfRouterID(l *dialect.Line) (bool, error) {
	o := l.C.OSPFProc()
	o.RouterID = ""
	if !l.Neg {
		if _, err := netip.ParseAddr(l.W[1]); err != nil {
			return l.Bad("bad router-id")
		}
		o.RouterID = l.W[1]
	}
	return dialect.Done()
}

// [no] area A: enter the area mode; no takes the area's interfaces out
// of OSPF.
func ospfArea(l *dialect.Line) (bool, error) {
	l.C.OSPFProc()
	area, err := dialect.ParseArea(l.W[1])
	if err != nil {
		return l.Fail(err)
	}
	if l.Neg {
		l.C.LeaveArea(area)
		return dialect.Done()
	}
	l.S.Enter(dialect.Mode{Kind: "ospf-area", Name: area})
	return dialect.Done()
}

// [no] redistribute SRC in the OSPF mode.
func ospfRedistribute(l *dialect.Line) (bool, error) {
	o := l.C.OSPFProc()
	if err := dialect.SetRedistribute(&o.Redistribute, l.W[1], l.Neg, "ospf"); err != nil {
		return l.Fail(err)
	}
	return dialect.Done()
}

// [no] default-information originate [always]
func ospfDefault(l *dialect.Line) (bool, error) {
	l.C.OSPFProc().DefaultOriginate = !l.Neg
	return dialect.Done()
}

// [no] auto-cost reference-bandwidth MBPS
func ospfBandwidth(l *dialect.Line) (bool, error) {
	o := l.C.OSPFProc()
	o.ReferenceBandwidthMbps = 0
	if l.Neg {
		return dialect.Done()
	}
	if len(l.W) != 3 {
		return l.Bad("expected auto-cost reference-bandwidth MBPS")
	}
	n, err := dialect.AtoiRange(l.W[2], 1, 4294967, "reference bandwidth")
	if err != nil {
		return l.Fail(err)
	}
	o.ReferenceBandwidthMbps = n
	return dialect.Done()
}

// [no] interface IF in an area mode: the interface joins (leaves) the
// area; joining enters its mode.
func areaInterface(l *dialect.Line) (bool, error) {
	it := l.C.Iface(strings.Join(l.W[1:], ""), false)
	if it == nil {
		return l.Bad("no such interface")
	}
	if l.Neg {
		if it.OSPF == nil || dialect.DottedArea(it.OSPF.Area) != l.M.Name {
			return l.Bad("the interface is not in area " + l.M.Name)
		}
		it.OSPF = nil
		return dialect.Done()
	}
	if it.OSPF == nil {
		it.OSPF = &topology.InterfaceOSPF{}
	}
	it.OSPF.Area = l.M.Name
	l.S.Enter(dialect.Mode{Kind: "ospf-if", Name: it.Name})
	return dialect.Done()
}

// ospfInterface parses a line of an OSPF interface's configuration.
func ospfInterface(l *dialect.Line) (bool, error) {
	it := l.C.Iface(l.M.Name, false)
	if it == nil || it.OSPF == nil {
		return dialect.Pass()
	}
	if err := ospfIfSettings[l.W[0]](it.OSPF, l.W, l.Neg); err != nil {
		return l.Fail(err)
	}
	return dialect.Done()
}

// ospfIfSettings parse the lines of an OSPF interface's mode, by their
// first word (no resets the setting).
var ospfIfSettings = map[string]func(io *topology.InterfaceOSPF, w []string, no bool) error{
	"cost": func(io *topology.InterfaceOSPF, w []string, no bool) (err error) {
		io.Cost, err = ospfNum(w, 1, 65535, "cost", no)
		return err
	},
	"hello-interval": func(io *topology.InterfaceOSPF, w []string, no bool) (err error) {
		io.Hello, err = ospfNum(w, 1, 65535, "hello interval", no)
		return err
	},
	"dead-interval": func(io *topology.InterfaceOSPF, w []string, no bool) (err error) {
		io.Dead, err = ospfNum(w, 1, 65535, "dead interval", no)
		return err
	},
	"priority": func(io *topology.InterfaceOSPF, w []string, no bool) error {
		io.Priority = nil
		n, err := ospfNum(w, 0, 255, "priority", no)
		if err == nil && !no {
			io.Priority = &n
		}
		return err
	},
	"network": func(io *topology.InterfaceOSPF, w []string, no bool) error {
		io.NetworkType = ""
		if no {
			return nil
		}
		t, ok := map[string]string{"point-to-point": topology.OSPFPointToPoint, "broadcast": topology.OSPFBroadcast}[strings.Join(w[1:], " ")]
		if !ok {
			return fmt.Errorf("expected network point-to-point|broadcast")
		}
		io.NetworkType = t
		return nil
	},
	"passive": func(io *topology.InterfaceOSPF, w []string, no bool) (err error) {
		io.Passive, err = onOff(w, no)
		return err
	},
	"mtu-ignore": func(io *topology.InterfaceOSPF, w []string, no bool) (err error) {
		io.MTUIgnore, err = onOff(w, no)
		return err
	},
}

// ospfNum reads "WORD N" with N within lo..hi (0 when no).
func ospfNum(w []string, lo, hi int, what string, no bool) (int, error) {
	if no {
		return 0, nil
	}
	if len(w) != 2 {
		return 0, fmt.Errorf("expected %s N", w[0])
	}
	return dialect.AtoiRange(w[1], lo, hi, what)
}

// onOff reads "WORD [enable|disable]" (false when no).
func onOff(w []string, no bool) (bool, error) {
	switch {
	case no:
		return false, nil
	case len(w) == 1 || w[1] == "enable":
		return true, nil
	case w[1] == "disable":
		return false, nil
	}
	return false, fmt.Errorf("expected %s [enable|disable]", w[0])
}

// bgpRun adapts a rule of the BGP modes, which apply only while the BGP
// process exists.
func bgpRun(run func(l *dialect.Line, b *topology.BGP) (bool, error)) func(l *dialect.Line) (bool, error) {
	return func(l *dialect.Line) (bool, error) {
		if l.C.Dev.BGP == nil {
			return dialect.Pass()
		}
		return run(l, l.C.Dev.BGP)
	}
}

// [no] bgp router-id A.B.C.D
var bgpRouterID = bgpRun(func(l *dialect.Line, b *topology.BGP) (bool, error) {
	b.RouterID = ""
	if l.Neg {
		return dialect.Done()
	}
	if len(l.W) != 3 {
		return l.Bad("expected bgp router-id A.B.C.D")
	}
	if _, err := netip.ParseAddr(l.W[2]); err != nil {
		return l.Bad("bad router-id")
	}
	b.RouterID = l.W[2]
	return dialect.Done()
})

// [no] timers bgp KEEPALIVE HOLD
var bgpTimers = bgpRun(func(l *dialect.Line, b *topology.BGP) (bool, error) {
	b.Keepalive, b.Hold = 0, 0
	if l.Neg {
		return dialect.Done()
	}
	if len(l.W) != 4 {
		return l.Bad("expected timers bgp KEEPALIVE HOLD")
	}
	k, err1 := dialect.AtoiRange(l.W[2], 0, 65535, "keepalive")
	h, err2 := dialect.AtoiRange(l.W[3], 0, 65535, "hold time")
	if err1 != nil || err2 != nil || (h != 0 && h < 3) {
		return l.Bad("expected timers bgp KEEPALIVE HOLD")
	}
	b.Keepalive, b.Hold = k, h
	return dialect.Done()
})

// [no] address-family ipv4|ipv6 unicast: enter the family mode; no
// removes the networks and redistribution.
var bgpFamily = bgpRun(func(l *dialect.Line, b *topology.BGP) (bool, error) {
	if l.Neg {
		b.Networks = nil
		b.Redistribute = nil
		return dialect.Done()
	}
	l.S.Enter(dialect.Mode{Kind: "bgp-af", V6: l.W[1] == "ipv6"})
	return dialect.Done()
})

// [no] neighbor X: enter the neighbour's mode, creating it.
var neighborMode = bgpRun(func(l *dialect.Line, b *topology.BGP) (bool, error) {
	if l.Neg {
		if err := dialect.RemovePeer(b, l.W[1]); err != nil {
			return l.Fail(err)
		}
		return dialect.Done()
	}
	p, err := dialect.BGPPeer(b, l.W[1], true)
	if err != nil {
		return l.Fail(err)
	}
	l.S.Enter(dialect.Mode{Kind: "bgp-nbr", Name: p.Address})
	return dialect.Done()
})

// [no] network PREFIX/LEN in a family mode.
var afNetwork = bgpRun(func(l *dialect.Line, b *topology.BGP) (bool, error) {
	p, err := netip.ParsePrefix(l.W[1])
	if err != nil || p.Addr().Is6() != l.M.V6 {
		return l.Bad("expected network PREFIX/LENGTH of the address family")
	}
	if err := dialect.SetNetwork(b, p, l.Neg); err != nil {
		return l.Fail(err)
	}
	return dialect.Done()
})

// [no] redistribute SRC in a family mode.
var afRedistribute = bgpRun(func(l *dialect.Line, b *topology.BGP) (bool, error) {
	if err := dialect.SetRedistribute(&b.Redistribute, l.W[1], l.Neg, "bgp"); err != nil {
		return l.Fail(err)
	}
	return dialect.Done()
})

// nbrRun adapts a rule of a neighbour's modes, which apply only while the
// neighbour exists.
func nbrRun(run func(l *dialect.Line, p *topology.BGPNeighbor) (bool, error)) func(l *dialect.Line) (bool, error) {
	return bgpRun(func(l *dialect.Line, b *topology.BGP) (bool, error) {
		p, err := dialect.BGPPeer(b, l.M.Name, false)
		if err != nil {
			return dialect.Pass()
		}
		return run(l, p)
	})
}

// remote-as N
var nbrRemoteAS = nbrRun(func(l *dialect.Line, p *topology.BGPNeighbor) (bool, error) {
	if l.Neg {
		return l.Bad("use no neighbor X to remove the peer")
	}
	n, err := dialect.ParseASN(l.W[1])
	if err != nil {
		return l.Fail(err)
	}
	p.RemoteAS = n
	return dialect.Done()
})

// [no] description TEXT
var nbrDescription = nbrRun(func(l *dialect.Line, p *topology.BGPNeighbor) (bool, error) {
	p.Description = ""
	if !l.Neg {
		p.Description = strings.Join(l.W[1:], " ")
	}
	return dialect.Done()
})

// [no] password clear|encrypted PASSWORD
var nbrPassword = nbrRun(func(l *dialect.Line, p *topology.BGPNeighbor) (bool, error) {
	p.Password = ""
	if l.Neg {
		return dialect.Done()
	}
	if len(l.W) != 3 || (l.W[1] != "clear" && l.W[1] != "encrypted") {
		return l.Bad("expected password clear|encrypted PASSWORD")
	}
	p.Password = l.W[2]
	return dialect.Done()
})

// [no] update-source IF
var nbrUpdateSource = nbrRun(func(l *dialect.Line, p *topology.BGPNeighbor) (bool, error) {
	p.UpdateSource = ""
	if l.Neg {
		return dialect.Done()
	}
	it := l.C.Iface(strings.Join(l.W[1:], ""), false)
	if it == nil {
		return l.Bad("no such interface")
	}
	p.UpdateSource = it.Name
	return dialect.Done()
})

// [no] ebgp-multihop [N]
var nbrMultihop = nbrRun(func(l *dialect.Line, p *topology.BGPNeighbor) (bool, error) {
	p.EBGPMultihop = 0
	if l.Neg {
		return dialect.Done()
	}
	p.EBGPMultihop = 255
	if len(l.W) == 2 {
		n, err := dialect.AtoiRange(l.W[1], 1, 255, "hop count")
		if err != nil {
			return l.Fail(err)
		}
		p.EBGPMultihop = n
	}
	return dialect.Done()
})

// address-family ipv4|ipv6 unicast: enter the neighbour's family mode.
var nbrFamily = nbrRun(func(l *dialect.Line, p *topology.BGPNeighbor) (bool, error) {
	if l.Neg {
		return dialect.Pass()
	}
	l.S.Enter(dialect.Mode{Kind: "bgp-nbr-af", Name: p.Address, V6: l.W[1] == "ipv6"})
	return dialect.Done()
})

// [no] maximum-prefix N
var nbrMaximumPrefix = nbrRun(func(l *dialect.Line, p *topology.BGPNeighbor) (bool, error) {
	p.MaxPrefix = 0
	if !l.Neg {
		n, err := dialect.AtoiRange(l.W[1], 1, 4294967295, "maximum prefix")
		if err != nil {
			return l.Fail(err)
		}
		p.MaxPrefix = n
	}
	return dialect.Done()
})
