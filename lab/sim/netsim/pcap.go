package netsim

import (
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// The classic libpcap file format (LINKTYPE_ETHERNET) with real Ethernet,
// ARP, IPv4, IPv6, ICMP, ICMPv6, TCP, UDP and OSPF headers and checksums,
// so tcpdump -r and tshark read a simulated capture as a real one; and the
// one-line text tcpdump -n prints for each packet.

const (
	pcapMagic      = 0xa1b2c3d4
	pcapSnaplen    = 262144
	linkTypeEther  = 1
	etherTypeIPv4  = 0x0800
	etherTypeIPv6  = 0x86dd
	etherTypeARP   = 0x0806
	ipProtoICMP    = 1
	ipProtoTCP     = 6
	ipProtoUDP     = 17
	ipProtoICMPv6  = 58
	ipProtoOSPF    = 89
	tcpWindowSyn   = 64240
	tcpWindowAfter = 502
)

// EncodePCAP writes packets as a libpcap file.
func EncodePCAP(pkts []CapturedPacket) []byte {
	b := make([]byte, 24, 24+len(pkts)*100)
	binary.LittleEndian.PutUint32(b[0:], pcapMagic)
	binary.LittleEndian.PutUint16(b[4:], 2)
	binary.LittleEndian.PutUint16(b[6:], 4)
	binary.LittleEndian.PutUint32(b[16:], pcapSnaplen)
	binary.LittleEndian.PutUint32(b[20:], linkTypeEther)
	for i := range pkts {
		f := Frame(&pkts[i])
		var h [16]byte
		t := pkts[i].Time
		binary.LittleEndian.PutUint32(h[0:], uint32(t.Unix()))
		binary.LittleEndian.PutUint32(h[4:], uint32(t.Nanosecond()/1000))
		binary.LittleEndian.PutUint32(h[8:], uint32(len(f)))
		binary.LittleEndian.PutUint32(h[12:], uint32(len(f)))
		b = append(append(b, h[:]...), f...)
	}
	return b
}

// Frame encodes a captured packet as an Ethernet frame.
func Frame(p *CapturedPacket) []byte {
	eth := make([]byte, 14)
	copy(eth[0:6], mac(p.DstMAC))
	copy(eth[6:12], mac(p.SrcMAC))
	if p.Proto == ProtoARPName {
		binary.BigEndian.PutUint16(eth[12:], etherTypeARP)
		return append(eth, arpBody(p)...)
	}
	if p.Proto == ProtoLLDPName {
		binary.BigEndian.PutUint16(eth[12:], etherTypeLLDP)
		return append(eth, p.payload...)
	}
	var proto byte
	var l4 []byte
	hdr := 20
	if p.Src.Is6() && !p.Src.Is4In6() {
		hdr = 40
	}
	payloadLen := max(p.Length-hdr, 0)
	switch p.Proto {
	case ProtoICMPName:
		proto, l4 = ipProtoICMP, icmpBody(p, payloadLen, nil)
	case ProtoICMP6Name:
		proto = ipProtoICMPv6
		l4 = icmpBody(p, payloadLen, pseudo6(p.Src, p.Dst, ipProtoICMPv6, payloadLen))
	case ProtoTCPName:
		proto, l4 = ipProtoTCP, tcpBody(p, hdr)
	case ProtoUDPName:
		proto, l4 = ipProtoUDP, udpBody(p, payloadLen, hdr)
	case ProtoOSPFName:
		proto, l4 = ipProtoOSPF, ospfHelloPacket(p)
	}
	if hdr == 40 {
		binary.BigEndian.PutUint16(eth[12:], etherTypeIPv6)
		ip := make([]byte, 40)
		ip[0] = 0x60
		binary.BigEndian.PutUint16(ip[4:], uint16(len(l4)))
		ip[6], ip[7] = proto, byte(p.TTL)
		s, d := p.Src.As16(), p.Dst.As16()
		copy(ip[8:], s[:])
		copy(ip[24:], d[:])
		return append(append(eth, ip...), l4...)
	}
	binary.BigEndian.PutUint16(eth[12:], etherTypeIPv4)
	ip := make([]byte, 20)
	ip[0] = 0x45
	if proto == ipProtoOSPF || proto == ipProtoTCP && (p.SrcPort == 179 || p.DstPort == 179) {
		ip[1] = 0xc0 // internetwork control, as routing protocols send
	}
	binary.BigEndian.PutUint16(ip[2:], uint16(20+len(l4)))
	if proto == ipProtoTCP {
		ip[6] = 0x40 // DF
	}
	ip[8], ip[9] = byte(p.TTL), proto
	s, d := p.Src.As4(), p.Dst.As4()
	copy(ip[12:], s[:])
	copy(ip[16:], d[:])
	binary.BigEndian.PutUint16(ip[10:], checksum(ip, 0))
	return append(append(eth, ip...), l4...)
}

func mac(s string) []byte {
	hw, err := net.ParseMAC(s)
	if err != nil || len(hw) != 6 {
		return make([]byte, 6)
	}
	return hw
}

// checksum is the Internet checksum of b, starting from sum.
func checksum(b []byte, sum uint32) uint16 {
	for i := 0; i+1 < len(b); i += 2 {
		sum += uint32(b[i])<<8 | uint32(b[i+1])
	}
	if len(b)%2 == 1 {
		sum += uint32(b[len(b)-1]) << 8
	}
	for sum > 0xffff {
		sum = sum>>16 + sum&0xffff
	}
	return ^uint16(sum)
}

// pseudoSum is the partial sum of the pseudo-header (RFC 793 / RFC 8200).
func pseudoSum(src, dst netip.Addr, proto byte, length int) uint32 {
	var b []byte
	if src.Is4() {
		s, d := src.As4(), dst.As4()
		b = append(append(b, s[:]...), d[:]...)
		b = append(b, 0, proto, byte(length>>8), byte(length))
	} else {
		return uint32(^checksum(pseudo6(src, dst, proto, length), 0))
	}
	var sum uint32
	for i := 0; i+1 < len(b); i += 2 {
		sum += uint32(b[i])<<8 | uint32(b[i+1])
	}
	return sum
}

func pseudo6(src, dst netip.Addr, proto byte, length int) []byte {
	s, d := src.As16(), dst.As16()
	b := append(append([]byte{}, s[:]...), d[:]...)
	return append(b, byte(length>>24), byte(length>>16), byte(length>>8), byte(length), 0, 0, 0, proto)
}

func icmpBody(p *CapturedPacket, n int, pseudo []byte) []byte {
	n = max(n, 8)
	b := make([]byte, n)
	b[0], b[1] = byte(p.ICMPType), byte(p.ICMPCode)
	if isEcho(p) {
		binary.BigEndian.PutUint16(b[4:], 1) // id
		binary.BigEndian.PutUint16(b[6:], uint16(p.icmpSeq))
	} else if p.inner != nil {
		copy(b[8:], innerBytes(p.inner))
		if p.ICMPType == 3 && p.ICMPCode == 4 || p.Proto == ProtoICMP6Name && p.ICMPType == 2 {
			binary.BigEndian.PutUint32(b[4:], uint32(p.mtu))
		}
	}
	var sum uint32
	if pseudo != nil {
		sum = uint32(^checksum(pseudo, 0))
	}
	binary.BigEndian.PutUint16(b[2:], checksum(b, sum))
	return b
}

// innerBytes is the start of the packet an ICMP error quotes: its IP
// header and the first 8 bytes of its payload.
func innerBytes(in *CapturedPacket) []byte {
	f := Frame(in)[14:]
	hdr := 20
	if in.Src.Is6() && !in.Src.Is4In6() {
		hdr = 40
	}
	return f[:min(len(f), hdr+8)]
}

func isEcho(p *CapturedPacket) bool {
	switch p.ICMPType {
	case 0, 8:
		return p.Proto == ProtoICMPName
	case 128, 129:
		return p.Proto == ProtoICMP6Name
	}
	return false
}

var tcpFlagBits = map[byte]byte{'F': 0x01, 'S': 0x02, 'R': 0x04, 'P': 0x08, '.': 0x10}

func tcpBody(p *CapturedPacket, iphdr int) []byte {
	hl := 20
	syn := strings.Contains(p.TCPFlags, "S")
	if syn {
		hl = 24
	}
	b := make([]byte, hl, hl+len(p.payload))
	binary.BigEndian.PutUint16(b[0:], uint16(p.SrcPort))
	binary.BigEndian.PutUint16(b[2:], uint16(p.DstPort))
	binary.BigEndian.PutUint32(b[4:], p.Seq)
	binary.BigEndian.PutUint32(b[8:], p.Ack)
	b[12] = byte(hl/4) << 4
	for i := 0; i < len(p.TCPFlags); i++ {
		b[13] |= tcpFlagBits[p.TCPFlags[i]]
	}
	win := tcpWindowAfter
	if syn {
		win = tcpWindowSyn
	}
	if p.TCPFlags == "R." {
		win = 0
	}
	binary.BigEndian.PutUint16(b[14:], uint16(win))
	if syn {
		copy(b[20:], []byte{2, 4, 0x05, 0xb4}) // MSS 1460
	}
	b = append(b, p.payload...)
	binary.BigEndian.PutUint16(b[16:], checksum(b, pseudoSum(p.Src, p.Dst, ipProtoTCP, len(b))))
	return b
}

func udpBody(p *CapturedPacket, n, iphdr int) []byte {
	n = max(n, 8)
	b := make([]byte, n)
	binary.BigEndian.PutUint16(b[0:], uint16(p.SrcPort))
	binary.BigEndian.PutUint16(b[2:], uint16(p.DstPort))
	binary.BigEndian.PutUint16(b[4:], uint16(n))
	c := checksum(b, pseudoSum(p.Src, p.Dst, ipProtoUDP, n))
	if c == 0 {
		c = 0xffff
	}
	binary.BigEndian.PutUint16(b[6:], c)
	return b
}

// ospfHelloPacket is an OSPFv2 Hello packet (RFC 2328, A.3.1 and A.3.2).
func ospfHelloPacket(p *CapturedPacket) []byte {
	n := 24 + 20 + 4*len(p.neighbors)
	b := make([]byte, n)
	b[0], b[1] = 2, 1
	binary.BigEndian.PutUint16(b[2:], uint16(n))
	rid, area := p.routerID.As4(), p.area.As4()
	copy(b[4:], rid[:])
	copy(b[8:], area[:])
	h := b[24:]
	// Network mask: 0 on point-to-point networks, as FRR sends it there.
	binary.BigEndian.PutUint16(h[4:], uint16(p.hello))
	h[6] = 0x02 // E-bit
	h[7] = 1    // router priority
	binary.BigEndian.PutUint32(h[8:], uint32(p.dead))
	for i, nb := range p.neighbors {
		a := nb.As4()
		copy(h[20+4*i:], a[:])
	}
	binary.BigEndian.PutUint16(b[12:], checksum(b, 0))
	return b
}

func arpBody(p *CapturedPacket) []byte {
	b := make([]byte, 28)
	binary.BigEndian.PutUint16(b[0:], 1)
	binary.BigEndian.PutUint16(b[2:], etherTypeIPv4)
	b[4], b[5] = 6, 4
	binary.BigEndian.PutUint16(b[6:], uint16(p.ARPOp))
	s, d := p.Src.As4(), p.Dst.As4()
	copy(b[8:], mac(p.SrcMAC))
	copy(b[14:], s[:])
	if p.ARPOp == 2 {
		copy(b[18:], mac(p.DstMAC))
	}
	copy(b[24:], d[:])
	return b
}

// Summary is the line tcpdump -n -S prints for the packet (UTC time,
// absolute TCP sequence numbers).
func (p *CapturedPacket) Summary() string {
	ts := p.Time.UTC().Format("15:04:05.000000")
	if p.Proto == ProtoARPName {
		if p.ARPOp == 2 {
			return fmt.Sprintf("%s ARP, Reply %s is-at %s, length 28", ts, p.Src, p.SrcMAC)
		}
		return fmt.Sprintf("%s ARP, Request who-has %s tell %s, length 28", ts, p.Dst, p.Src)
	}
	if p.Proto == ProtoLLDPName {
		return fmt.Sprintf("%s LLDP, length %d: %s", ts, p.Length, p.sysName)
	}
	ipv := "IP"
	hdr := 20
	if p.Src.Is6() && !p.Src.Is4In6() {
		ipv, hdr = "IP6", 40
	}
	switch p.Proto {
	case ProtoTCPName:
		s := fmt.Sprintf("%s %s %s.%d > %s.%d: Flags [%s]", ts, ipv, p.Src, p.SrcPort, p.Dst, p.DstPort, p.TCPFlags)
		if strings.ContainsAny(p.TCPFlags, "SFRP") {
			if len(p.payload) > 0 {
				s += fmt.Sprintf(", seq %d:%d", p.Seq, p.Seq+uint32(len(p.payload)))
			} else {
				s += fmt.Sprintf(", seq %d", p.Seq)
			}
		}
		if strings.Contains(p.TCPFlags, ".") {
			s += fmt.Sprintf(", ack %d", p.Ack)
		}
		switch {
		case p.TCPFlags == "R.":
			s += ", win 0"
		case strings.Contains(p.TCPFlags, "S"):
			s += fmt.Sprintf(", win %d, options [mss 1460]", tcpWindowSyn)
		default:
			s += fmt.Sprintf(", win %d", tcpWindowAfter)
		}
		s += fmt.Sprintf(", length %d", len(p.payload))
		if len(p.payload) > 0 && (p.SrcPort == 179 || p.DstPort == 179) {
			s += ": BGP"
		}
		return s
	case ProtoUDPName:
		return fmt.Sprintf("%s %s %s.%d > %s.%d: UDP, length %d", ts, ipv, p.Src, p.SrcPort, p.Dst, p.DstPort, max(p.Length-hdr-8, 0))
	case ProtoOSPFName:
		return fmt.Sprintf("%s %s %s > %s: OSPFv2, Hello, length %d", ts, ipv, p.Src, p.Dst, max(p.Length-hdr, 0))
	case ProtoICMPName, ProtoICMP6Name:
		return fmt.Sprintf("%s %s %s > %s: %s, length %d", ts, ipv, p.Src, p.Dst, icmpText(p), max(p.Length-hdr, 0))
	}
	return fmt.Sprintf("%s %s %s > %s: ip-proto-%s, length %d", ts, ipv, p.Src, p.Dst, p.Proto, max(p.Length-hdr, 0))
}

// icmpText is tcpdump's description of an ICMP message.
func icmpText(p *CapturedPacket) string {
	if p.Proto == ProtoICMP6Name {
		switch p.ICMPType {
		case 128:
			return fmt.Sprintf("ICMP6, echo request, id 1, seq %d", p.icmpSeq)
		case 129:
			return fmt.Sprintf("ICMP6, echo reply, id 1, seq %d", p.icmpSeq)
		case 1:
			return "ICMP6, destination unreachable"
		case 2:
			return "ICMP6, packet too big"
		case 3:
			return "ICMP6, time exceeded in-transit"
		}
		return fmt.Sprintf("ICMP6, type %d", p.ICMPType)
	}
	switch p.ICMPType {
	case 8:
		return fmt.Sprintf("ICMP echo request, id 1, seq %d", p.icmpSeq)
	case 0:
		return fmt.Sprintf("ICMP echo reply, id 1, seq %d", p.icmpSeq)
	case 11:
		return "ICMP time exceeded in-transit"
	case 3:
		in := p.inner
		if in == nil {
			in = &CapturedPacket{}
		}
		switch p.ICMPCode {
		case 0:
			return fmt.Sprintf("ICMP net %s unreachable", in.Dst)
		case 1:
			return fmt.Sprintf("ICMP host %s unreachable", in.Dst)
		case 3:
			return fmt.Sprintf("ICMP %s udp port %d unreachable", in.Dst, in.DstPort)
		case 4:
			return fmt.Sprintf("ICMP %s unreachable - need to frag (mtu %d)", in.Dst, p.mtu)
		}
	}
	return fmt.Sprintf("ICMP type-#%d", p.ICMPType)
}
