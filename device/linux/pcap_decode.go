//go:build linux

package linux

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/netmcp/netmcp/device"
)

// DecodePCAP decodes a classic libpcap file of Ethernet frames
// (LINKTYPE_ETHERNET, either byte order, micro- or nanosecond stamps)
// into capture records: Ethernet, ARP, IPv4, IPv6, ICMP, ICMPv6, TCP, UDP
// and OSPF headers. A frame whose source MAC is localMAC was sent ("out"),
// any other was received ("in"). A record cut short at the end of the file
// (tcpdump stopped while writing) ends the decoding without error.
func DecodePCAP(b []byte, localMAC string) ([]device.CapturedPacket, error) {
	if len(b) < 24 {
		return nil, errors.New("pcap: shorter than its header")
	}
	var bo binary.ByteOrder
	nano := false
	switch binary.LittleEndian.Uint32(b) {
	case 0xa1b2c3d4:
		bo = binary.LittleEndian
	case 0xa1b23c4d:
		bo, nano = binary.LittleEndian, true
	default:
		switch binary.BigEndian.Uint32(b) {
		case 0xa1b2c3d4:
			bo = binary.BigEndian
		case 0xa1b23c4d:
			bo, nano = binary.BigEndian, true
		default:
			return nil, errors.New("pcap: not a libpcap file")
		}
	}
	if lt := bo.Uint32(b[20:]); lt != 1 {
		return nil, fmt.Errorf("pcap: link type %d (want 1, Ethernet)", lt)
	}
	local, _ := net.ParseMAC(localMAC)
	out := []device.CapturedPacket{}
	for off := 24; off+16 <= len(b); {
		sec, frac := bo.Uint32(b[off:]), bo.Uint32(b[off+4:])
		incl := int(bo.Uint32(b[off+8:]))
		off += 16
		if incl > len(b)-off {
			break
		}
		ns := int64(frac) * 1000
		if nano {
			ns = int64(frac)
		}
		p := decodeFrame(b[off : off+incl])
		p.Time = time.Unix(int64(sec), ns).UTC()
		p.Direction = "in"
		if local != nil && strings.EqualFold(p.SrcMAC, local.String()) {
			p.Direction = "out"
		}
		out = append(out, p)
		off += incl
	}
	return out, nil
}

// decodeFrame decodes what it can of one Ethernet frame.
func decodeFrame(f []byte) device.CapturedPacket {
	var p device.CapturedPacket
	if len(f) < 14 {
		p.Protocol = "truncated"
		return p
	}
	p.DstMAC, p.SrcMAC = net.HardwareAddr(f[0:6]).String(), net.HardwareAddr(f[6:12]).String()
	et, body := binary.BigEndian.Uint16(f[12:]), f[14:]
	if et == 0x8100 && len(body) >= 4 { // one VLAN tag
		et, body = binary.BigEndian.Uint16(body[2:]), body[4:]
	}
	switch et {
	case 0x0806:
		p.Protocol = "arp"
		if len(body) >= 28 {
			p.Length = 28
			p.Src = netip.AddrFrom4([4]byte(body[14:18])).String()
			p.Dst = netip.AddrFrom4([4]byte(body[24:28])).String()
			p.Info = "ARP, Request"
			if binary.BigEndian.Uint16(body[6:]) == 2 {
				p.Info = "ARP, Reply"
			}
		}
	case 0x0800:
		if len(body) < 20 {
			p.Protocol = "ipv4"
			return p
		}
		ihl := int(body[0]&0x0f) * 4
		p.Length = int(binary.BigEndian.Uint16(body[2:]))
		p.Src = netip.AddrFrom4([4]byte(body[12:16])).String()
		p.Dst = netip.AddrFrom4([4]byte(body[16:20])).String()
		if ihl <= len(body) {
			decodeL4(&p, body[9], body[ihl:], false)
		}
	case 0x86dd:
		if len(body) < 40 {
			p.Protocol = "ipv6"
			return p
		}
		p.Length = 40 + int(binary.BigEndian.Uint16(body[4:]))
		p.Src = netip.AddrFrom16([16]byte(body[8:24])).String()
		p.Dst = netip.AddrFrom16([16]byte(body[24:40])).String()
		decodeL4(&p, body[6], body[40:], true)
	case 0x88cc:
		p.Protocol, p.Info, p.Length = "lldp", "LLDP", len(body)
	default:
		p.Protocol = fmt.Sprintf("ethertype-0x%04x", et)
	}
	return p
}

// decodeL4 decodes the transport header of an IP packet.
func decodeL4(p *device.CapturedPacket, proto byte, l4 []byte, v6 bool) {
	switch proto {
	case 1, 58:
		p.Protocol = "icmp"
		if v6 {
			p.Protocol = "icmp6"
		}
		if len(l4) >= 2 {
			t, c := int(l4[0]), int(l4[1])
			p.ICMPType, p.ICMPCode = &t, &c
		}
	case 6:
		p.Protocol = "tcp"
		if len(l4) >= 14 {
			p.SrcPort, p.DstPort = int(binary.BigEndian.Uint16(l4)), int(binary.BigEndian.Uint16(l4[2:]))
			p.Seq, p.Ack = binary.BigEndian.Uint32(l4[4:]), binary.BigEndian.Uint32(l4[8:])
			p.Flags = tcpFlags(l4[13])
		}
	case 17:
		p.Protocol = "udp"
		if len(l4) >= 4 {
			p.SrcPort, p.DstPort = int(binary.BigEndian.Uint16(l4)), int(binary.BigEndian.Uint16(l4[2:]))
		}
	case 89:
		p.Protocol = "ospf"
		if len(l4) >= 2 {
			p.Info = map[byte]string{1: "OSPFv2, Hello", 2: "OSPFv2, Database Description", 3: "OSPFv2, LS-Request",
				4: "OSPFv2, LS-Update", 5: "OSPFv2, LS-Ack"}[l4[1]]
		}
	default:
		p.Protocol = fmt.Sprintf("ip-proto-%d", proto)
	}
}

// tcpFlags writes TCP flags as tcpdump does: S, F, R, P, U, then "." for ACK.
func tcpFlags(b byte) string {
	s := ""
	for _, f := range []struct {
		bit byte
		c   string
	}{{0x02, "S"}, {0x01, "F"}, {0x04, "R"}, {0x08, "P"}, {0x20, "U"}, {0x40, "E"}, {0x80, "W"}} {
		if b&f.bit != 0 {
			s += f.c
		}
	}
	if b&0x10 != 0 {
		s += "."
	}
	if s == "" {
		s = "none"
	}
	return s
}
