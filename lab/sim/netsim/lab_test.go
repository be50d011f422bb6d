package netsim

import (
	"net/netip"
	"testing"

	"github.com/netmcp/netmcp/lab/topology"
)

// Interface names used by the test labs.
const (
	g0 = "GigabitEthernet0/0/0/0"
	g1 = "GigabitEthernet0/0/0/1"
	g2 = "GigabitEthernet0/0/0/2"
	g3 = "GigabitEthernet0/0/0/3"
	lo = "Loopback0"
)

// lineLab is three routers in a line, a host LAN behind r1 through a
// switch, a server LAN with static neighbors behind r3 and a VRF on r3:
//
//	h1,h3 -- sw1(vlan10) -- r1 -- r2 -- r3 -- 10.0.3.0/24 (static neighbors)
//	                                     \-- h4 (vrf cust, 192.168.0.0/24)
func lineLab() topology.Topology {
	host := func(name, addr, addr6, gw, gw6 string) topology.Device {
		return topology.Device{Name: name, Kind: topology.KindHost,
			Interfaces: []topology.Interface{{Name: "eth0", Addresses: []string{addr, addr6}}},
			Routes:     []topology.StaticRoute{{Prefix: "0.0.0.0/0", NextHop: gw}, {Prefix: "::/0", NextHop: gw6}}}
	}
	h4 := host("h4", "192.168.0.2/24", "2001:db8:c::2/64", "192.168.0.1", "2001:db8:c::1")
	return topology.Topology{
		Name: "line",
		Devices: []topology.Device{
			host("h1", "10.0.1.10/24", "2001:db8:1::10/64", "10.0.1.1", "2001:db8:1::1"),
			host("h3", "10.0.1.11/24", "2001:db8:1::11/64", "10.0.1.1", "2001:db8:1::1"),
			{Name: "sw1", Kind: topology.KindSwitch, VLANs: []topology.VLAN{{ID: 10, Name: "users"}},
				Interfaces: []topology.Interface{
					{Name: "Gi1", AccessVLAN: 10}, {Name: "Gi2", AccessVLAN: 10}, {Name: "Gi3", TrunkVLANs: []int{10, 20}},
					{Name: "Vlan10", RoutedVLAN: 10, Addresses: []string{"10.0.1.2/24"}},
					{Name: "Vlan20", RoutedVLAN: 20}, {Name: "Gi9", AccessVLAN: 10}}},
			{Name: "r1", Interfaces: []topology.Interface{
				{Name: g0, Addresses: []string{"10.0.12.1/30", "2001:db8:12::1/64"}},
				{Name: g1, TrunkVLANs: []int{10}},
				{Name: "BVI10", RoutedVLAN: 10, Addresses: []string{"10.0.1.1/24", "2001:db8:1::1/64"}, Passive: true},
				{Name: g2, Addresses: []string{"10.0.99.1/30"}},
				{Name: lo, Type: "softwareLoopback", Addresses: []string{"1.1.1.1/32", "2001:db8::1/128"}}},
				VLANs: []topology.VLAN{{ID: 10}}},
			{Name: "r2", Interfaces: []topology.Interface{
				{Name: g0, Addresses: []string{"10.0.12.2/30", "2001:db8:12::2/64"}},
				{Name: g1, Addresses: []string{"10.0.23.1/30", "2001:db8:23::1/64"}},
				{Name: lo, Addresses: []string{"2.2.2.2/32", "2001:db8::2/128"}}},
				Routes: []topology.StaticRoute{{Prefix: "10.99.0.0/16", Discard: true}}},
			{Name: "r3", VRFs: []topology.VRF{{Name: "cust", RD: "65000:1"}},
				Interfaces: []topology.Interface{
					{Name: g0, Addresses: []string{"10.0.23.2/30", "2001:db8:23::2/64"}},
					{Name: g1, Addresses: []string{"10.0.3.1/24"}, Passive: true},
					{Name: g2, VRF: "cust", Addresses: []string{"192.168.0.1/24", "2001:db8:c::1/64"}},
					{Name: lo, Addresses: []string{"3.3.3.3/32", "2001:db8::3/128"}}},
				Neighbors: []topology.Neighbor{
					{IP: "10.0.3.50", MAC: "00:50:56:00:00:50", Interface: g1},
					{IP: "10.0.3.51", MAC: "00:50:56:00:00:51", Interface: g1, Unreachable: true}},
				Routes: []topology.StaticRoute{
					{Prefix: "10.99.0.0/16", NextHop: "2.2.2.2"},
					{Prefix: "10.98.0.0/16", NextHop: "10.200.0.1"}}},
			h4,
		},
		Links: []topology.Link{
			{A: "h1:eth0", B: "sw1:Gi1"}, {A: "h3:eth0", B: "sw1:Gi2"}, {A: "sw1:Gi3", B: "r1:" + g1},
			{A: "r1:" + g0, B: "r2:" + g0}, {A: "r2:" + g1, B: "r3:" + g0, Delay: 2},
			{A: "r3:" + g2, B: "h4:eth0"},
		},
	}
}

// newLab builds a network with a fixed seed.
func newLab(t testing.TB, topo topology.Topology, faults ...topology.Fault) *Network {
	t.Helper()
	topo.Faults = faults
	n, err := New(topo, Options{Seed: 1})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return n
}

func addr(s string) netip.Addr { return netip.MustParseAddr(s) }
