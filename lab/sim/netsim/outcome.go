package netsim

import (
	"net/netip"
	"time"
)

// Result kinds of one probe.
const (
	// ResultReply: the destination answered (echo reply, or for a UDP
	// traceroute the port-unreachable of the destination).
	ResultReply = "reply"
	// ResultLost: no answer (loss, silent ACL drop, no return path).
	ResultLost = "lost"
	// ResultTimeExceeded: a router on the path answered TTL exceeded.
	ResultTimeExceeded = "time-exceeded"
	// ResultHostUnreachable: the last router has no ARP/ND entry for the destination (!H).
	ResultHostUnreachable = "host-unreachable"
	// ResultNetUnreachable: a transit router has no route (!N).
	ResultNetUnreachable = "net-unreachable"
	// ResultFragNeeded: the packet is too big for an egress MTU and DF is set (!F).
	ResultFragNeeded = "frag-needed"
)

// PingReply is the result of one echo request.
type PingReply struct {
	// Seq is the icmp_seq, from 1.
	Seq int
	// Kind is one of the Result* constants.
	Kind string
	// From is the address that answered (invalid when lost).
	From netip.Addr
	// TTL is the TTL (hop limit) of the reply as received.
	TTL int
	// RTT is the round-trip time (zero for errors and losses).
	RTT time.Duration
	// Bytes is the ICMP size of the reply (payload + 8).
	Bytes int
	// MTU is the next-hop MTU of a frag-needed error.
	MTU int
}

// PingOutcome is the result of Ping.
type PingOutcome struct {
	Destination netip.Addr
	// Source is the source address the probes used.
	Source netip.Addr
	// SourceGiven is true when the request named the source; SourceIface
	// is the interface it named ("" for an address). They shape the header.
	SourceGiven bool
	SourceIface string
	// Size is the ICMP payload size in bytes.
	Size int
	// Count is the number of requests sent.
	Count int
	// Replies has one entry per request, in order.
	Replies []PingReply
	// Error is set when no packet could be sent at all ("Network is
	// unreachable"); Replies is then empty.
	Error string
	// Elapsed is the total time the run would take (about one second per request).
	Elapsed time.Duration
	// Pipe is the number of requests outstanding at once (printed when above 1).
	Pipe int
	// Start is when the run began (Options.Now).
	Start time.Time
}

// TraceProbe is one probe of a traceroute hop.
type TraceProbe struct {
	// Kind is one of the Result* constants.
	Kind string
	// From is the address that answered (invalid when lost: "*").
	From netip.Addr
	RTT  time.Duration
	// TTL is the TTL of the answer as received.
	TTL int
	// MTU is the next-hop MTU of a frag-needed error.
	MTU int
}

// TraceHop is one TTL of a traceroute.
type TraceHop struct {
	// TTL is the hop number, from 1.
	TTL    int
	Probes []TraceProbe
}

// TraceOutcome is the result of Traceroute.
type TraceOutcome struct {
	Destination netip.Addr
	Source      netip.Addr
	MaxHops     int
	// PacketSize is the whole probe packet length (60 by default for IPv4, 80 for IPv6).
	PacketSize int
	// Protocol is "udp" or "icmp".
	Protocol string
	Hops     []TraceHop
	// Reached is true when the destination answered.
	Reached bool
	// LocalMTU is the MTU of the first egress interface; PMTU the path MTU
	// found by tracepath-style probing.
	LocalMTU int
	PMTU     int
	// Tracepath holds what tracepath would see: one entry per answer to
	// probes sent with DF at the current path MTU (a frag-needed answer
	// lowers the MTU and the same TTL is probed again).
	Tracepath []TracepathStep
	// Error is set when no packet could be sent at all.
	Error string
	// Start is when the run began (Options.Now).
	Start time.Time
}

// TracepathStep is one line of tracepath: the answer to a probe with a TTL.
type TracepathStep struct {
	TTL   int
	Probe TraceProbe
}
