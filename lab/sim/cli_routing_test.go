package sim

import (
	"context"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/sim/netsim"
)

// testRoutingSnap is a control plane in every interesting state: an
// established eBGP session with prefixes, an iBGP peer stuck in Active, a
// peer Idle on a wrong AS, an administratively shut peer; a Full OSPF
// adjacency, one stuck in ExStart on an MTU mismatch, and a broadcast
// interface with a DR.
func testRoutingSnap() routingSnap {
	now := time.Date(2025, 10, 19, 3, 27, 0, 0, time.UTC)
	a := netip.MustParseAddr
	p := netip.MustParsePrefix
	up := now.Add(-(2*time.Hour + 3*time.Minute + 4*time.Second))
	return routingSnap{
		now:  now,
		prio: map[string]int{"GigabitEthernet0/0/0/2": 100},
		addrs: map[string][]netip.Prefix{"Loopback0": {p("10.255.0.2/32")}, "GigabitEthernet0/0/0/0": {p("10.0.12.2/30")},
			"GigabitEthernet0/0/0/1": {p("10.0.23.1/30")}, "GigabitEthernet0/0/0/2": {p("10.0.99.1/24")}},
		ospf: netsim.OSPFState{Configured: true, Running: true, RouterID: a("10.255.0.2"), Areas: []string{"0.0.0.0", "0.0.0.1"},
			Interfaces: []netsim.OSPFInterface{
				{Interface: "Loopback0", Area: "0.0.0.0", NetworkType: "point-to-point", Cost: 1, Hello: 10, Dead: 40, Passive: true, MTU: 1500, Up: true, Address: p("10.255.0.2/32"), State: "Loopback"},
				{Interface: "GigabitEthernet0/0/0/0", Area: "0.0.0.0", NetworkType: "point-to-point", Cost: 1, Hello: 10, Dead: 40, MTU: 1500, Up: true, Address: p("10.0.12.2/30"), State: "Point-To-Point"},
				{Interface: "GigabitEthernet0/0/0/1", Area: "0.0.0.0", NetworkType: "point-to-point", Cost: 10, Hello: 10, Dead: 40, MTU: 1500, Up: true, Address: p("10.0.23.1/30"), State: "Point-To-Point"},
				{Interface: "GigabitEthernet0/0/0/2", Area: "0.0.0.1", NetworkType: "broadcast", Cost: 1, Hello: 10, Dead: 40, MTU: 1500, Up: true, Address: p("10.0.99.1/24"), State: "DR", DR: a("10.0.99.1"), BDR: a("10.0.99.2")},
			},
			Neighbors: []netsim.OSPFNeighbor{
				{Interface: "GigabitEthernet0/0/0/0", NeighborID: a("10.255.0.1"), Address: a("10.0.12.1"), Priority: 1, State: netsim.OSPFFull, Since: up, DeadSeconds: 40},
				{Interface: "GigabitEthernet0/0/0/1", NeighborID: a("10.255.0.3"), Address: a("10.0.23.2"), Priority: 1, State: netsim.OSPFExStart,
					Reason: "MTU mismatch (local 1500, neighbour 1400)", Since: now.Add(-42 * time.Second), DeadSeconds: 40},
				{Interface: "GigabitEthernet0/0/0/2", NeighborID: a("10.255.0.9"), Address: a("10.0.99.2"), Priority: 1, State: netsim.OSPFFull, Role: "BDR", Since: up, DeadSeconds: 40},
			}},
		bgp: netsim.BGPState{Configured: true, Running: true, ASN: 65000, RouterID: a("10.255.0.2"),
			Neighbors: []netsim.BGPNeighbor{
				{Address: a("10.0.12.1"), RemoteAS: 65001, LocalAS: 65000, Description: "r1", State: netsim.BGPEstablished,
					LocalAddress: a("10.0.12.2"), RemoteRouterID: a("10.255.0.1"), Since: up, PrefixesReceived: 1, PrefixesAccepted: 1, PrefixesSent: 1, Keepalive: 60, Hold: 180},
				{Address: a("10.255.0.3"), RemoteAS: 65000, LocalAS: 65000, Description: "r3", Internal: true, State: netsim.BGPActive,
					LastError: "Waiting for NHT", Since: now.Add(-5 * time.Minute), Keepalive: 60, Hold: 180},
				{Address: a("10.0.99.9"), RemoteAS: 65099, LocalAS: 65000, State: netsim.BGPIdle,
					LastError: "OPEN Message Error/Bad Peer AS", Since: now.Add(-30 * time.Second), Keepalive: 60, Hold: 180},
				{Address: a("10.0.99.8"), RemoteAS: 65098, LocalAS: 65000, State: netsim.BGPIdle, AdminDown: true, Since: now.Add(-26 * time.Hour)},
			}},
		routes: []netsim.BGPRoute{
			{Prefix: p("10.3.0.0/24"), NextHop: a("10.255.0.3"), From: a("10.255.0.3"), LocalPref: 100, Origin: "IGP", Internal: true, Best: false, Valid: false},
			{Prefix: p("172.16.0.0/12"), NextHop: a("10.0.12.1"), From: a("10.0.12.1"), ASPath: []uint32{65001}, LocalPref: 100, Origin: "IGP", Best: true, Valid: true},
			{Prefix: p("198.51.100.0/24"), Origin: "incomplete", LocalPref: 100, Best: true, Valid: true},
		},
		rib: []netsim.Route{
			{Prefix: p("10.255.0.1/32"), Protocol: netsim.ProtoOSPF, Preference: 110, Metric: 2, NextHop: a("10.0.12.1"), Interface: "GigabitEthernet0/0/0/0", Active: true},
			{Prefix: p("172.16.0.0/12"), Protocol: netsim.ProtoBGP, Preference: 20, Metric: 0, NextHop: a("10.0.12.1"), Interface: "GigabitEthernet0/0/0/0", Active: true},
		},
	}
}

// TestRoutingCLIConstructed renders a constructed control plane with
// every command of both dialects and compares the output with
// testdata/routing_<dialect>_<command>.golden.
func TestRoutingCLIConstructed(t *testing.T) {
	s := testRoutingSnap()
	cases := []struct {
		name   string
		render func(routingSnap, []string) (string, error)
		args   []string
	}{
		{"vrp_display_bgp_peer", vrpBGPPeer, nil},
		{"vrp_display_bgp_peer_10.0.99.9_verbose", vrpBGPPeer, []string{"10.0.99.9", "verbose"}},
		{"vrp_display_bgp_peer_10.0.12.1", vrpBGPPeer, []string{"10.0.12.1"}},
		{"vrp_display_bgp_routing-table", vrpBGPRoutingTable, nil},
		{"vrp_display_ospf_peer", vrpOSPFPeer, nil},
		{"vrp_display_ospf_peer_brief", vrpOSPFPeerBrief, nil},
		{"vrp_display_ospf_interface", vrpOSPFInterface, nil},
		{"xr_show_bgp_summary", xrBGPSummary, nil},
		{"xr_show_bgp_neighbor", xrBGPNeighbor, nil},
		{"xr_show_bgp_neighbor_10.0.99.9", xrBGPNeighbor, []string{"10.0.99.9"}},
		{"xr_show_bgp", xrBGPTable, nil},
		{"xr_show_ospf_neighbor", xrOSPFNeighbor, nil},
		{"xr_show_ospf_interface_brief", xrOSPFInterfaceBrief, nil},
		{"xr_show_route_bgp", func(s routingSnap, a []string) (string, error) { return xrRouteProto(s, a, netsim.ProtoBGP) }, nil},
		{"xr_show_route_ospf", func(s routingSnap, a []string) (string, error) { return xrRouteProto(s, a, netsim.ProtoOSPF) }, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := tc.render(s, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", "routing_"+tc.name+".golden"), out)
		})
	}
}

// TestRoutingCLIStates checks that the renderings say what the states are:
// the last error and the reason of a stuck adjacency reach the operator.
func TestRoutingCLIStates(t *testing.T) {
	s := testRoutingSnap()
	for _, tc := range []struct {
		render func(routingSnap, []string) (string, error)
		args   []string
		want   []string
	}{
		{vrpBGPPeer, []string{"10.0.99.9", "verbose"}, []string{"BGP current state: Idle", "Last error: OPEN Message Error/Bad Peer AS"}},
		{vrpBGPPeer, nil, []string{"Established", "Idle(Admin)", "Active"}},
		{xrBGPNeighbor, []string{"10.0.99.9"}, []string{"BGP state = Idle", "due to OPEN Message Error/Bad Peer AS"}},
		{xrBGPSummary, nil, []string{"Idle (Admin)", "Active"}},
		{vrpOSPFPeer, nil, []string{"State: ExStart", "Reason: MTU mismatch"}},
		{xrOSPFNeighbor, nil, []string{"FULL/  -", "EXSTART/  -", "FULL/BDR"}},
	} {
		out, err := tc.render(s, tc.args)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("output lacks %q:\n%s", w, out)
			}
		}
	}
	if _, err := xrBGPNeighbor(s, []string{"192.0.2.1"}); codeOf(err) == 0 {
		t.Error("an unknown neighbour is not an error")
	}
}

// TestRoutingCLIGolden runs the OSPF and BGP commands on the default lab
// (r1 huawei-vrp, r2 cisco-iosxr) and compares them with
// testdata/cli_<device>_<command>.golden.
// The default lab's sessions are Established and its adjacencies Full
// (TestRoutingCLIHealthy asserts it without the goldens).
func TestRoutingCLIGolden(t *testing.T) {
	cases := map[string][]string{
		"r1": {"display bgp peer", "display bgp peer 10.0.12.2 verbose", "display bgp routing-table", "display ospf peer",
			"display ospf peer brief", "display ospf interface"},
		"r2": {"show bgp summary", "show bgp neighbor", "show bgp neighbor 10.0.12.1", "show bgp", "show ospf neighbor",
			"show ospf interface brief", "show route bgp", "show route ospf"},
	}
	lab, _ := newTestLab(t)
	for dev, cmds := range cases {
		d := mustDevice(t, lab, dev)
		for _, cmd := range cmds {
			t.Run(dev+"/"+cmd, func(t *testing.T) {
				out, err := d.Exec(context.Background(), cmd)
				if err != nil {
					t.Fatal(err)
				}
				name := strings.NewReplacer(" ", "_", "/", "-", "|", "pipe").Replace(cmd)
				checkGolden(t, filepath.Join("testdata", "cli_"+dev+"_"+name+".golden"), out)
			})
		}
	}
}

// TestVRPProtoNames: VRP's routing table says EBGP or IBGP after the BGP
// table's best path.
func TestVRPProtoNames(t *testing.T) {
	s := testRoutingSnap()
	s.routes = append(s.routes, netsim.BGPRoute{Prefix: netip.MustParsePrefix("10.9.0.0/16"), Internal: true, Best: true, Valid: true})
	name := vrpProtoNames(s.routes)
	for pfx, want := range map[string]string{"172.16.0.0/12": "EBGP", "10.9.0.0/16": "IBGP"} {
		if got := name(netsim.Route{Prefix: netip.MustParsePrefix(pfx), Protocol: netsim.ProtoBGP}); got != want {
			t.Errorf("%s: %s, want %s", pfx, got, want)
		}
	}
	if got := name(netsim.Route{Protocol: netsim.ProtoOSPF}); got != "OSPF" {
		t.Errorf("ospf route: %s", got)
	}
}

// TestRoutingCLIHealthy: on the default lab, the show commands of both
// dialects report every BGP session Established and every OSPF adjacency
// Full, as the model computes them.
func TestRoutingCLIHealthy(t *testing.T) {
	lab, _ := newTestLab(t)
	ctx := context.Background()
	for _, c := range []struct {
		dev, cmd string
		want     []string
	}{
		{"r1", "display bgp peer", []string{"10.0.12.2", "Established"}},
		{"r1", "display ospf peer brief", []string{"10.255.0.2", "Full"}},
		{"r2", "show bgp summary", []string{"10.0.12.1", "10.255.0.3"}},
		{"r2", "show ospf neighbor", []string{"10.255.0.1", "10.255.0.3", "FULL"}},
	} {
		out, err := mustDevice(t, lab, c.dev).Exec(ctx, c.cmd)
		if err != nil {
			t.Fatalf("%s %q: %v", c.dev, c.cmd, err)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s %q lacks %q:\n%s", c.dev, c.cmd, w, out)
			}
		}
	}
	for _, dev := range []string{"r1", "r2", "r3"} {
		bgp, _ := lab.Network().BGP(dev)
		for _, n := range bgp.Neighbors {
			if n.State != "Established" {
				t.Errorf("%s: BGP neighbour %s is %s (%s)", dev, n.Address, n.State, n.LastError)
			}
		}
	}
}
