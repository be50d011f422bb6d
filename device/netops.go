package device

import (
	"context"
	"time"
)

// This file holds the optional interfaces of the troubleshooting draft's
// tools beyond MCP-NET: packet capture (its "tcpdump" tool), clearing
// counters, and LLDP (neighbours and the custom TLVs the device-to-device
// agent advertises for discovery). A driver implements what its device
// can do; the MCP layer offers a tool only when the driver has it.

// Capturer captures packets on an interface.
type Capturer interface {
	// Capture returns the packets crossing req.Interface that match the
	// structured filter, during req.Duration or until req.MaxPackets.
	// The filter is never a free-form string: drivers that run a real
	// capture program build its filter from these fields.
	Capture(ctx context.Context, req CaptureRequest) (CaptureResult, error)
}

// Capture directions.
const (
	DirectionIn   = "in"
	DirectionOut  = "out"
	DirectionBoth = "both"
)

// CaptureRequest is a validated, structured capture filter.
type CaptureRequest struct {
	// Interface is the device's interface name.
	Interface string `json:"interface"`
	// Protocol is "" (any), "icmp", "icmpv6", "tcp", "udp", "arp", "ospf" or "lldp".
	Protocol string `json:"protocol,omitempty"`
	// Host matches packets from or to this address ("" = any).
	Host string `json:"host,omitempty"`
	// Src and Dst match the source and the destination address.
	Src string `json:"src,omitempty"`
	Dst string `json:"dst,omitempty"`
	// Port matches TCP/UDP packets from or to this port (0 = any).
	Port int `json:"port,omitempty"`
	// Direction is in, out or both (default both).
	Direction string `json:"direction,omitempty"`
	// Duration is the capture window (default 5 s). A simulated device
	// answers at once with the packets of the window.
	Duration time.Duration `json:"duration,omitempty"`
	// MaxPackets stops the capture early (default 100).
	MaxPackets int `json:"maxPackets,omitempty"`
}

// CaptureResult is what a capture saw.
type CaptureResult struct {
	Interface string `json:"interface"`
	// Packets is the number of packets captured.
	Packets int `json:"packets"`
	// PCAP is the capture in libpcap format (base64 in JSON), readable by
	// tcpdump -r and tshark.
	PCAP []byte `json:"pcap"`
	// Summary is one line per packet, as `tcpdump -n` prints them.
	Summary []string `json:"summary"`
	// Truncated is true when MaxPackets stopped the capture.
	Truncated bool `json:"truncated,omitempty"`
	// Records are the packets, decoded (device/capture.go).
	Records []CapturedPacket `json:"records,omitempty"`
}

// CounterClearer resets interface counters.
type CounterClearer interface {
	// ClearCounters resets the counters of one interface, or of every
	// interface when ifname is "".
	ClearCounters(ctx context.Context, ifname string) error
}

// LLDPAgent is a device's LLDP agent.
type LLDPAgent interface {
	// LLDPNeighbors returns what the device has learned from its neighbours.
	LLDPNeighbors(ctx context.Context) ([]LLDPNeighbor, error)
	// SetLLDPCustomTLVs replaces the organisationally specific TLVs the
	// device advertises on every port.
	SetLLDPCustomTLVs(ctx context.Context, tlvs []LLDPTLV) error
}

// LLDPNeighbor is one neighbour seen on a local interface.
type LLDPNeighbor struct {
	LocalInterface    string    `json:"local-interface"`
	ChassisID         string    `json:"chassis-id"`
	PortID            string    `json:"port-id"`
	PortDescription   string    `json:"port-description,omitempty"`
	SystemName        string    `json:"system-name,omitempty"`
	SystemDescription string    `json:"system-description,omitempty"`
	Capabilities      []string  `json:"capabilities,omitempty"` // "router", "bridge", "station"
	ManagementAddress string    `json:"management-address,omitempty"`
	TTL               int       `json:"ttl,omitempty"`
	CustomTLVs        []LLDPTLV `json:"custom-tlvs,omitempty"`
}

// LLDPTLV is an organisationally specific TLV (type 127).
type LLDPTLV struct {
	// OUI is the three-byte organisation identifier.
	OUI [3]byte `json:"oui"`
	// Subtype is the organisationally defined subtype.
	Subtype uint8 `json:"subtype"`
	// Value is the information string, at most 507 bytes.
	Value []byte `json:"value"`
}

// MaxLLDPTLVValue is the largest information string of an organisationally
// specific TLV (511 bytes of TLV value minus the OUI and subtype).
const MaxLLDPTLVValue = 507
