// Package dialecttest holds what the tests of the simulator's CLI dialects
// share: a constructed control plane to render, and golden files.
package dialecttest

import (
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/sim/netsim"
)

// Routing is a control plane in every interesting state: an
// established eBGP session with prefixes, an iBGP peer stuck in Active, a
// peer Idle on a wrong AS, an administratively shut peer; a Full OSPF
// adjacency, one stuck in ExStart on an MTU mismatch, and a broadcast
// interface with a DR.
func Routing() dialect.Routing {
	now := time.Date(2025, 10, 19, 3, 27, 0, 0, time.UTC)
	a := netip.MustParseAddr
	p := netip.MustParsePrefix
	up := now.Add(-(2*time.Hour + 3*time.Minute + 4*time.Second))
	return dialect.Routing{
		Now:  now,
		Prio: map[string]int{"GigabitEthernet0/0/0/2": 100},
		Addrs: map[string][]netip.Prefix{"Loopback0": {p("10.255.0.2/32")}, "GigabitEthernet0/0/0/0": {p("10.0.12.2/30")},
			"GigabitEthernet0/0/0/1": {p("10.0.23.1/30")}, "GigabitEthernet0/0/0/2": {p("10.0.99.1/24")}},
		OSPF: netsim.OSPFState{Configured: true, Running: true, RouterID: a("10.255.0.2"), Areas: []string{"0.0.0.0", "0.0.0.1"},
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
		BGP: netsim.BGPState{Configured: true, Running: true, ASN: 65000, RouterID: a("10.255.0.2"),
			Neighbors: []netsim.BGPNeighbor{
				{Address: a("10.0.12.1"), RemoteAS: 65001, LocalAS: 65000, Description: "r1", State: netsim.BGPEstablished,
					LocalAddress: a("10.0.12.2"), RemoteRouterID: a("10.255.0.1"), Since: up, PrefixesReceived: 1, PrefixesAccepted: 1, PrefixesSent: 1, Keepalive: 60, Hold: 180},
				{Address: a("10.255.0.3"), RemoteAS: 65000, LocalAS: 65000, Description: "r3", Internal: true, State: netsim.BGPActive,
					LastError: "Waiting for NHT", Since: now.Add(-5 * time.Minute), Keepalive: 60, Hold: 180},
				{Address: a("10.0.99.9"), RemoteAS: 65099, LocalAS: 65000, State: netsim.BGPIdle,
					LastError: "OPEN Message Error/Bad Peer AS", Since: now.Add(-30 * time.Second), Keepalive: 60, Hold: 180},
				{Address: a("10.0.99.8"), RemoteAS: 65098, LocalAS: 65000, State: netsim.BGPIdle, AdminDown: true, Since: now.Add(-26 * time.Hour)},
			}},
		Routes: []netsim.BGPRoute{
			{Prefix: p("10.3.0.0/24"), NextHop: a("10.255.0.3"), From: a("10.255.0.3"), LocalPref: 100, Origin: "IGP", Internal: true, Best: false, Valid: false},
			{Prefix: p("172.16.0.0/12"), NextHop: a("10.0.12.1"), From: a("10.0.12.1"), ASPath: []uint32{65001}, LocalPref: 100, Origin: "IGP", Best: true, Valid: true},
			{Prefix: p("198.51.100.0/24"), Origin: "incomplete", LocalPref: 100, Best: true, Valid: true},
		},
		RIB: []netsim.Route{
			{Prefix: p("10.255.0.1/32"), Protocol: netsim.ProtoOSPF, Preference: 110, Metric: 2, NextHop: a("10.0.12.1"), Interface: "GigabitEthernet0/0/0/0", Active: true},
			{Prefix: p("172.16.0.0/12"), Protocol: netsim.ProtoBGP, Preference: 20, Metric: 0, NextHop: a("10.0.12.1"), Interface: "GigabitEthernet0/0/0/0", Active: true},
		},
	}
}

// Golden compares got with the golden file, or with update rewrites the
// file (a test's -update flag).
func Golden(t *testing.T, golden, got string, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s\n--- got:\n%s\n--- want:\n%s", golden, got, want)
	}
}
