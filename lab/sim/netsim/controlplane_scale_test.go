package netsim

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// broadcastLab is four routers on one switched segment (VLAN 10) running
// OSPF as a broadcast network, each with a passive loopback; priorities
// make r4 ineligible.
func broadcastLab() topology.Topology {
	t := topology.Topology{Name: "broadcast"}
	sw := topology.Device{Name: "sw", Kind: topology.KindSwitch, VLANs: []topology.VLAN{{ID: 10}}}
	for i := 1; i <= 4; i++ {
		prio := 1
		if i == 4 {
			prio = 0
		}
		p := prio
		name := fmt.Sprintf("r%d", i)
		t.Devices = append(t.Devices, topology.Device{Name: name, RouterID: fmt.Sprintf("10.255.0.%d", i), OSPF: &topology.OSPF{},
			Interfaces: []topology.Interface{
				{Name: g0, Addresses: []string{fmt.Sprintf("10.0.0.%d/24", i)}, OSPF: &topology.InterfaceOSPF{Area: "0", Priority: &p}},
				{Name: lo, Type: "softwareLoopback", Addresses: []string{fmt.Sprintf("10.255.0.%d/32", i)}, OSPF: &topology.InterfaceOSPF{Area: "0", Passive: true}},
			}})
		port := fmt.Sprintf("Gi%d", i)
		sw.Interfaces = append(sw.Interfaces, topology.Interface{Name: port, AccessVLAN: 10})
		t.Links = append(t.Links, topology.Link{A: name + ":" + g0, B: "sw:" + port})
	}
	t.Devices = append(t.Devices, sw)
	return t
}

// TestOSPFBroadcast checks the DR/BDR election (highest router id among
// eligible routers), Full adjacencies with the DR and BDR only, 2-Way
// between DROthers, and routes between every pair.
func TestOSPFBroadcast(t *testing.T) {
	n := newLab(t, broadcastLab())
	st, _ := n.OSPF("r1")
	if it := st.Interfaces[0]; it.State != "DROther" || it.DR != addr("10.0.0.3") || it.BDR != addr("10.0.0.2") {
		t.Errorf("r1's segment: %+v", it)
	}
	want := map[string]string{"10.255.0.2": OSPFFull + "/Backup", "10.255.0.3": OSPFFull + "/DR", "10.255.0.4": OSPF2Way + "/DROther"}
	for _, nb := range st.Neighbors {
		if got := nb.State + "/" + nb.Role; got != want[nb.NeighborID.String()] {
			t.Errorf("r1's neighbour %s: %s, want %s", nb.NeighborID, got, want[nb.NeighborID.String()])
		}
	}
	if st, _ := n.OSPF("r3"); st.Interfaces[0].State != "DR" {
		t.Errorf("r3: %s, want DR", st.Interfaces[0].State)
	}
	// DROthers reach each other through the segment.
	if r := activeRoute(t, n, "r1", "10.255.0.4/32"); r.Protocol != ProtoOSPF || r.NextHop != addr("10.0.0.4") || r.Metric != 11 {
		t.Errorf("r1 -> r4's loopback: %+v", r)
	}
	// The DR's daemon going down: a new election among the others.
	n = newLab(t, broadcastLab(), topology.Fault{Name: "frr_service_down", Target: "r3"})
	if st, _ := n.OSPF("r1"); st.Interfaces[0].DR != addr("10.0.0.2") || st.Interfaces[0].BDR != addr("10.0.0.1") {
		t.Errorf("after r3's daemon stops: DR %v BDR %v", st.Interfaces[0].DR, st.Interfaces[0].BDR)
	}
	if r := activeRoute(t, n, "r4", "10.255.0.1/32"); r.Protocol != ProtoOSPF {
		t.Errorf("r4 -> r1's loopback with r3 down: %+v", r)
	}
}

// TestControlValidation checks that bad OSPF and BGP configuration is refused with a clear error.
func TestControlValidation(t *testing.T) {
	cases := []struct {
		name   string
		mutate mutation
		want   string
	}{
		{"area", setIfOSPF("r3", r3Gi, func(c *topology.InterfaceOSPF) { c.Area = "backbone" }), `area "backbone"`},
		{"network type", setIfOSPF("r3", r3Gi, func(c *topology.InterfaceOSPF) { c.NetworkType = "nbma" }), "network-type"},
		{"hello", setIfOSPF("r3", r3Gi, func(c *topology.InterfaceOSPF) { c.Hello = 70000 }), "hello-interval 70000"},
		{"no process", func(t *testing.T, topo *topology.Topology) { devIndex(t, topo, "r3").OSPF = nil }, "no OSPF process"},
		{"asn", func(t *testing.T, topo *topology.Topology) { devIndex(t, topo, "r3").BGP.ASN = 0 }, "asn must be"},
		{"neighbor address", bgpNeighbor("r1", "10.0.12.2", func(n *topology.BGPNeighbor) { n.Address = "r2" }), "not an IP address"},
		{"remote-as", bgpNeighbor("r1", "10.0.12.2", func(n *topology.BGPNeighbor) { n.RemoteAS = 0 }), "remote-as must be"},
		{"update-source", bgpNeighbor("r2", "10.255.0.3", func(n *topology.BGPNeighbor) { n.UpdateSource = "Loopback9" }), `update-source "Loopback9"`},
		{"own address", bgpNeighbor("r1", "10.0.12.2", func(n *topology.BGPNeighbor) { n.Address = "10.0.12.1" }), "address of the device itself"},
		{"network", func(t *testing.T, topo *topology.Topology) {
			devIndex(t, topo, "r3").BGP.Networks = []string{"10.3.0.0"}
		}, `network "10.3.0.0"`},
		{"redistribute", func(t *testing.T, topo *topology.Topology) {
			devIndex(t, topo, "r3").BGP.Redistribute = []string{"rip"}
		}, `redistribute "rip"`},
		{"host", func(t *testing.T, topo *topology.Topology) { devIndex(t, topo, "h3").BGP = &topology.BGP{ASN: 1} }, "a host runs no OSPF or BGP"},
		{"named fault", func(t *testing.T, topo *topology.Topology) {
			topo.Faults = []topology.Fault{{Name: "link_detach", Target: "r2:Gi9"}}
		}, `no interface "Gi9"`},
		{"configuration fault in the model's list", func(t *testing.T, topo *topology.Topology) {
			topo.Faults = []topology.Fault{{Name: "ospf_acl_block", Target: "r2:GigabitEthernet0/0/0/0"}}
		}, "a configuration fault"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			topo := defaultTopo(t)
			c.mutate(t, &topo)
			_, err := New(topo, Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("New: %v, want an error with %q", err, c.want)
			}
		})
	}
}

// protoChain is n routers in a line running OSPF (point-to-point links,
// passive loopbacks) and BGP: each router its own AS, eBGP to both
// neighbours over the links, advertising a /24 LAN of its own.
func protoChain(n int) topology.Topology {
	t := topology.Topology{Name: fmt.Sprintf("protochain%d", n)}
	link := func(i int) string { return fmt.Sprintf("10.%d.%d.", 100+i/64, (i%64)*4) } // link i joins r(i) and r(i+1)
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("r%d", i)
		d := topology.Device{Name: name, OSPF: &topology.OSPF{},
			BGP: &topology.BGP{ASN: uint32(64512 + i), Networks: []string{fmt.Sprintf("172.%d.%d.0/24", 16+i/256, i%256)}},
			Interfaces: []topology.Interface{
				{Name: lo, Type: "softwareLoopback", Addresses: []string{fmt.Sprintf("192.0.%d.%d/32", i/250, i%250+1)},
					OSPF: &topology.InterfaceOSPF{Area: "0", Passive: true}},
				{Name: g2, Addresses: []string{fmt.Sprintf("172.%d.%d.1/24", 16+i/256, i%256)}},
			},
			// A server on the LAN keeps it up (no link: an unmodelled host).
			Neighbors: []topology.Neighbor{{IP: fmt.Sprintf("172.%d.%d.10", 16+i/256, i%256), MAC: "00:50:56:00:00:10", Interface: g2}}}
		if i > 0 {
			d.Interfaces = append(d.Interfaces, topology.Interface{Name: g0, Addresses: []string{link(i-1) + "2/30"},
				OSPF: &topology.InterfaceOSPF{Area: "0", NetworkType: topology.OSPFPointToPoint}})
			d.BGP.Neighbors = append(d.BGP.Neighbors, topology.BGPNeighbor{Address: link(i-1) + "1", RemoteAS: uint32(64512 + i - 1)})
		}
		if i < n-1 {
			d.Interfaces = append(d.Interfaces, topology.Interface{Name: g1, Addresses: []string{link(i) + "1/30"},
				OSPF: &topology.InterfaceOSPF{Area: "0", NetworkType: topology.OSPFPointToPoint}})
			d.BGP.Neighbors = append(d.BGP.Neighbors, topology.BGPNeighbor{Address: link(i) + "2", RemoteAS: uint32(64512 + i + 1)})
			t.Links = append(t.Links, topology.Link{A: name + ":" + g1, B: fmt.Sprintf("r%d:%s", i+1, g0)})
		}
		t.Devices = append(t.Devices, d)
	}
	return t
}

// ospfGrid is a w x h grid of routers running OSPF only.
func ospfGrid(w, h int) topology.Topology {
	t := topology.Topology{Name: fmt.Sprintf("grid%dx%d", w, h)}
	name := func(x, y int) string { return fmt.Sprintf("r%d_%d", x, y) }
	nl := 0
	ifs := map[string][]topology.Interface{}
	join := func(a, b string) {
		p := fmt.Sprintf("10.%d.%d.", 100+nl/64, (nl%64)*4)
		ia, ib := fmt.Sprintf("Gi0/0/0/%d", len(ifs[a])), fmt.Sprintf("Gi0/0/0/%d", len(ifs[b]))
		o := func() *topology.InterfaceOSPF {
			return &topology.InterfaceOSPF{Area: "0", NetworkType: topology.OSPFPointToPoint}
		}
		ifs[a] = append(ifs[a], topology.Interface{Name: ia, Addresses: []string{p + "1/30"}, OSPF: o()})
		ifs[b] = append(ifs[b], topology.Interface{Name: ib, Addresses: []string{p + "2/30"}, OSPF: o()})
		t.Links = append(t.Links, topology.Link{A: a + ":" + ia, B: b + ":" + ib})
		nl++
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if x+1 < w {
				join(name(x, y), name(x+1, y))
			}
			if y+1 < h {
				join(name(x, y), name(x, y+1))
			}
		}
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			nm := name(x, y)
			its := append([]topology.Interface{{Name: lo, Type: "softwareLoopback", Addresses: []string{fmt.Sprintf("192.0.%d.%d/32", i/250, i%250+1)},
				OSPF: &topology.InterfaceOSPF{Area: "0", Passive: true}}}, ifs[nm]...)
			t.Devices = append(t.Devices, topology.Device{Name: nm, OSPF: &topology.OSPF{}, Interfaces: its})
		}
	}
	return t
}

// TestControlPlaneScale builds a 200-router OSPF+BGP chain and a 200-router
// OSPF grid and checks that they converge end to end (no timing asserted).
func TestControlPlaneScale(t *testing.T) {
	if testing.Short() {
		t.Skip("scale")
	}
	n := newLab(t, protoChain(200))
	for _, c := range []struct{ dev, peer string }{{"r0", "10.100.0.2"}, {"r199", "10.103.24.1"}} {
		if nb := bgpNbrOf(t, n, c.dev, c.peer); nb.State != BGPEstablished {
			t.Errorf("%s -> %s: %s", c.dev, c.peer, nb.State)
		}
	}
	// r0 learns r199's LAN over 199 eBGP hops, and the AS path says so.
	r := activeRoute(t, n, "r0", "172.16.199.0/24")
	if r.Protocol != ProtoBGP || r.Preference != prefEBGP {
		t.Errorf("r0 -> r199's LAN: %+v", r)
	}
	rs, _ := n.BGPRoutes("r0", 4)
	for _, x := range rs {
		if x.Prefix.String() == "172.16.199.0/24" && x.Best && len(x.ASPath) != 199 {
			t.Errorf("AS path to r199's LAN: %d ASes, want 199", len(x.ASPath))
		}
	}
	if o, _ := n.Ping(ProbeRequest{From: "r0", Destination: addr("172.16.199.1"), Count: 1, TTL: 255}); o.Received() != 1 {
		t.Errorf("ping r199 on its LAN from r0 (a BGP route):\n%s", o.Render())
	}
	g := newLab(t, ospfGrid(10, 20))
	if r := activeRoute(t, g, "r0_0", "192.0.0.200/32"); r.Protocol != ProtoOSPF || r.Metric != 9+19+10 {
		t.Errorf("grid corner to corner: %+v", r)
	}
}

// BenchmarkConvergeOSPFBGP200 builds and converges the 200-router OSPF+BGP
// chain (every session and every router's tables computed) and reports
// the time and memory of one build.
func BenchmarkConvergeOSPFBGP200(b *testing.B) {
	topo := protoChain(200)
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	start := time.Now()
	builds := 0
	for b.Loop() {
		n, err := New(topo, Options{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		if rs, _ := n.Routes("r0", "", 4); len(rs) < 400 {
			b.Fatalf("r0 has %d routes", len(rs))
		}
		builds++
	}
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.TotalAlloc-before)/float64(builds)/1e6, "MB-alloc/build")
	b.Logf("200 routers, OSPF + eBGP chain: %v per build and convergence, %.1f MB allocated per build",
		time.Since(start)/time.Duration(builds), float64(ms.TotalAlloc-before)/float64(builds)/1e6)
}
