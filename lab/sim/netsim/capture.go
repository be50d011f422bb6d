package netsim

import (
	"fmt"
	"net/netip"
	"sort"
	"time"
)

// Captures: the packets the model sent across an interface in a window
// ending now: the periodic protocol traffic of the flows (OSPF hellos, BGP
// keepalives or connection attempts, ARP) and the probes run in the window
// (remembered in a bounded ring per interface). The background rate of
// the counters is not made of individual packets and is not captured.

// Captured packet protocols.
const (
	ProtoICMPName  = "icmp"
	ProtoICMP6Name = "icmp6"
	ProtoTCPName   = "tcp"
	ProtoUDPName   = "udp"
	ProtoOSPFName  = "ospf"
	ProtoARPName   = "arp"
	ProtoLLDPName  = "lldp"
)

// Capture limits.
const (
	DefaultCaptureWindow = 5 * time.Second
	MaxCaptureWindow     = time.Hour
	DefaultCapturePkts   = 100
	MaxCapturePkts       = 10000
)

// CapturedPacket is one packet seen on an interface.
type CapturedPacket struct {
	Time      time.Time
	Interface string
	// Direction is "in" (received) or "out" (sent).
	Direction      string
	SrcMAC, DstMAC string
	// Proto is one of the Proto*Name constants.
	Proto            string
	Src, Dst         netip.Addr
	SrcPort, DstPort int
	// TCPFlags are tcpdump's: "S", "S.", ".", "P.", "F.", "R.".
	TCPFlags           string
	Seq, Ack           uint32
	ICMPType, ICMPCode int
	// ARPOp is 1 (request) or 2 (reply).
	ARPOp int
	TTL   int
	// Length is the IP packet's length (28 for ARP).
	Length int
	// Info names the message (e.g. "BGP KEEPALIVE", "OSPFv2, Hello").
	Info string

	payload   []byte
	area      netip.Addr
	routerID  netip.Addr
	neighbors []netip.Addr
	hello     int
	dead      int
	p2p       bool
	// inner is the packet an ICMP error is about.
	inner   *CapturedPacket
	mtu     int
	icmpSeq int
	sysName string // of an LLDPDU's sender
}

// CaptureFilter is a structured capture filter; zero fields match all.
type CaptureFilter struct {
	Interface string
	// Protocol is "", icmp, icmpv6 (or icmp6), tcp, udp, ospf or arp.
	Protocol string
	// Host matches either address; Src and Dst one each.
	Host, Src, Dst netip.Addr
	// Port matches either TCP/UDP port.
	Port int
	// Direction is in, out or both ("").
	Direction string
	// Window is how far back from now the capture reaches (default 5 s,
	// at most an hour); MaxPackets bounds the packets (default 100).
	Window     time.Duration
	MaxPackets int
}

// CaptureOutcome is what a capture saw.
type CaptureOutcome struct {
	Start, End time.Time
	Packets    []CapturedPacket
	// Truncated tells that MaxPackets stopped the capture.
	Truncated bool
}

// normalise checks a filter and applies its defaults.
func (f *CaptureFilter) normalise() error {
	switch f.Protocol {
	case "", ProtoICMPName, ProtoTCPName, ProtoUDPName, ProtoOSPFName, ProtoARPName, ProtoLLDPName:
	case "icmpv6", ProtoICMP6Name:
		f.Protocol = ProtoICMP6Name
	default:
		return fmt.Errorf("netsim: capture protocol %q (want icmp, icmpv6, tcp, udp, ospf, arp or lldp)", f.Protocol)
	}
	switch f.Direction {
	case "", "both":
		f.Direction = ""
	case "in", "out":
	default:
		return fmt.Errorf("netsim: capture direction %q (want in, out or both)", f.Direction)
	}
	if f.Port < 0 || f.Port > 65535 {
		return fmt.Errorf("netsim: capture port %d (want 1-65535)", f.Port)
	}
	if f.Window < 0 || f.Window > MaxCaptureWindow {
		return fmt.Errorf("netsim: capture window %s (want at most %s)", f.Window, MaxCaptureWindow)
	}
	if f.Window == 0 {
		f.Window = DefaultCaptureWindow
	}
	if f.MaxPackets < 0 || f.MaxPackets > MaxCapturePkts {
		return fmt.Errorf("netsim: capture packet limit %d (want at most %d)", f.MaxPackets, MaxCapturePkts)
	}
	if f.MaxPackets == 0 {
		f.MaxPackets = DefaultCapturePkts
	}
	return nil
}

// matches tells whether a packet passes the filter.
func (f *CaptureFilter) matches(p *CapturedPacket) bool {
	if f.Direction != "" && p.Direction != f.Direction {
		return false
	}
	if f.Protocol != "" && p.Proto != f.Protocol {
		return false
	}
	if (f.Host.IsValid() || f.Src.IsValid() || f.Dst.IsValid()) && p.Proto == ProtoLLDPName {
		return false // not an IP packet
	}
	if f.Host.IsValid() && p.Src != f.Host && p.Dst != f.Host {
		return false
	}
	if f.Src.IsValid() && p.Src != f.Src {
		return false
	}
	if f.Dst.IsValid() && p.Dst != f.Dst {
		return false
	}
	if f.Port != 0 && ((p.Proto != ProtoTCPName && p.Proto != ProtoUDPName) || (p.SrcPort != f.Port && p.DstPort != f.Port)) {
		return false
	}
	return true
}

// Capture returns the packets that crossed an interface of a device in the
// window ending now, oldest first.
func (n *Network) Capture(dev string, f CaptureFilter) (CaptureOutcome, error) {
	if err := f.normalise(); err != nil {
		return CaptureOutcome{}, err
	}
	n.mu.RLock()
	defer n.mu.RUnlock()
	if f.Interface == "" {
		return CaptureOutcome{}, fmt.Errorf("netsim: capture on %q: no interface", dev)
	}
	_, it, err := n.state.iface(dev, f.Interface)
	if err != nil {
		return CaptureOutcome{}, err
	}
	end := n.opts.Now()
	o := CaptureOutcome{Start: end.Add(-f.Window), End: end}
	key := it.key()
	var pkts []CapturedPacket
	keep := func(p CapturedPacket) {
		if !p.Time.Before(o.Start) && p.Time.Before(end) && f.matches(&p) {
			pkts = append(pkts, p)
		}
	}
	if r := n.edge.rings[key]; r != nil {
		for _, p := range r.all() {
			keep(p)
		}
	}
	e := &n.edge
	e.mu.Lock()
	for i := range e.retired {
		sg := &e.retired[i]
		sg.fl.emit(n.opts.Seed, key, later(o.Start, sg.from), earlier(end, sg.to), keep)
	}
	e.current(n.state).emit(n.opts.Seed, key, later(o.Start, e.segStart), end, keep)
	e.mu.Unlock()
	sort.SliceStable(pkts, func(a, b int) bool { return pkts[a].Time.Before(pkts[b].Time) })
	if len(pkts) > f.MaxPackets {
		pkts, o.Truncated = pkts[:f.MaxPackets], true
	}
	o.Packets = pkts
	return o, nil
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// emit produces the flows' packets crossing an interface in [from, to).
func (f *flows) emit(seed int64, key string, from, to time.Time, keep func(CapturedPacket)) {
	if !to.After(from) {
		return
	}
	for _, r := range f.keys[key] {
		pk := &r.f.pkts[r.pk]
		cr := pk.cross[r.c]
		if cr.out && cr.fate == crossDiscard {
			continue // never on the wire
		}
		base := r.f.phase + pk.off
		per := int64(r.f.period)
		k := ceilDiv(from.UnixNano()-int64(base), per)
		for ; ; k++ {
			t := time.Unix(0, int64(base)+k*per)
			if !t.Before(to) {
				break
			}
			if cr.surv < 1 && hash01(seed, fmt.Sprintf("%s/%d/%d", r.f.name, r.pk, r.c), uint64(k)) >= cr.surv {
				continue // lost on the way
			}
			p := pk.tmpl
			p.Time, p.Interface = t, cr.it.name
			p.Direction = "in"
			if cr.out {
				p.Direction = "out"
			}
			if p.SrcMAC == "" {
				p.SrcMAC, p.DstMAC = frameMACs(pk.cross, r.c, &p)
			}
			keep(p)
		}
	}
}

// frameMACs are the Ethernet addresses of a packet at crossing c: the L3
// interfaces sending and receiving it on that segment.
func frameMACs(cs []crossing, c int, p *CapturedPacket) (src, dst string) {
	if p.Dst.IsMulticast() {
		dst = multicastMAC(p.Dst)
	}
	for i := c; i >= 0; i-- {
		if cs[i].out && cs[i].it.l3() {
			src = cs[i].it.mac
			break
		}
	}
	if dst == "" {
		for i := c; i < len(cs); i++ {
			if !cs[i].out && cs[i].it.l3() {
				dst = cs[i].it.mac
				break
			}
		}
	}
	if dst == "" && len(cs[c].it.reach) > 0 {
		dst = cs[c].it.reach[0].to.mac
	}
	if src == "" {
		src = "00:00:00:00:00:00"
	}
	if dst == "" {
		dst = "ff:ff:ff:ff:ff:ff"
	}
	return src, dst
}

// multicastMAC maps an IPv4 or IPv6 multicast group to its MAC.
func multicastMAC(a netip.Addr) string {
	if a.Is4() {
		b := a.As4()
		return fmt.Sprintf("01:00:5e:%02x:%02x:%02x", b[1]&0x7f, b[2], b[3])
	}
	b := a.As16()
	return fmt.Sprintf("33:33:%02x:%02x:%02x:%02x", b[12], b[13], b[14], b[15])
}

// probePacket is the capture record of a probe crossing an interface.
func probePacket(it *iface, p *packet, out bool, t time.Time) CapturedPacket {
	c := CapturedPacket{Time: t, Interface: it.name, Direction: "in", Src: p.src, Dst: p.dst, TTL: p.ttl,
		Length: p.size, Proto: p.proto}
	if out {
		c.Direction = "out"
	}
	switch p.proto {
	case protoICMP:
		if familyOf(p.dst) == 6 {
			c.Proto = ProtoICMP6Name
		}
		c.ICMPType, c.ICMPCode = p.icmpType, p.icmpCode
	case protoTCP, protoUDP:
		c.SrcPort, c.DstPort = p.sport, p.dport
	}
	mine, theirs := it.mac, neighborMAC(it, p, out)
	if out {
		c.SrcMAC, c.DstMAC = mine, theirs
	} else {
		c.SrcMAC, c.DstMAC = theirs, mine
	}
	return c
}

// neighborMAC guesses the L3 neighbour a probe came from or went to on an
// interface: the one owning the far address or the route's gateway, else
// the only (or first) one on the segment.
func neighborMAC(it *iface, p *packet, out bool) string {
	far := p.src
	if out {
		far = p.dst
	}
	for _, r := range it.reach {
		if r.to.has(far) {
			return r.to.mac
		}
	}
	if len(it.reach) > 0 {
		return it.reach[0].to.mac
	}
	return "ff:ff:ff:ff:ff:ff"
}

// icmpAnswer is the ICMP type and code a device answers a probe with.
func icmpAnswer(res fwResult, orig string, fam int) (int, int) {
	v6 := fam == 6
	pick := func(t4, c4, t6, c6 int) (int, int) {
		if v6 {
			return t6, c6
		}
		return t4, c4
	}
	switch res.kind {
	case fwDelivered:
		if orig == protoUDP {
			return pick(3, 3, 1, 4) // port unreachable
		}
		return pick(0, 0, 129, 0)
	case fwTimeExceeded:
		return pick(11, 0, 3, 0)
	case fwNetUnreach:
		return pick(3, 0, 1, 0)
	case fwHostUnreach:
		return pick(3, 1, 1, 3)
	case fwFragNeeded:
		return pick(3, 4, 2, 0)
	}
	return pick(0, 0, 129, 0)
}
