// Package netsim is the network model behind the simulated driver: from a
// topology.Topology it derives interface state, ARP/ND tables and routing
// tables (connected, static, a link-state IGP), and it forwards simulated
// probes hop by hop through ACLs, MTUs, link state and injected faults, so
// ping, traceroute and interface counters tell what the modelled network
// would really do. Outcomes are structured and also render as the text of
// the Linux tools (iputils ping, traceroute 2.1, tracepath).
package netsim

import (
	"net/netip"
	"sync"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// Options tune a Network.
type Options struct {
	// Seed makes packet loss and jitter deterministic per run.
	Seed int64
	// Now is the clock that stamps probe outcomes (time.Now when nil).
	Now func() time.Time
	// MaxTableRoutes bounds the routes of the routing tables kept
	// computed (0: DefaultMaxTableRoutes); see tableCache.
	MaxTableRoutes int
}

// Network is a simulated network. All methods are safe for concurrent use.
type Network struct {
	mu    sync.RWMutex
	opts  Options
	topo  topology.Topology
	state *state
	// counters and lossSeq survive rebuilds: they are keyed by name.
	counters map[string]*Counters
	lossSeq  map[string]uint64
	probes   uint64
	rebuilds uint64 // times the derived state was computed (see Rebuilds)
	// edge holds the modelled background and protocol traffic, counter
	// clears and capture rings (traffic.go).
	edge edgeState
}

// Counters are an interface's traffic counters.
type Counters struct {
	InOctets, OutOctets     uint64
	InPkts, OutPkts         uint64
	InErrors, OutErrors     uint64
	InDiscards, OutDiscards uint64
	// LastClear is when the counters were last cleared (zero: never).
	LastClear time.Time
}

// IfState is the derived state of one interface.
type IfState struct {
	AdminUp bool
	OperUp  bool
	// OperReason tells why OperUp is false: "admin-down", "no-link",
	// "link-down fault", "peer admin-down", "no carrier" (a detached end)
	// or "lower-layer-down".
	OperReason string
	// MTU is the effective MTU (an "mtu" fault overrides the configured one).
	MTU      int
	MAC      string
	Counters Counters
}

// Route is one entry of a routing table.
type Route struct {
	Prefix netip.Prefix
	// Protocol is "direct", "static" or "igp".
	Protocol   string
	Preference int
	Metric     int
	// NextHop is the invalid Addr when the route has no next hop.
	NextHop   netip.Addr
	Interface string
	// Active is false for a static route whose next hop is unresolved, or
	// one that lost to a better-preference route.
	Active  bool
	Discard bool
}

// Neighbor is one ARP (IPv4) or ND (IPv6) entry.
type Neighbor struct {
	IP        netip.Addr
	MAC       string
	Interface string
	VRF       string
	// Dynamic is true for entries learned from connected devices, false
	// for static entries of the topology.
	Dynamic bool
}

// ProbeRequest asks for a ping or traceroute from a device.
type ProbeRequest struct {
	// From is the device that sends the probes.
	From string
	// VRF is the routing instance ("" = global).
	VRF string
	// Source is a source address or interface name of From (optional).
	Source      string
	Destination netip.Addr
	// Count is the number of pings (default 5) or probes per hop for
	// traceroute (default 3).
	Count int
	// Size is the ICMP payload size (default 56 for ping); for traceroute
	// the whole packet length (default 60).
	Size         int
	DontFragment bool
	// MaxHops bounds traceroute and tracepath (default 30); ping ignores it.
	MaxHops int
	// TTL is the time to live of ping's echo requests (default 64, as
	// Linux sends them); traceroute ignores it.
	TTL int
	// Protocol is "icmp" (default for ping) or "udp" (default for traceroute).
	Protocol string
	// DstPort is the UDP destination port (traceroute default 33434, incremented per probe).
	DstPort int
}
