package netsim_test

import (
	"fmt"
	"net/netip"

	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
)

// Two routers and a host; a link-down fault makes the far router
// unreachable, and the host's first router answers "Net Unreachable".
func Example() {
	topo := topology.Topology{
		Devices: []topology.Device{
			{Name: "pc", Kind: topology.KindHost,
				Interfaces: []topology.Interface{{Name: "eth0", Addresses: []string{"10.0.0.10/24"}}},
				Routes:     []topology.StaticRoute{{Prefix: "0.0.0.0/0", NextHop: "10.0.0.1"}}},
			{Name: "r1", Interfaces: []topology.Interface{
				{Name: "Gi0", Addresses: []string{"10.0.0.1/24"}},
				{Name: "Gi1", Addresses: []string{"10.0.12.1/30"}}}},
			{Name: "r2", Interfaces: []topology.Interface{
				{Name: "Gi0", Addresses: []string{"10.0.12.2/30"}},
				{Name: "Lo0", Type: "softwareLoopback", Addresses: []string{"2.2.2.2/32"}}}},
		},
		Links: []topology.Link{{A: "pc:eth0", B: "r1:Gi0"}, {A: "r1:Gi1", B: "r2:Gi0"}},
	}
	n, err := netsim.New(topo, netsim.Options{Seed: 1})
	if err != nil {
		panic(err)
	}
	req := netsim.ProbeRequest{From: "pc", Destination: netip.MustParseAddr("2.2.2.2"), Count: 2}
	ok, _ := n.Ping(req)
	fmt.Println(ok.Received(), "replies, ttl", ok.Replies[0].TTL, "exit", ok.ExitCode())

	n.SetFaults([]topology.Fault{{Kind: topology.FaultLinkDown, Link: "r2:Gi0"}})
	st, _ := n.InterfaceState("r1", "Gi1")
	fmt.Println("r1 Gi1 up:", st.OperUp, st.OperReason)
	down, _ := n.Ping(req)
	fmt.Print(down.Render())
	fmt.Println("exit", down.ExitCode())
	// Output:
	// 2 replies, ttl 254 exit 0
	// r1 Gi1 up: false link-down fault
	// PING 2.2.2.2 (2.2.2.2) 56(84) bytes of data.
	// From 10.0.0.1 icmp_seq=1 Destination Net Unreachable
	// From 10.0.0.1 icmp_seq=2 Destination Net Unreachable
	//
	// --- 2.2.2.2 ping statistics ---
	// 2 packets transmitted, 0 received, +2 errors, 100% packet loss, time 1002ms
	// exit 1
}
