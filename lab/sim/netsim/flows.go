package netsim

import (
	"fmt"
	"math"
	"net/netip"
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// Flows are the periodic traffic the model derives from a state: each is
// a cycle of packets repeated every period, and each packet crosses some
// interfaces (sent out of one, received on another, perhaps dropped).

// Protocol timers, as FRR and Linux use them by default.
const (
	defaultOSPFHello    = 10 * time.Second
	defaultBGPKeepalive = 60 * time.Second
	bgpConnectRetry     = 120 * time.Second
	arpRefresh          = 60 * time.Second
	backgroundSize      = 512 // octets of an average background packet
)

// synRetries are the offsets of a TCP SYN and its retransmissions in one
// connection attempt (Linux: 1 s, doubling, tcp_syn_retries 6).
var synRetries = []time.Duration{0, 1 * time.Second, 3 * time.Second, 7 * time.Second,
	15 * time.Second, 31 * time.Second, 63 * time.Second}

// crossing is one passage of a packet across an interface.
type crossing struct {
	it   *iface
	out  bool
	fate int
	// prev is the probability that the packet got as far as the link
	// into this interface; surv that it crossed it intact (loss faults).
	prev, surv float64
}

// flowPkt is one packet of a flow's cycle.
type flowPkt struct {
	off   time.Duration // from the start of the cycle
	tmpl  CapturedPacket
	cross []crossing
}

// flow is a periodic cycle of packets.
type flow struct {
	name   string // stable, for the loss draws
	period time.Duration
	phase  time.Duration // of the cycle start, from the Unix epoch
	pkts   []flowPkt
}

// flowRef points at one crossing of one packet of a flow.
type flowRef struct {
	f  *flow
	pk int
	c  int
}

// background is the modelled rate of ordinary traffic on an interface.
type background struct {
	outPPS, inPPS float64
	inLoss        float64 // percent lost on the way in
}

// flows are a state's periodic traffic, indexed by interface key.
type flows struct {
	all  []*flow
	keys map[string][]flowRef
	bg   map[string]background
}

// count adds the traffic of [from, to) on an interface to c.
func (f *flows) count(c *Counters, key string, from, to time.Time) {
	if !to.After(from) {
		return
	}
	for _, r := range f.keys[key] {
		pk := &r.f.pkts[r.pk]
		cr := pk.cross[r.c]
		n := float64(occurrences(r.f.phase+pk.off, r.f.period, from, to))
		if n == 0 {
			continue
		}
		size := uint64(pk.tmpl.Length)
		if cr.out {
			if cr.fate == crossDiscard {
				c.OutDiscards += uint64(n * cr.prev)
				continue
			}
			sent := uint64(n * cr.surv)
			c.OutPkts += sent
			c.OutOctets += sent * size
			continue
		}
		got := uint64(math.Floor(n * cr.surv))
		c.InErrors += uint64(math.Floor(n*cr.prev)) - got
		c.InPkts += got
		c.InOctets += got * size
		if cr.fate == crossDiscard {
			c.InDiscards += got
		}
	}
	if b, ok := f.bg[key]; ok {
		secs := to.Sub(from).Seconds()
		out := uint64(b.outPPS * secs)
		in := b.inPPS * secs
		got := uint64(in * (1 - b.inLoss/100))
		c.OutPkts += out
		c.OutOctets += out * backgroundSize
		c.InPkts += got
		c.InOctets += got * backgroundSize
		c.InErrors += uint64(in) - got
	}
}

// flowBuilder derives the flows of a state.
type flowBuilder struct {
	s       *state
	scratch *Network // absorbs the counting of traced packets
	out     *flows
}

// deriveFlows computes the periodic traffic of a state.
func deriveFlows(s *state) *flows {
	b := &flowBuilder{s: s, scratch: &Network{counters: map[string]*Counters{}, lossSeq: map[string]uint64{}},
		out: &flows{keys: map[string][]flowRef{}, bg: map[string]background{}}}
	b.background()
	b.lldp()
	b.ospf()
	b.arp()
	b.bgp()
	for _, f := range b.out.all {
		for i := range f.pkts {
			settle(f.pkts[i].cross)
			for j, c := range f.pkts[i].cross {
				k := c.it.key()
				b.out.keys[k] = append(b.out.keys[k], flowRef{f: f, pk: i, c: j})
			}
		}
	}
	return b.out
}

// settle computes the loss probabilities along a packet's crossings: each
// link into a receiving interface loses its share of what reached it. A
// packet received by several interfaces (multicast) restarts from its
// sender at each receiver.
func settle(cs []crossing) {
	cur, sent := 1.0, 1.0
	for i := range cs {
		c := &cs[i]
		if c.out {
			if i == 0 {
				sent = cur
			}
			c.prev, c.surv = cur, cur
			continue
		}
		if i > 0 && !cs[i-1].out && cs[i-1].it.l3() {
			cur = sent // a second receiver of a multicast
		}
		c.prev = cur
		if c.it.link != nil {
			cur *= 1 - c.it.link.loss/100
		}
		c.surv = cur
	}
}

// phaseOf spreads flows over their period, deterministically by name.
func phaseOf(name string, period time.Duration) time.Duration {
	return time.Duration(hash01(0, "phase/"+name, 0) * float64(period)).Truncate(time.Millisecond)
}

func (b *flowBuilder) add(f *flow) {
	if len(f.pkts) == 0 {
		return
	}
	f.phase = phaseOf(f.name, f.period)
	b.out.all = append(b.out.all, f)
}

// speedOf is an interface's speed in Mb/s.
func speedOf(it *iface) int {
	if it.cfg.SpeedMbps > 0 {
		return it.cfg.SpeedMbps
	}
	if strings.HasPrefix(strings.ToLower(it.name), "tengig") {
		return 10000
	}
	return 1000
}

// background gives every up link a steady rate each way: one packet per
// second per 100 Mb/s of the slower end, scaled by a stable factor in
// [0.5, 1.5) per direction.
func (b *flowBuilder) background() {
	for _, l := range b.s.links {
		if l.down || !l.a.operUp || !l.b.operUp {
			continue
		}
		sp := float64(min(speedOf(l.a), speedOf(l.b))) / 100
		for _, from := range []*iface{l.a, l.b} {
			to := l.other(from)
			pps := sp * (0.5 + hash01(0, "bg/"+from.key(), 0))
			o, i := b.out.bg[from.key()], b.out.bg[to.key()]
			o.outPPS += pps
			i.inPPS += pps
			i.inLoss = l.loss
			b.out.bg[from.key()], b.out.bg[to.key()] = o, i
		}
	}
}

// l2Path returns the crossings of a frame sent from an interface to an L3
// endpoint of its segment, through the switches in between, the receiver
// checking p against its ingress ACL.
func l2Path(from *iface, r *l2Reach, p *packet) []crossing {
	cs := []crossing{{it: from, out: true}}
	for i, h := range r.hops {
		if i > 0 {
			cs = append(cs, crossing{it: h.from, out: true})
		}
		if i < len(r.hops)-1 {
			cs = append(cs, crossing{it: h.to, out: false})
		}
	}
	last := crossing{it: r.to}
	if p.proto == protoARP && !arpFiltered(r.to.dev, r.to.cfg.IngressACL) {
		return append(cs, last)
	}
	if !aclPermits(r.to.dev, r.to.cfg.IngressACL, p) || faultDrops(r.to, p) {
		last.fate = crossDiscard
	}
	return append(cs, last)
}

// ospfOn tells whether an interface sends OSPF hellos: in OSPF, not
// passive, up, and its router's routing daemon running (frr_service_down).
func (b *flowBuilder) ospfOn(it *iface) bool {
	return it.dev.cfg.OSPF != nil && it.cfg.OSPF != nil && !it.cfg.OSPF.Passive && it.operUp &&
		!it.loopback && it.l3() && !b.s.daemonDown[it.dev.name]
}

// ospf: every OSPF interface sends a hello to 224.0.0.5 each hello interval.
func (b *flowBuilder) ospf() {
	allSPF := netip.MustParseAddr("224.0.0.5")
	for _, d := range b.s.order {
		for _, it := range d.ifList {
			if !b.ospfOn(it) {
				continue
			}
			src, ok := it.addrOf(4)
			if !ok {
				continue
			}
			hello := defaultOSPFHello
			if it.cfg.OSPF.Hello > 0 {
				hello = time.Duration(it.cfg.OSPF.Hello) * time.Second
			}
			// The neighbours listed are those whose hellos this
			// interface receives (an ACL dropping OSPF hides them).
			var nbrs []netip.Addr
			for _, r := range it.reach {
				if !b.ospfOn(r.to) || r.to.dev == d {
					continue
				}
				if a, ok := r.to.addrOf(4); ok {
					in := packet{src: a.Addr(), dst: allSPF, ttl: 1, proto: protoOSPF}
					if aclPermits(d, it.cfg.IngressACL, &in) && !faultDrops(it, &in) {
						nbrs = append(nbrs, ospfRouterID(r.to.dev))
					}
				}
			}
			p := packet{src: src.Addr(), dst: allSPF, ttl: 1, proto: protoOSPF, size: 20 + 24 + 20 + 4*len(nbrs)}
			cs := []crossing{{it: it, out: true}}
			for i := range it.reach {
				r := &it.reach[i]
				if r.to.dev != d && r.to.adminUp {
					cs = append(cs, l2Path(it, r, &p)[1:]...)
				}
			}
			tm := CapturedPacket{Proto: ProtoOSPFName, Src: p.src, Dst: p.dst, TTL: 1, Length: p.size,
				Info: "OSPFv2, Hello", area: areaOf(it.cfg.OSPF.Area), routerID: ospfRouterID(d), neighbors: nbrs,
				hello: int(hello / time.Second), dead: deadOf(it.cfg.OSPF), p2p: it.cfg.OSPF.NetworkType == topology.OSPFPointToPoint}
			b.add(&flow{name: "ospf/" + it.key(), period: hello, pkts: []flowPkt{{tmpl: tm, cross: cs}}})
		}
	}
}

func deadOf(o *topology.InterfaceOSPF) int {
	if o.Dead > 0 {
		return o.Dead
	}
	if o.Hello > 0 {
		return 4 * o.Hello
	}
	return 40
}

// areaOf parses an area id, dotted or decimal.
func areaOf(s string) netip.Addr {
	if a, err := netip.ParseAddr(s); err == nil && a.Is4() {
		return a
	}
	var n uint32
	if _, err := fmt.Sscan(s, &n); err == nil {
		return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)})
	}
	return netip.AddrFrom4([4]byte{})
}

// ospfRouterID is a device's OSPF router id.
func ospfRouterID(d *device) netip.Addr {
	if d.cfg.OSPF != nil {
		if a, err := netip.ParseAddr(d.cfg.OSPF.RouterID); err == nil {
			return a
		}
	}
	if a := d.managementAddress(); a.Is4() {
		return a
	}
	return netip.AddrFrom4([4]byte{})
}

// arp: every up L3 interface refreshes the ARP entry of each neighbour on
// its subnet every arpRefresh (a unicast request, then the reply).
func (b *flowBuilder) arp() {
	for _, d := range b.s.order {
		for _, it := range d.ifList {
			if !it.operUp || it.loopback || !it.l3() || !it.adminUp {
				continue
			}
			src, ok := it.addrOf(4)
			if !ok {
				continue
			}
			for i := range it.reach {
				r := &it.reach[i]
				if r.to.dev == d || !r.to.adminUp {
					continue
				}
				tgt, ok := r.to.addrIn(src.Addr())
				if !ok || !src.Contains(tgt.Addr()) {
					continue
				}
				req := packet{src: src.Addr(), dst: tgt.Addr(), proto: protoARP, size: 28}
				f := &flow{name: "arp/" + it.key() + ">" + r.to.key(), period: arpRefresh}
				cs := l2Path(it, r, &req)
				f.pkts = append(f.pkts, flowPkt{tmpl: CapturedPacket{Proto: ProtoARPName, Src: req.src, Dst: req.dst,
					ARPOp: 1, SrcMAC: it.mac, DstMAC: r.to.mac, Length: 28}, cross: cs})
				if cs[len(cs)-1].fate == crossOK {
					rep := packet{src: req.dst, dst: req.src, proto: protoARP, size: 28}
					back := reverseReach(r, it)
					f.pkts = append(f.pkts, flowPkt{off: 200 * time.Microsecond, tmpl: CapturedPacket{Proto: ProtoARPName,
						Src: rep.src, Dst: rep.dst, ARPOp: 2, SrcMAC: r.to.mac, DstMAC: it.mac, Length: 28},
						cross: l2Path(r.to, back, &rep)})
				}
				b.add(f)
			}
		}
	}
}

// reverseReach is the way back from r.to to from.
func reverseReach(r *l2Reach, from *iface) *l2Reach {
	for i := range r.to.reach {
		if r.to.reach[i].to == from {
			return &r.to.reach[i]
		}
	}
	back := &l2Reach{to: from}
	for i := len(r.hops) - 1; i >= 0; i-- {
		h := r.hops[i]
		back.hops = append(back.hops, linkHop{l: h.l, from: h.to, to: h.from})
	}
	return back
}

// send runs a packet from a device through the model without counting it
// and returns where it went.
func (b *flowBuilder) send(from *device, p packet) ([]crossing, fwResult) {
	var cs []crossing
	m := &sim{s: b.s, n: b.scratch, tap: tap{noLoss: true, trace: &cs}}
	res := m.forward(from, nil, "", p)
	return cs, res
}

// arpFiltered tells whether an ACL filters ARP: only one with an arp rule
// does (an IP ACL never sees ARP, as on routers and Linux).
func arpFiltered(d *device, name string) bool {
	if a := d.acls[name]; a != nil {
		for _, r := range a.rules {
			if r.protocol == protoARP {
				return true
			}
		}
	}
	return false
}

// lldp: every up link carries each end's LLDPDU every 30 s, to the
// nearest-bridge group (not forwarded by switches), from devices running LLDP.
func (b *flowBuilder) lldp() {
	for _, l := range b.s.links {
		if l.down || !l.a.operUp || !l.b.operUp {
			continue
		}
		for _, from := range []*iface{l.a, l.b} {
			if !lldpOn(from.dev) {
				continue
			}
			du := lldpdu(from.dev, from)
			tm := CapturedPacket{Proto: ProtoLLDPName, SrcMAC: from.mac, DstMAC: lldpMulticast, Length: len(du),
				Info: "LLDP", sysName: from.dev.name, payload: du}
			b.add(&flow{name: "lldp/" + from.key(), period: lldpInterval,
				pkts: []flowPkt{{tmpl: tm, cross: []crossing{{it: from, out: true}, {it: l.other(from)}}}}})
		}
	}
}
