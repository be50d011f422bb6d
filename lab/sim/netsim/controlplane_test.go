package netsim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// Interfaces of the default lab.
const (
	r1Gi  = "GigabitEthernet0/0/0"
	r2Gi0 = "GigabitEthernet0/0/0/0"
	r2Gi1 = "GigabitEthernet0/0/0/1"
	r3Gi  = "GigabitEthernet0/0/0"
)

// ospfNbr returns a device's OSPF neighbour on an interface ("" state: absent).
func ospfNbrOn(t *testing.T, n *Network, dev, ifn string) OSPFNeighbor {
	t.Helper()
	st, err := n.OSPF(dev)
	if err != nil {
		t.Fatal(err)
	}
	for _, nb := range st.Neighbors {
		if nb.Interface == ifn {
			return nb
		}
	}
	return OSPFNeighbor{}
}

// bgpNbr returns a device's BGP neighbour of an address.
func bgpNbrOf(t *testing.T, n *Network, dev, addr string) BGPNeighbor {
	t.Helper()
	st, err := n.BGP(dev)
	if err != nil {
		t.Fatal(err)
	}
	for _, nb := range st.Neighbors {
		if nb.Address.String() == addr {
			return nb
		}
	}
	t.Fatalf("%s has no BGP neighbour %s", dev, addr)
	return BGPNeighbor{}
}

// activeRoute returns the active route of a prefix in a device's global IPv4 table.
func activeRoute(t *testing.T, n *Network, dev, prefix string) Route {
	t.Helper()
	rs, err := n.Routes(dev, "", 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Prefix.String() == prefix && r.Active {
			return r
		}
	}
	return Route{}
}

// check is one assertion on a network.
type check func(t *testing.T, n *Network)

func ospfIs(dev, ifn, state, reason string) check {
	return func(t *testing.T, n *Network) {
		t.Helper()
		nb := ospfNbrOn(t, n, dev, ifn)
		if nb.State != state || !strings.Contains(nb.Reason, reason) || (reason == "" && nb.Reason != "") {
			t.Errorf("%s %s OSPF neighbour: state %q reason %q, want %q with %q", dev, ifn, nb.State, nb.Reason, state, reason)
		}
	}
}

func bgpIs(dev, addr, state, lastErr string) check {
	return func(t *testing.T, n *Network) {
		t.Helper()
		nb := bgpNbrOf(t, n, dev, addr)
		if nb.State != state || nb.LastError != lastErr {
			t.Errorf("%s BGP %s: state %q last error %q, want %q, %q", dev, addr, nb.State, nb.LastError, state, lastErr)
		}
	}
}

func routeIs(dev, prefix, proto string) check {
	return func(t *testing.T, n *Network) {
		t.Helper()
		if r := activeRoute(t, n, dev, prefix); r.Protocol != proto {
			t.Errorf("%s %s: active route by %q (%+v), want %q", dev, prefix, r.Protocol, r, proto)
		}
	}
}

func pingOK(from, dst string, ok bool) check {
	return func(t *testing.T, n *Network) {
		t.Helper()
		o, err := n.Ping(ProbeRequest{From: from, Destination: addr(dst), Count: 2})
		if err != nil {
			t.Fatal(err)
		}
		if (o.Received() == 2) != ok {
			t.Errorf("ping %s -> %s: received %d of 2, want success %v\n%s", from, dst, o.Received(), ok, o.Render())
		}
	}
}

func traceHops(from, dst string, hops ...string) check {
	return func(t *testing.T, n *Network) {
		t.Helper()
		o, err := n.Traceroute(ProbeRequest{From: from, Destination: addr(dst), Count: 1})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range o.Hops {
			got = append(got, h.Probes[0].From.String())
		}
		if strings.Join(got, " ") != strings.Join(hops, " ") {
			t.Errorf("traceroute %s -> %s: hops %v, want %v", from, dst, got, hops)
		}
	}
}

// mutation changes the default lab.
type mutation func(t *testing.T, topo *topology.Topology)

func setIfOSPF(dev, ifn string, f func(c *topology.InterfaceOSPF)) mutation {
	return func(t *testing.T, topo *topology.Topology) {
		c := *ifaceOf(t, topo, dev, ifn).OSPF
		f(&c)
		ifaceOf(t, topo, dev, ifn).OSPF = &c
	}
}

func withACL(dev, ifn string, ingress bool, rules ...topology.ACLEntry) mutation {
	return func(t *testing.T, topo *topology.Topology) {
		d := devIndex(t, topo, dev)
		d.ACLs = append(d.ACLs, topology.ACL{Name: "TEST", Rules: rules})
		if it := ifaceOf(t, topo, dev, ifn); ingress {
			it.IngressACL = "TEST"
		} else {
			it.EgressACL = "TEST"
		}
	}
}

func bgpNeighbor(dev, addr string, f func(n *topology.BGPNeighbor)) mutation {
	return func(t *testing.T, topo *topology.Topology) {
		b := devIndex(t, topo, dev).BGP
		for i := range b.Neighbors {
			if b.Neighbors[i].Address == addr {
				f(&b.Neighbors[i])
				return
			}
		}
		t.Fatalf("%s has no neighbor %s", dev, addr)
	}
}

var (
	permitAll = topology.ACLEntry{Seq: 100, Action: "permit", Protocol: "ip"}
	deny179   = []topology.ACLEntry{{Seq: 10, Action: "deny", Protocol: "tcp", DstPort: 179},
		{Seq: 20, Action: "deny", Protocol: "tcp", SrcPort: 179}, permitAll}
	frrDown = func(dev string) topology.Fault { return topology.Fault{Name: "frr_service_down", Target: dev} }
)

// TestControlPlaneDefaultLab checks the default lab's OSPF, BGP and
// forwarding, then each fault-like change, built fresh.
func TestControlPlaneDefaultLab(t *testing.T) {
	cases := []struct {
		name   string
		mutate []mutation
		faults []topology.Fault
		checks []check
	}{
		{name: "default", checks: []check{
			ospfIs("r1", r1Gi, OSPFFull, ""), ospfIs("r2", r2Gi0, OSPFFull, ""),
			ospfIs("r2", r2Gi1, OSPFFull, ""), ospfIs("r3", r3Gi, OSPFFull, ""),
			bgpIs("r1", "10.0.12.2", BGPEstablished, ""), bgpIs("r2", "10.0.12.1", BGPEstablished, ""),
			bgpIs("r2", "10.255.0.3", BGPEstablished, ""), bgpIs("r3", "10.255.0.2", BGPEstablished, ""),
			routeIs("r1", "10.3.0.0/24", ProtoBGP), routeIs("r1", "10.255.0.2/32", ProtoOSPF),
			routeIs("r1", "10.255.0.3/32", ProtoOSPF), routeIs("r1", "10.0.23.0/30", ProtoOSPF),
			routeIs("r2", "10.3.0.0/24", ProtoBGP), routeIs("r3", "172.16.0.0/12", ProtoBGP),
			pingOK("r1", "10.3.0.10", true), pingOK("h3", "10.255.0.1", true),
			traceHops("r1", "10.3.0.10", "10.0.12.2", "10.0.23.2", "10.3.0.10"),
		}},
		{name: "mtu mismatch", mutate: []mutation{func(t *testing.T, topo *topology.Topology) {
			ifaceOf(t, topo, "r3", r3Gi).MTU = 1400
		}}, checks: []check{
			ospfIs("r3", r3Gi, OSPFExStart, "MTU mismatch"),
			ospfIs("r2", r2Gi1, OSPFExchange, "MTU mismatch"), // r2 is the slave (lower router id)
			ospfIs("r1", r1Gi, OSPFFull, ""),
			routeIs("r2", "10.255.0.3/32", ""), bgpIs("r2", "10.255.0.3", BGPActive, ""),
			routeIs("r1", "10.3.0.0/24", "static"), // the floating static takes over
			pingOK("r1", "10.3.0.10", false),
		}},
		{name: "mtu-ignore", mutate: []mutation{func(t *testing.T, topo *topology.Topology) {
			ifaceOf(t, topo, "r3", r3Gi).MTU = 1400
		}, setIfOSPF("r3", r3Gi, func(c *topology.InterfaceOSPF) { c.MTUIgnore = true }),
			setIfOSPF("r2", r2Gi1, func(c *topology.InterfaceOSPF) { c.MTUIgnore = true })},
			checks: []check{ospfIs("r3", r3Gi, OSPFFull, ""), ospfIs("r2", r2Gi1, OSPFFull, "")}},
		{name: "area mismatch", mutate: []mutation{setIfOSPF("r3", r3Gi, func(c *topology.InterfaceOSPF) { c.Area = "1" })},
			checks: []check{
				ospfIs("r2", r2Gi1, OSPFDown, "area mismatch"), ospfIs("r3", r3Gi, OSPFDown, "invalid Area ID 0.0.0.0"),
				routeIs("r2", "10.255.0.3/32", ""), bgpIs("r3", "10.255.0.2", BGPActive, ""),
			}},
		{name: "hello mismatch", mutate: []mutation{setIfOSPF("r3", r3Gi, func(c *topology.InterfaceOSPF) { c.Hello = 5 })},
			checks: []check{
				ospfIs("r2", r2Gi1, OSPFDown, "Hello/Dead interval mismatch"),
				ospfIs("r3", r3Gi, OSPFDown, "HelloInterval mismatch (expected 5, but received 10)"),
			}},
		{name: "dead mismatch", mutate: []mutation{setIfOSPF("r3", r3Gi, func(c *topology.InterfaceOSPF) { c.Dead = 120 })},
			checks: []check{ospfIs("r2", r2Gi1, OSPFDown, "RouterDeadInterval mismatch")}},
		{name: "network type mismatch", mutate: []mutation{setIfOSPF("r3", r3Gi, func(c *topology.InterfaceOSPF) { c.NetworkType = "broadcast" })},
			checks: []check{ospfIs("r2", r2Gi1, OSPF2Way, "network type mismatch"), routeIs("r2", "10.255.0.3/32", "")}},
		{name: "ospf one-way ACL", mutate: []mutation{withACL("r2", r2Gi1, true,
			topology.ACLEntry{Seq: 10, Action: "deny", Protocol: "ospf"}, permitAll)},
			checks: []check{
				ospfIs("r3", r3Gi, OSPFInit, "one-way"), ospfIs("r2", r2Gi1, "", ""),
				routeIs("r3", "10.255.0.1/32", ""), pingOK("h3", "10.3.0.1", true),
			}},
		{name: "ospf ACL outbound", mutate: []mutation{withACL("r2", r2Gi1, false,
			topology.ACLEntry{Seq: 10, Action: "deny", Protocol: "ospf"}, permitAll)},
			checks: []check{ospfIs("r2", r2Gi1, OSPFInit, "one-way"), ospfIs("r3", r3Gi, "", "")}},
		{name: "total loss on the link", faults: []topology.Fault{{Kind: topology.FaultLoss, Link: "r2:" + r2Gi1, Percent: 100}},
			checks: []check{ospfIs("r2", r2Gi1, "", ""), ospfIs("r3", r3Gi, "", "")}},
		{name: "passive transit", mutate: []mutation{setIfOSPF("r3", r3Gi, func(c *topology.InterfaceOSPF) { c.Passive = true })},
			checks: []check{ospfIs("r2", r2Gi1, "", ""), ospfIs("r3", r3Gi, "", ""), routeIs("r2", "10.255.0.3/32", "")}},
		{name: "BGP ACL both ports", mutate: []mutation{withACL("r2", r2Gi0, true, deny179...)},
			checks: []check{
				bgpIs("r1", "10.0.12.2", BGPActive, ""), bgpIs("r2", "10.0.12.1", BGPActive, ""),
				bgpIs("r2", "10.255.0.3", BGPEstablished, ""), ospfIs("r1", r1Gi, OSPFFull, ""),
				routeIs("r1", "10.3.0.0/24", "static"), routeIs("r3", "172.16.0.0/12", ""),
			}},
		{name: "BGP ACL on the destination port only", mutate: []mutation{withACL("r2", r2Gi0, true, deny179[0], permitAll)},
			// r2's own connection (to r1's port 179, answered from port 179) still opens.
			checks: []check{bgpIs("r1", "10.0.12.2", BGPEstablished, "")}},
		{name: "wrong remote-as", mutate: []mutation{bgpNeighbor("r1", "10.0.12.2", func(n *topology.BGPNeighbor) { n.RemoteAS = 65099 })},
			checks: []check{
				bgpIs("r1", "10.0.12.2", BGPIdle, errBadPeerAS), bgpIs("r2", "10.0.12.1", BGPIdle, errBadPeerAS),
				routeIs("r1", "10.3.0.0/24", "static"),
			}},
		{name: "neighbour shutdown", mutate: []mutation{bgpNeighbor("r1", "10.0.12.2", func(n *topology.BGPNeighbor) { n.Shutdown = true })},
			checks: []check{bgpIs("r1", "10.0.12.2", BGPIdle, errAdminShutdown), bgpIs("r2", "10.0.12.1", BGPActive, "")}},
		{name: "maximum-prefix", mutate: []mutation{
			func(t *testing.T, topo *topology.Topology) {
				b := devIndex(t, topo, "r3").BGP
				b.Networks = append(b.Networks, "10.255.0.3/32")
			},
			bgpNeighbor("r1", "10.0.12.2", func(n *topology.BGPNeighbor) { n.MaxPrefix = 1 })},
			checks: []check{bgpIs("r1", "10.0.12.2", BGPIdle, errMaxPrefix), bgpIs("r2", "10.0.12.1", BGPActive, errMaxPrefix),
				bgpIs("r2", "10.255.0.3", BGPEstablished, "")}},
		{name: "missing network statement", mutate: []mutation{func(t *testing.T, topo *topology.Topology) {
			devIndex(t, topo, "r3").BGP.Networks = nil
		}}, checks: []check{
			bgpIs("r2", "10.255.0.3", BGPEstablished, ""), routeIs("r2", "10.3.0.0/24", ""),
			routeIs("r1", "10.3.0.0/24", "static"), pingOK("r1", "10.3.0.10", false),
			traceHops("r1", "10.3.0.10", "10.0.12.2"),
		}},
		{name: "iBGP without next-hop-self", mutate: []mutation{bgpNeighbor("r2", "10.255.0.3", func(n *topology.BGPNeighbor) { n.NextHopSelf = false })},
			// 10.0.12.1 resolves over OSPF on r3 (the r1-r2 link is in OSPF), so the path stays valid.
			checks: []check{routeIs("r3", "172.16.0.0/12", ProtoBGP)}},
		{name: "frr_service_down", faults: []topology.Fault{frrDown("r2")}, checks: []check{
			ospfIs("r1", r1Gi, "", ""), bgpIs("r1", "10.0.12.2", BGPActive, ""), bgpIs("r2", "10.0.12.1", BGPIdle, ""),
			routeIs("r1", "10.255.0.3/32", ""), routeIs("r2", "10.255.0.3/32", ""), routeIs("r2", "198.51.100.0/24", ""), // statics withdrawn with staticd
			routeIs("r2", "10.0.23.0/30", "direct"), routeIs("r1", "10.3.0.0/24", "static"),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			topo := defaultTopo(t)
			for _, m := range c.mutate {
				m(t, &topo)
			}
			n := newLab(t, topo, c.faults...)
			for _, ck := range c.checks {
				ck(t, n)
			}
		})
	}
}

// TestControlPlaneHistory checks what depends on the previous state: the
// hold timer expiring when TCP 179 is dropped after the session was up,
// the Since of unchanged neighbours, a daemon going down, a neighbour
// that is no longer heard.
func TestControlPlaneHistory(t *testing.T) {
	clock := time.Date(2025, 10, 19, 3, 0, 0, 0, time.UTC)
	n, err := New(defaultTopo(t), Options{Seed: 1, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	up := bgpNbrOf(t, n, "r1", "10.0.12.2")
	if up.State != BGPEstablished || !up.Since.Equal(clock) {
		t.Fatalf("r1's session: %+v", up)
	}
	// An unrelated change keeps the states and their Since.
	clock = clock.Add(time.Minute)
	r3, _ := n.Device("r3")
	r3.Interfaces[0].Description = "changed"
	if err := n.UpdateDevice(r3); err != nil {
		t.Fatal(err)
	}
	if nb := bgpNbrOf(t, n, "r1", "10.0.12.2"); !nb.Since.Equal(up.Since) {
		t.Errorf("Since moved on an unrelated change: %v", nb.Since)
	}
	if nb := ospfNbrOn(t, n, "r2", r2Gi1); nb.State != OSPFFull || !nb.Since.Equal(up.Since) {
		t.Errorf("r2's OSPF neighbour after an unrelated change: %+v", nb)
	}
	// bgp_acl_block on r2: the hold timer expires on both sides.
	clock = clock.Add(time.Minute)
	r2, _ := n.Device("r2")
	r2.ACLs = append(r2.ACLs, topology.ACL{Name: "NO-BGP", Rules: deny179})
	r2.Interfaces[1].IngressACL = "NO-BGP"
	if err := n.UpdateDevice(r2); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dev, peer string }{{"r1", "10.0.12.2"}, {"r2", "10.0.12.1"}} {
		nb := bgpNbrOf(t, n, c.dev, c.peer)
		if nb.State != BGPActive || nb.LastError != errHoldTimer || !nb.Since.Equal(clock) {
			t.Errorf("%s after the ACL: %s %q since %v", c.dev, nb.State, nb.LastError, nb.Since)
		}
	}
	// The error stays while the session stays down, and goes with nothing new when it is back.
	r2.Interfaces[1].IngressACL = ""
	if err := n.UpdateDevice(r2); err != nil {
		t.Fatal(err)
	}
	if nb := bgpNbrOf(t, n, "r1", "10.0.12.2"); nb.State != BGPEstablished || nb.LastError != errHoldTimer {
		t.Errorf("r1 after removing the ACL: %s %q", nb.State, nb.LastError)
	}
	// frr_service_down on r3: r2 sees the iBGP hold timer expire and the OSPF neighbour die.
	if err := n.SetFaults([]topology.Fault{frrDown("r3")}); err != nil {
		t.Fatal(err)
	}
	if nb := bgpNbrOf(t, n, "r2", "10.255.0.3"); nb.State != BGPActive || nb.LastError != errHoldTimer {
		t.Errorf("r2's iBGP session with r3 down: %s %q", nb.State, nb.LastError)
	}
	if nb := ospfNbrOn(t, n, "r2", r2Gi1); nb.State != OSPFDown || nb.Reason != reasonDeadTimer {
		t.Errorf("r2's OSPF neighbour with r3's daemon down: %+v", nb)
	}
	st, _ := n.OSPF("r3")
	bs, _ := n.BGP("r3")
	if st.Running || bs.Running || !st.Configured || !bs.Configured {
		t.Errorf("r3 with its daemon down: OSPF running %v, BGP running %v", st.Running, bs.Running)
	}
	if rs, _ := n.BGPRoutes("r3", 4); len(rs) != 0 {
		t.Errorf("r3's BGP table with its daemon down: %v", rs)
	}
	if err := n.SetFaults(nil); err != nil {
		t.Fatal(err)
	}
	if nb := ospfNbrOn(t, n, "r2", r2Gi1); nb.State != OSPFFull {
		t.Errorf("r2's OSPF neighbour after the daemon is back: %+v", nb)
	}
}

// TestAdjacencies checks the one-pass list of every adjacency and session.
func TestAdjacencies(t *testing.T) {
	n := newLab(t, defaultTopo(t))
	var got []string
	for _, a := range n.Adjacencies() {
		got = append(got, fmt.Sprintf("%s %s %s %s %s", a.Device, a.Protocol, a.Peer, a.Interface, a.State))
	}
	want := []string{
		"r1 ospf 10.255.0.2 GigabitEthernet0/0/0 Full", "r1 bgp 10.0.12.2  Established",
		"r2 ospf 10.255.0.1 GigabitEthernet0/0/0/0 Full", "r2 ospf 10.255.0.3 GigabitEthernet0/0/0/1 Full",
		"r2 bgp 10.0.12.1  Established", "r2 bgp 10.255.0.3  Established",
		"r3 ospf 10.255.0.2 GigabitEthernet0/0/0 Full", "r3 bgp 10.255.0.2  Established",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Adjacencies:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A network without protocols has none, and reports none configured.
	n = newLab(t, lineLab())
	if a := n.Adjacencies(); len(a) != 0 {
		t.Errorf("line lab: %v", a)
	}
	if st, err := n.OSPF("r1"); err != nil || st.Configured {
		t.Errorf("line lab r1 OSPF: %+v %v", st, err)
	}
	if _, err := n.BGP("nope"); err == nil {
		t.Error("BGP of an unknown device: no error")
	}
}

// TestBGPTable checks the paths of the default lab's BGP tables.
func TestBGPTable(t *testing.T) {
	n := newLab(t, defaultTopo(t))
	rs, err := n.BGPRoutes("r1", 4)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		got = append(got, fmt.Sprintf("%s nh=%v from=%v as=%v best=%v valid=%v internal=%v", r.Prefix, r.NextHop, r.From, r.ASPath, r.Best, r.Valid, r.Internal))
	}
	want := "10.3.0.0/24 nh=10.0.12.2 from=10.0.12.2 as=[65000] best=true valid=true internal=false\n" +
		"172.16.0.0/12 nh=invalid IP from=invalid IP as=[] best=true valid=true internal=false"
	if strings.Join(got, "\n") != want {
		t.Errorf("r1's BGP table:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
	nb := bgpNbrOf(t, n, "r2", "10.255.0.3")
	if nb.PrefixesReceived != 1 || nb.PrefixesSent != 1 || nb.LocalAddress != addr("10.255.0.2") || nb.RemoteRouterID != addr("10.255.0.3") || !nb.Internal {
		t.Errorf("r2's iBGP neighbour: %+v", nb)
	}
	if _, err := n.BGPRoutes("r1", 5); err == nil {
		t.Error("family 5: no error")
	}
}
