package device

import (
	"fmt"
	"net/netip"
	"strings"
	"time"
)

// CapturedPacket is one packet of a capture, decoded: what tcpdump's line
// says, as fields.
type CapturedPacket struct {
	Time time.Time `json:"time"`
	// Direction is "in" (received on the interface) or "out" (sent).
	Direction string `json:"direction,omitempty"`
	SrcMAC    string `json:"srcMac,omitempty"`
	DstMAC    string `json:"dstMac,omitempty"`
	// Protocol is icmp, icmp6, tcp, udp, ospf, arp, lldp, or another
	// protocol's name or number.
	Protocol string `json:"protocol"`
	// Src and Dst are the IP (or ARP) addresses; empty for LLDP.
	Src     string `json:"src,omitempty"`
	Dst     string `json:"dst,omitempty"`
	SrcPort int    `json:"srcPort,omitempty"`
	DstPort int    `json:"dstPort,omitempty"`
	// Flags are the TCP flags as tcpdump prints them ("S", "S.", "R.").
	Flags string `json:"flags,omitempty"`
	Seq   uint32 `json:"seq,omitempty"`
	Ack   uint32 `json:"ack,omitempty"`
	// ICMPType and ICMPCode are set for ICMP and ICMPv6.
	ICMPType *int `json:"icmpType,omitempty"`
	ICMPCode *int `json:"icmpCode,omitempty"`
	// Length is the IP packet's length (28 for ARP).
	Length int `json:"length"`
	// Info names the message, e.g. "BGP KEEPALIVE", "OSPFv2, Hello",
	// "ARP, Request".
	Info string `json:"info,omitempty"`
}

// CaptureProtocols are the protocols a CaptureRequest may name.
var CaptureProtocols = []string{"icmp", "icmpv6", "tcp", "udp", "arp", "ospf", "lldp"}

// Capture limits every driver applies.
const (
	DefaultCaptureDuration = 5 * time.Second
	MaxCaptureDuration     = 10 * time.Minute
	DefaultCapturePackets  = 100
	MaxCapturePackets      = 10000
)

// Check validates a request and applies its defaults: the interface is
// named, the protocol and direction are known, the addresses parse, the
// port, duration and packet limit are in range.
func (r *CaptureRequest) Check() error {
	if r.Interface == "" {
		return fmt.Errorf("capture: no interface")
	}
	if strings.ContainsAny(r.Interface, " \t\n\r;|&$`'\"\\") {
		return fmt.Errorf("capture: interface name %q has characters no interface name has", r.Interface)
	}
	switch r.Protocol {
	case "", "icmp", "icmpv6", "tcp", "udp", "arp", "ospf", "lldp":
	case "icmp6":
		r.Protocol = "icmpv6"
	default:
		return fmt.Errorf("capture: protocol %q (want one of %s)", r.Protocol, strings.Join(CaptureProtocols, ", "))
	}
	for _, a := range []struct{ name, v string }{{"host", r.Host}, {"src", r.Src}, {"dst", r.Dst}} {
		if a.v == "" {
			continue
		}
		if _, err := netip.ParseAddr(a.v); err != nil {
			return fmt.Errorf("capture: %s %q is not an IP address", a.name, a.v)
		}
	}
	if r.Port < 0 || r.Port > 65535 {
		return fmt.Errorf("capture: port %d (want 1-65535)", r.Port)
	}
	if r.Port != 0 && r.Protocol != "" && r.Protocol != "tcp" && r.Protocol != "udp" {
		return fmt.Errorf("capture: a port filter needs protocol tcp, udp or none, not %s", r.Protocol)
	}
	switch r.Direction {
	case "":
		r.Direction = DirectionBoth
	case DirectionIn, DirectionOut, DirectionBoth:
	default:
		return fmt.Errorf("capture: direction %q (want in, out or both)", r.Direction)
	}
	if r.Duration < 0 || r.Duration > MaxCaptureDuration {
		return fmt.Errorf("capture: duration %s (want at most %s)", r.Duration, MaxCaptureDuration)
	}
	if r.Duration == 0 {
		r.Duration = DefaultCaptureDuration
	}
	if r.MaxPackets < 0 || r.MaxPackets > MaxCapturePackets {
		return fmt.Errorf("capture: maxPackets %d (want at most %d)", r.MaxPackets, MaxCapturePackets)
	}
	if r.MaxPackets == 0 {
		r.MaxPackets = DefaultCapturePackets
	}
	return nil
}
