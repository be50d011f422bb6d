package netsim

import (
	"net/netip"
	"time"
)

// This file is the control plane's contract: what the OSPF and BGP models
// answer about a device, for the YANG trees, the CLI renderings, the
// syslog events and the diagnostics above. The values follow FRR's names
// (neighbour states, last errors) so the simulated and the real lab agree.

// OSPF neighbour states, as FRR prints them (RFC 2328, section 10.1).
const (
	OSPFDown     = "Down"
	OSPFInit     = "Init"
	OSPF2Way     = "2-Way"
	OSPFExStart  = "ExStart"
	OSPFExchange = "Exchange"
	OSPFLoading  = "Loading"
	OSPFFull     = "Full"
)

// BGP session states (RFC 4271, section 8.2.2).
const (
	BGPIdle        = "Idle"
	BGPConnect     = "Connect"
	BGPActive      = "Active"
	BGPOpenSent    = "OpenSent"
	BGPOpenConfirm = "OpenConfirm"
	BGPEstablished = "Established"
)

// Route protocols of Route.Protocol beyond "direct", "static" and "igp".
const (
	ProtoOSPF = "ospf"
	ProtoBGP  = "bgp"
)

// OSPFState is a router's OSPFv2 process as `show ip ospf` and the
// openconfig-network-instance ospfv2 tree see it.
type OSPFState struct {
	// Configured is false when the device has no OSPF process.
	Configured bool
	// Running is false when the routing daemon is down (frr_service_down).
	Running    bool
	RouterID   netip.Addr
	Areas      []string // dotted, sorted
	Interfaces []OSPFInterface
	Neighbors  []OSPFNeighbor
}

// OSPFInterface is one interface in OSPF.
type OSPFInterface struct {
	Interface   string
	Area        string // dotted quad
	NetworkType string // point-to-point or broadcast
	Cost        int
	Hello, Dead int // seconds
	Passive     bool
	MTU         int
	MTUIgnore   bool
	// Up tells whether the interface is operationally up with an address.
	Up      bool
	Address netip.Prefix
	// State is the interface state: "Down", "Loopback", "Point-To-Point",
	// "DR", "Backup" or "DROther".
	State string
	// DR and BDR are the designated routers' interface addresses on a
	// broadcast network (invalid when none).
	DR, BDR netip.Addr
}

// OSPFNeighbor is one OSPF neighbour seen on an interface.
type OSPFNeighbor struct {
	Interface  string     // the local interface
	NeighborID netip.Addr // the neighbour's router id
	Address    netip.Addr // the neighbour's interface address
	Priority   int
	State      string // one of the OSPF* states
	// Role is "DR", "Backup" or "DROther" on broadcast networks, "" on
	// point-to-point ones.
	Role string
	// Reason tells why the state is not Full, in FRR's words (e.g.
	// "MTU mismatch (local 1500, neighbour 1400)"); "" when Full.
	Reason string
	// Since is when the neighbour reached its state.
	Since time.Time
	// DeadSeconds is the dead interval the neighbour advertises.
	DeadSeconds int
}

// BGPState is a router's BGP process.
type BGPState struct {
	// Configured is false when the device has no BGP process.
	Configured bool
	// Running is false when the routing daemon is down (frr_service_down).
	Running   bool
	ASN       uint32
	RouterID  netip.Addr
	Neighbors []BGPNeighbor
}

// BGPNeighbor is one configured BGP peer and its session.
type BGPNeighbor struct {
	Address     netip.Addr
	RemoteAS    uint32 // as configured
	LocalAS     uint32
	Description string
	// Internal is true for iBGP (RemoteAS equal to the local ASN).
	Internal bool
	// State is one of the BGP* states.
	State string
	// AdminDown is true for a neighbour shut down by configuration.
	AdminDown bool
	// LocalAddress is the session's source address (invalid when none).
	LocalAddress netip.Addr
	// RemoteRouterID is the peer's BGP identifier once OPEN was received.
	RemoteRouterID netip.Addr
	// LastError is the last notification or failure in FRR's words, e.g.
	// "OPEN Message Error/Bad Peer AS", "Hold Timer Expired",
	// "Waiting for NHT" (no route to the peer); "" when none.
	LastError string
	// LastErrorSent is true when this router sent the NOTIFICATION of
	// LastError (e.g. the side that expects another AS), false when it
	// received it or LastError is no notification.
	LastErrorSent bool
	// Since is when the session entered its state (its uptime when Established).
	Since time.Time
	// PrefixesReceived, PrefixesAccepted and PrefixesSent count the routes
	// exchanged with the peer.
	PrefixesReceived, PrefixesAccepted, PrefixesSent int
	// Keepalive and Hold are the negotiated timers in seconds.
	Keepalive, Hold int
}

// BGPRoute is one path in a router's BGP table (Loc-RIB and Adj-RIB-In).
type BGPRoute struct {
	Prefix  netip.Prefix
	NextHop netip.Addr
	// From is the peer the path came from (invalid for a local path).
	From      netip.Addr
	ASPath    []uint32
	LocalPref int
	MED       int
	// Origin is "IGP", "EGP" or "incomplete".
	Origin   string
	Internal bool // learnt over iBGP
	Best     bool // selected, and installed in the RIB unless a better protocol has the prefix
	Valid    bool // next hop resolvable
}

// AdjacencyStatus is the state of one OSPF adjacency or BGP session, as
// Adjacencies lists them for watching what a change did (the lab logs a
// syslog event for each one that changes).
type AdjacencyStatus struct {
	Device string
	// Protocol is ProtoOSPF or ProtoBGP.
	Protocol string
	// Peer is the neighbour's router id (OSPF) or address (BGP).
	Peer string
	// Interface is the local interface (OSPF; "" for BGP).
	Interface string
	State     string
	// Reason is the neighbour's Reason (OSPF) or LastError (BGP).
	Reason string
}
