package vrp

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/topology"
)

// routingModes are the rules of the huawei-vrp OSPF and BGP configuration:
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
func routingModes() map[string][]dialect.Rule {
	return map[string][]dialect.Rule{
		"top": {
			{Words: "ospf", Max: 4, Run: ospfView},
			{Words: "bgp", Len: 2, Run: bgpView},
		},
		"interface": {
			{Words: "ospf", Min: 2, Run: ifOSPF},
		},
		"ospf": {
			{Words: "area", Len: 2, Run: ospfArea},
			{Words: "router-id", Len: 2, Run: ospfRouterID},
			{Words: "silent-interface", Min: 2, Run: ospfSilent},
			{Words: "import-route", Min: 2, Run: ospfImport},
			{Words: "default-route-advertise", Run: ospfDefault},
			{Words: "bandwidth-reference", Len: 2, NegAny: true, Run: ospfBandwidth},
		},
		"ospf-area": {
			{Words: "network", Len: 3, Run: areaNetwork},
		},
		"bgp": {
			{Words: "router-id", Len: 2, Run: bgpRouterID},
			{Words: "timer", Len: 5, NegAny: true, Run: bgpTimer},
			{Words: "ipv4-family|ipv6-family", Max: 2, Run: bgpFamily},
			{Words: "peer", Len: 2, Run: peerRemove},
			{Words: "peer * as-number", Len: 4, Run: peerAS},
			{Words: "peer * description", Run: peerDescription},
			{Words: "peer * connect-interface", Min: 4, NegAny: true, Run: peerConnect},
			{Words: "peer * ebgp-max-hop", Run: peerMultihop},
			{Words: "peer * password", Run: peerPassword},
			{Words: "peer * ignore", Len: 3, Run: peerIgnore},
			{Words: "peer", Min: 3, Run: peerOther},
		},
		"bgp-af": {
			{Words: "network", Min: 2, Run: afNetwork},
			{Words: "import-route", Min: 2, Run: afImport},
			{Words: "synchronization", Run: func(*dialect.Line) (bool, error) { return dialect.Done() }},
			{Words: "peer", Len: 2, Run: peerRemove},
			{Words: "peer * enable", Len: 3, Run: peerEnable},
			{Words: "peer * next-hop-local", Len: 3, Run: peerNextHopLocal},
			{Words: "peer * route-limit", Min: 4, NegAny: true, Run: peerRouteLimit},
			{Words: "peer", Min: 3, Run: peerOther},
		},
	}
}

// [undo] ospf [PROCESS] [router-id A.B.C.D]: enter the OSPF view.
func ospfView(l *dialect.Line) (bool, error) {
	rest := l.W[1:]
	if len(rest) > 0 && rest[0] != "router-id" {
		if _, err := dialect.AtoiRange(rest[0], 1, 65535, "OSPF process id"); err != nil {
			return l.Fail(err)
		}
		rest = rest[1:]
	}
	if l.Neg {
		l.C.RemoveOSPF()
		return dialect.Done()
	}
	o := l.C.OSPFProc()
	if len(rest) == 2 && rest[0] == "router-id" {
		if _, err := netip.ParseAddr(rest[1]); err != nil {
			return l.Bad("bad router-id")
		}
		o.RouterID = rest[1]
	} else if len(rest) != 0 {
		return l.Bad("expected ospf [PROCESS] [router-id A.B.C.D]")
	}
	l.S.Enter(dialect.Mode{Kind: "ospf"})
	return dialect.Done()
}

// [undo] bgp ASN: enter the BGP view.
func bgpView(l *dialect.Line) (bool, error) {
	if l.Neg {
		l.C.Dev.BGP = nil
		return dialect.Done()
	}
	if _, err := l.C.BGPProc(l.W[1]); err != nil {
		return l.Fail(err)
	}
	l.S.Enter(dialect.Mode{Kind: "bgp"})
	return dialect.Done()
}

// [undo] ospf ... in the interface view ("ospf 1" and "ospf router-id"
// belong to the system view).
func ifOSPF(l *dialect.Line) (bool, error) {
	if l.W[1] == "router-id" || dialect.IsDigits(l.W[1]) {
		return dialect.Pass()
	}
	return ospfIfConfig(l, iface(l), l.W[1:])
}

// [undo] area A: enter the area view; undo takes the area's interfaces
// out of OSPF.
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

// [undo] router-id A.B.C.D in the OSPF view.
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

// [undo] silent-interface IF
func ospfSilent(l *dialect.Line) (bool, error) {
	l.C.OSPFProc()
	it := l.C.Iface(strings.Join(l.W[1:], ""), false)
	if it == nil {
		return l.Bad("no such interface")
	}
	io, err := dialect.IfOSPF(it)
	if err != nil {
		return l.Fail(err)
	}
	io.Passive = !l.Neg
	return dialect.Done()
}

// [undo] import-route SRC in the OSPF view.
func ospfImport(l *dialect.Line) (bool, error) {
	o := l.C.OSPFProc()
	if err := dialect.SetRedistribute(&o.Redistribute, l.W[1], l.Neg, "ospf"); err != nil {
		return l.Fail(err)
	}
	return dialect.Done()
}

// [undo] default-route-advertise [always]
func ospfDefault(l *dialect.Line) (bool, error) {
	l.C.OSPFProc().DefaultOriginate = !l.Neg
	return dialect.Done()
}

// [undo] bandwidth-reference N
func ospfBandwidth(l *dialect.Line) (bool, error) {
	o := l.C.OSPFProc()
	o.ReferenceBandwidthMbps = 0
	if !l.Neg {
		n, err := dialect.AtoiRange(l.W[1], 1, 2147483648, "reference bandwidth")
		if err != nil {
			return l.Fail(err)
		}
		o.ReferenceBandwidthMbps = n
	}
	return dialect.Done()
}

// [undo] network A W in an area view: the interfaces with an address in
// the range join (leave) the area.
func areaNetwork(l *dialect.Line) (bool, error) {
	p, _, err := dialect.ParseWildcard(l.W, 1)
	if err != nil {
		return l.Fail(err)
	}
	pfx := netip.MustParsePrefix(p)
	matched := false
	for i := range l.C.Dev.Interfaces {
		it := &l.C.Dev.Interfaces[i]
		v4, _ := dialect.SplitAddrs(*it)
		for _, a := range v4 {
			if pfx.Contains(a.Addr()) {
				matched = true
				joinArea(it, l.M.Name, l.Neg)
			}
		}
	}
	if !matched {
		return l.Bad("no interface address in " + p)
	}
	return dialect.Done()
}

// joinArea puts an interface in area (leave: takes it out of the area).
func joinArea(it *topology.Interface, area string, leave bool) {
	switch {
	case leave && it.OSPF != nil && dialect.DottedArea(it.OSPF.Area) == area:
		it.OSPF = nil
	case !leave && it.OSPF == nil:
		it.OSPF = &topology.InterfaceOSPF{Area: area}
	case !leave:
		it.OSPF.Area = area
	}
}

// bgpRun adapts a rule of the BGP views, which apply only while the BGP
// process exists.
func bgpRun(run func(l *dialect.Line, b *topology.BGP) (bool, error)) func(l *dialect.Line) (bool, error) {
	return func(l *dialect.Line) (bool, error) {
		if l.C.Dev.BGP == nil {
			return dialect.Pass()
		}
		return run(l, l.C.Dev.BGP)
	}
}

// [undo] router-id A.B.C.D in the BGP view.
var bgpRouterID = bgpRun(func(l *dialect.Line, b *topology.BGP) (bool, error) {
	b.RouterID = ""
	if !l.Neg {
		if _, err := netip.ParseAddr(l.W[1]); err != nil {
			return l.Bad("bad router-id")
		}
		b.RouterID = l.W[1]
	}
	return dialect.Done()
})

// [undo] timer keepalive K hold H
var bgpTimer = bgpRun(func(l *dialect.Line, b *topology.BGP) (bool, error) {
	w := l.W
	if !l.Neg && (w[1] != "keepalive" || w[3] != "hold") {
		return dialect.Pass()
	}
	b.Keepalive, b.Hold = 0, 0
	if !l.Neg {
		k, err1 := dialect.AtoiRange(w[2], 0, 21845, "keepalive")
		h, err2 := dialect.AtoiRange(w[4], 0, 65535, "hold time")
		if err1 != nil || err2 != nil || (h != 0 && h < 3*k) {
			return l.Bad("expected timer keepalive K hold H with H >= 3K")
		}
		b.Keepalive, b.Hold = k, h
	}
	return dialect.Done()
})

// ipv4-family|ipv6-family [unicast]: enter the address family view.
var bgpFamily = bgpRun(func(l *dialect.Line, b *topology.BGP) (bool, error) {
	if l.Neg {
		return dialect.Pass()
	}
	if len(l.W) == 2 && l.W[1] != "unicast" {
		return l.Bad("only the unicast family is supported")
	}
	l.S.Enter(dialect.Mode{Kind: "bgp-af", V6: l.W[0] == "ipv6-family"})
	return dialect.Done()
})

// [undo] network A [M|LEN] in an address family view.
var afNetwork = bgpRun(func(l *dialect.Line, b *topology.BGP) (bool, error) {
	a, err := netip.ParseAddr(l.W[1])
	if err != nil || a.Is6() != l.M.V6 {
		return l.Bad("bad network address")
	}
	bits := a.BitLen()
	if len(l.W) >= 3 {
		if bits, err = dialect.MaskBits(l.W[2], a.Is4(), false); err != nil {
			return l.Fail(err)
		}
	}
	if err := dialect.SetNetwork(b, netip.PrefixFrom(a, bits), l.Neg); err != nil {
		return l.Fail(err)
	}
	return dialect.Done()
})

// [undo] import-route SRC in an address family view.
var afImport = bgpRun(func(l *dialect.Line, b *topology.BGP) (bool, error) {
	if err := dialect.SetRedistribute(&b.Redistribute, l.W[1], l.Neg, "bgp"); err != nil {
		return l.Fail(err)
	}
	return dialect.Done()
})

// undo peer X removes a peer.
var peerRemove = bgpRun(func(l *dialect.Line, b *topology.BGP) (bool, error) {
	if !l.Neg {
		return l.Bad("expected peer X as-number N (or another peer option)")
	}
	if err := dialect.RemovePeer(b, l.W[1]); err != nil {
		return l.Fail(err)
	}
	return dialect.Done()
})

// peerRun adapts a rule of "peer X OPTION ...": it finds the peer first
// (creating it for "peer X as-number N" in the BGP view), and refuses an
// unknown one.
func peerRun(run func(l *dialect.Line, p *topology.BGPNeighbor) (bool, error)) func(l *dialect.Line) (bool, error) {
	return bgpRun(func(l *dialect.Line, b *topology.BGP) (bool, error) {
		create := l.M.Kind == "bgp" && l.W[2] == "as-number" && !l.Neg
		p, err := dialect.BGPPeer(b, l.W[1], create)
		if err != nil {
			return l.Fail(err)
		}
		return run(l, p)
	})
}

// peerOther is the last rule of "peer X ...": an option the view does
// not know, on a peer that must exist all the same.
var peerOther = peerRun(func(*dialect.Line, *topology.BGPNeighbor) (bool, error) { return dialect.Pass() })

// peer X as-number N
var peerAS = peerRun(func(l *dialect.Line, p *topology.BGPNeighbor) (bool, error) {
	if l.Neg {
		return l.Bad("use undo peer X to remove the peer")
	}
	n, err := dialect.ParseASN(l.W[3])
	if err != nil {
		return l.Fail(err)
	}
	p.RemoteAS = n
	return dialect.Done()
})

// [undo] peer X description TEXT
var peerDescription = peerRun(func(l *dialect.Line, p *topology.BGPNeighbor) (bool, error) {
	p.Description = ""
	if !l.Neg {
		p.Description = strings.Join(l.W[3:], " ")
	}
	return dialect.Done()
})

// [undo] peer X connect-interface IF
var peerConnect = peerRun(func(l *dialect.Line, p *topology.BGPNeighbor) (bool, error) {
	p.UpdateSource = ""
	if !l.Neg {
		it := l.C.Iface(strings.Join(l.W[3:], ""), false)
		if it == nil {
			return l.Bad("no such interface")
		}
		p.UpdateSource = it.Name
	}
	return dialect.Done()
})

// [undo] peer X ebgp-max-hop [N]
var peerMultihop = peerRun(func(l *dialect.Line, p *topology.BGPNeighbor) (bool, error) {
	p.EBGPMultihop = 0
	if l.Neg {
		return dialect.Done()
	}
	p.EBGPMultihop = 255
	if l.Arg(3) != "" {
		n, err := dialect.AtoiRange(l.Arg(3), 1, 255, "hop count")
		if err != nil {
			return l.Fail(err)
		}
		p.EBGPMultihop = n
	}
	return dialect.Done()
})

// [undo] peer X password cipher|simple PASSWORD
var peerPassword = peerRun(func(l *dialect.Line, p *topology.BGPNeighbor) (bool, error) {
	p.Password = ""
	if !l.Neg {
		if len(l.W) != 5 || (l.W[3] != "cipher" && l.W[3] != "simple") {
			return l.Bad("expected peer X password cipher|simple PASSWORD")
		}
		p.Password = l.W[4]
	}
	return dialect.Done()
})

// [undo] peer X ignore
var peerIgnore = peerRun(func(l *dialect.Line, p *topology.BGPNeighbor) (bool, error) {
	p.Shutdown = !l.Neg
	return dialect.Done()
})

// peer X enable (in an address family view)
var peerEnable = peerRun(func(l *dialect.Line, p *topology.BGPNeighbor) (bool, error) {
	if l.Neg {
		return l.Bad("a peer cannot be disabled in one address family here: use peer X ignore")
	}
	return dialect.Done()
})

// [undo] peer X next-hop-local
var peerNextHopLocal = peerRun(func(l *dialect.Line, p *topology.BGPNeighbor) (bool, error) {
	p.NextHopSelf = !l.Neg
	return dialect.Done()
})

// [undo] peer X route-limit N
var peerRouteLimit = peerRun(func(l *dialect.Line, p *topology.BGPNeighbor) (bool, error) {
	p.MaxPrefix = 0
	if !l.Neg {
		n, err := dialect.AtoiRange(l.W[3], 1, 4294967295, "route limit")
		if err != nil {
			return l.Fail(err)
		}
		p.MaxPrefix = n
	}
	return dialect.Done()
})

// ospfIfConfig parses "ospf ..." in an interface view (w without "ospf").
func ospfIfConfig(l *dialect.Line, it *topology.Interface, w []string) (bool, error) {
	if w[0] == "enable" {
		return ospfEnable(l, it, w[1:])
	}
	if it.OSPF == nil {
		if l.Neg {
			return dialect.Done()
		}
		// VRP prints the settings before "ospf enable": the area comes
		// with that line (CheckRouting requires it).
		it.OSPF = &topology.InterfaceOSPF{}
	}
	set, ok := ospfIfSettings[w[0]]
	if !ok {
		return l.Bad("unsupported OSPF interface command")
	}
	if err := set(it.OSPF, w, l.Neg); err != nil {
		return l.Fail(err)
	}
	return dialect.Done()
}

// [undo] ospf enable [PROCESS] area AREA
func ospfEnable(l *dialect.Line, it *topology.Interface, rest []string) (bool, error) {
	if l.Neg {
		it.OSPF = nil
		return dialect.Done()
	}
	if len(rest) == 3 {
		if _, err := dialect.AtoiRange(rest[0], 1, 65535, "OSPF process id"); err != nil {
			return l.Fail(err)
		}
		rest = rest[1:]
	}
	if len(rest) != 2 || rest[0] != "area" {
		return l.Bad("expected ospf enable [PROCESS] area AREA")
	}
	area, err := dialect.ParseArea(rest[1])
	if err != nil {
		return l.Fail(err)
	}
	if it.OSPF == nil {
		it.OSPF = &topology.InterfaceOSPF{}
	}
	it.OSPF.Area = area
	l.C.OSPFProc()
	return dialect.Done()
}

// ospfIfSettings parse the interface view's "ospf WORD ..." lines other
// than "ospf enable" (w starts at WORD; undo resets the setting).
var ospfIfSettings = map[string]func(io *topology.InterfaceOSPF, w []string, undo bool) error{
	"cost": func(io *topology.InterfaceOSPF, w []string, undo bool) error {
		return setNum(&io.Cost, w, 1, 1, 65535, "cost", undo)
	},
	"network-type": func(io *topology.InterfaceOSPF, w []string, undo bool) error {
		io.NetworkType = ""
		if undo {
			return nil
		}
		t, ok := map[string]string{"p2p": topology.OSPFPointToPoint, "broadcast": topology.OSPFBroadcast}[strings.Join(w[1:], " ")]
		if !ok {
			return fmt.Errorf("network-type must be p2p or broadcast")
		}
		io.NetworkType = t
		return nil
	},
	"timer":       ospfTimer,
	"dr-priority": ospfPriority,
	"mtu-enable": func(io *topology.InterfaceOSPF, w []string, undo bool) error {
		if len(w) != 1 {
			return fmt.Errorf("unsupported OSPF interface command")
		}
		// VRP checks the DD packets' MTU only with mtu-enable; the model
		// (as FRR) checks by default, so "undo ospf mtu-enable" is the
		// explicit form of mtu-ignore.
		io.MTUIgnore = undo
		return nil
	},
}

// ospfTimer parses "timer hello|dead N".
func ospfTimer(io *topology.InterfaceOSPF, w []string, undo bool) error {
	switch {
	case len(w) >= 2 && w[1] == "hello":
		return setNum(&io.Hello, w, 2, 1, 65535, "hello interval", undo)
	case len(w) >= 2 && w[1] == "dead":
		return setNum(&io.Dead, w, 2, 1, 235926000, "dead interval", undo)
	}
	return fmt.Errorf("unsupported OSPF interface command")
}

// ospfPriority parses "dr-priority N".
func ospfPriority(io *topology.InterfaceOSPF, w []string, undo bool) error {
	io.Priority = nil
	if undo {
		return nil
	}
	n, err := ospfNum(w, 1, 0, 255, "priority", false)
	if err != nil {
		return err
	}
	io.Priority = &n
	return nil
}

// setNum sets *into to ospfNum's number, unless that is an error.
func setNum(into *int, w []string, i, lo, hi int, what string, undo bool) error {
	n, err := ospfNum(w, i, lo, hi, what, undo)
	if err != nil {
		return err
	}
	*into = n
	return nil
}

// ospfNum reads the number w[i] within lo..hi (0 when undo).
func ospfNum(w []string, i, lo, hi int, what string, undo bool) (int, error) {
	if undo {
		return 0, nil
	}
	if i >= len(w) {
		return 0, fmt.Errorf("missing %s", what)
	}
	return dialect.AtoiRange(w[i], lo, hi, what)
}
