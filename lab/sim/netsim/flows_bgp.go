package netsim

import (
	"net/netip"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// BGP traffic: a session whose TCP connection can be made (in either
// direction, through routing and ACLs) and whose AS numbers agree is
// established and exchanges keepalives; otherwise each side that is not
// shut down tries to connect every connect-retry interval: SYNs and their
// retransmissions, answered by a SYN-ACK when the peer listens, by a RST
// when nothing listens on 179, by nothing when the SYN is dropped; a
// connection made to a peer with the wrong AS carries the OPENs and the
// NOTIFICATION (Bad Peer AS) that ends it.

// bgpSide is one configured end of a session.
type bgpSide struct {
	d           *device
	nb          *topology.BGPNeighbor
	local, peer netip.Addr
}

// Acceptances of a SYN at the peer.
const (
	bgpClosed = iota // no BGP process: RST
	bgpRefuse        // BGP runs but the source is no (enabled) neighbour: accepted, then closed
	bgpOpen          // a configured neighbour
)

// bgpTry is the outcome of one side's connection attempt.
type bgpTry struct {
	side      *bgpSide
	eph       int
	syn       []crossing
	delivered bool
	p         *device
	pnb       *topology.BGPNeighbor
	accept    int
	synack    []crossing
	handshake bool
	rst       []crossing
}

func (b *flowBuilder) bgp() {
	var sides []*bgpSide
	for _, d := range b.s.order {
		if d.cfg.BGP == nil || b.s.daemonDown[d.name] {
			continue // no BGP, or its routing daemon is down (frr_service_down): no SYNs
		}
		for i := range d.cfg.BGP.Neighbors {
			nb := &d.cfg.BGP.Neighbors[i]
			peer, err := netip.ParseAddr(nb.Address)
			if err != nil || nb.Shutdown {
				continue
			}
			if local := bgpLocal(b.s, d, nb, peer); local.IsValid() {
				sides = append(sides, &bgpSide{d: d, nb: nb, local: local, peer: peer})
			}
		}
	}
	tries := map[string]*bgpTry{}
	estab := map[string]*bgpTry{}
	for _, sd := range sides {
		t := b.try(sd)
		tries[sd.d.name+"/"+sd.peer.String()] = t
		if t.handshake && t.accept == bgpOpen && asAgree(sd, t) && b.s.bgpEstablished(sd.d, sd.peer) {
			k := pairKey(sd.local, sd.peer)
			if estab[k] == nil {
				estab[k] = t
			}
		}
	}
	for _, sd := range sides {
		t := tries[sd.d.name+"/"+sd.peer.String()]
		k := pairKey(sd.local, sd.peer)
		if e := estab[k]; e != nil {
			if e == t {
				b.keepalives(t)
			}
			continue
		}
		b.connects(t)
	}
}

func pairKey(a, b netip.Addr) string {
	if b.Less(a) {
		a, b = b, a
	}
	return a.String() + "|" + b.String()
}

// asAgree tells whether both ends expect each other's AS.
func asAgree(sd *bgpSide, t *bgpTry) bool {
	return t.p.cfg.BGP != nil && t.pnb != nil && sd.nb.RemoteAS == t.p.cfg.BGP.ASN && t.pnb.RemoteAS == sd.d.cfg.BGP.ASN
}

// bgpLocal is a session's source address: the update-source interface's,
// else the address of the interface toward the peer (invalid: no route).
func bgpLocal(s *state, d *device, nb *topology.BGPNeighbor, peer netip.Addr) netip.Addr {
	fam := familyOf(peer)
	if nb.UpdateSource != "" {
		if it := d.ifs[nb.UpdateSource]; it != nil {
			if p, ok := it.addrOf(fam); ok {
				return p.Addr()
			}
		}
		return netip.Addr{}
	}
	r := s.route(d, ribKey{"", fam}, peer)
	if r == nil || r.outIf == nil {
		return netip.Addr{}
	}
	return errorSource(d, r.outIf, fam)
}

// tcpSeg is a TCP segment's packet and capture template.
func tcpSeg(src, dst netip.Addr, sport, dport int, flags string, seq, ack uint32, msg []byte) (packet, CapturedPacket) {
	hdr := 20
	if flags == "S" || flags == "S." {
		hdr = 24 // the MSS option
	}
	size := 20 + hdr + len(msg)
	if familyOf(dst) == 6 {
		size += 20
	}
	p := packet{src: src, dst: dst, ttl: 255, size: size, proto: protoTCP, sport: sport, dport: dport}
	return p, CapturedPacket{Proto: ProtoTCPName, Src: src, Dst: dst, SrcPort: sport, DstPort: dport, TCPFlags: flags,
		Seq: seq, Ack: ack, TTL: 255, Length: size, payload: msg}
}

func isn(name string, n uint64) uint32 { return uint32(hash01(0, "isn/"+name, n) * (1 << 32)) }

// try makes one side's connection attempt.
func (b *flowBuilder) try(sd *bgpSide) *bgpTry {
	name := sd.d.name + ">" + sd.peer.String()
	t := &bgpTry{side: sd, eph: 32768 + int(hash01(0, "eph/"+name, 0)*28000)}
	syn, _ := tcpSeg(sd.local, sd.peer, t.eph, 179, "S", isn(name, 0), 0, nil)
	cs, res := b.send(sd.d, syn)
	t.syn = cs
	if res.kind != fwDelivered || res.neighbor != nil || ownerOf(res.at, "", sd.peer) == nil {
		return t
	}
	t.delivered, t.p = true, res.at
	t.accept = bgpClosed
	if bg := t.p.cfg.BGP; bg != nil && !b.s.daemonDown[t.p.name] {
		t.accept = bgpRefuse
		for i := range bg.Neighbors {
			n := &bg.Neighbors[i]
			if a, err := netip.ParseAddr(n.Address); err == nil && a == sd.local && !n.Shutdown {
				t.accept, t.pnb = bgpOpen, n
			}
		}
	}
	if t.accept == bgpClosed {
		rst, _ := tcpSeg(sd.peer, sd.local, 179, t.eph, "R.", 0, isn(name, 0)+1, nil)
		t.rst, _ = b.send(t.p, rst)
		return t
	}
	sa, _ := tcpSeg(sd.peer, sd.local, 179, t.eph, "S.", isn(name, 1), isn(name, 0)+1, nil)
	cs, res = b.send(t.p, sa)
	t.synack = cs
	t.handshake = res.kind == fwDelivered && res.at == sd.d
	return t
}

// seg adds a TCP segment of the flow, crossing what the model says.
func (b *flowBuilder) seg(f *flow, off time.Duration, from *device, src, dst netip.Addr, sport, dport int, flags string, seq, ack uint32, msg []byte) {
	p, tm := tcpSeg(src, dst, sport, dport, flags, seq, ack, msg)
	cs, _ := b.send(from, p)
	tm.Info = bgpInfo(msg)
	f.pkts = append(f.pkts, flowPkt{off: off, tmpl: tm, cross: cs})
}

// keepalives: an established session's keepalives, each side on its own timer.
func (b *flowBuilder) keepalives(t *bgpTry) {
	sd := t.side
	ka := keepaliveOf(sd.d)
	if k := keepaliveOf(t.p); k < ka {
		ka = k
	}
	name := sd.d.name + ">" + sd.peer.String()
	s1, s2 := isn(name, 0)+1, isn(name, 1)+1
	msg := bgpKeepaliveMsg()
	f := &flow{name: "bgp-ka/" + name + "/c", period: ka}
	b.seg(f, 0, sd.d, sd.local, sd.peer, t.eph, 179, "P.", s1, s2, msg)
	b.seg(f, 300*time.Microsecond, t.p, sd.peer, sd.local, 179, t.eph, ".", s2, s1+uint32(len(msg)), nil)
	b.add(f)
	g := &flow{name: "bgp-ka/" + name + "/s", period: ka}
	b.seg(g, 0, t.p, sd.peer, sd.local, 179, t.eph, "P.", s2, s1, msg)
	b.seg(g, 300*time.Microsecond, sd.d, sd.local, sd.peer, t.eph, 179, ".", s1, s2+uint32(len(msg)), nil)
	b.add(g)
}

func keepaliveOf(d *device) time.Duration {
	if d.cfg.BGP != nil && d.cfg.BGP.Keepalive > 0 {
		return time.Duration(d.cfg.BGP.Keepalive) * time.Second
	}
	return defaultBGPKeepalive
}

// connects: a side's connection attempts, every connect-retry interval.
func (b *flowBuilder) connects(t *bgpTry) {
	sd := t.side
	name := sd.d.name + ">" + sd.peer.String()
	f := &flow{name: "bgp-syn/" + name, period: bgpConnectRetry}
	synPkt := func(off time.Duration) {
		_, tm := tcpSeg(sd.local, sd.peer, t.eph, 179, "S", isn(name, 0), 0, nil)
		f.pkts = append(f.pkts, flowPkt{off: off, tmpl: tm, cross: t.syn})
	}
	rtt := 2 * time.Millisecond
	c, s := isn(name, 0)+1, isn(name, 1)+1
	for _, off := range synRetries {
		synPkt(off)
		if !t.delivered {
			continue
		}
		if t.accept == bgpClosed {
			_, tm := tcpSeg(sd.peer, sd.local, 179, t.eph, "R.", 0, c, nil)
			f.pkts = append(f.pkts, flowPkt{off: off + rtt/2, tmpl: tm, cross: t.rst})
			break
		}
		_, tm := tcpSeg(sd.peer, sd.local, 179, t.eph, "S.", s-1, c, nil)
		f.pkts = append(f.pkts, flowPkt{off: off + rtt/2, tmpl: tm, cross: t.synack})
		if !t.handshake {
			continue
		}
		at := off + rtt
		b.seg(f, at, sd.d, sd.local, sd.peer, t.eph, 179, ".", c, s, nil)
		if t.accept == bgpRefuse {
			b.seg(f, at+rtt/2, t.p, sd.peer, sd.local, 179, t.eph, "F.", s, c, nil)
			break
		}
		// Connected to a configured neighbour that disagrees on the AS.
		o1 := bgpOpenMsg(sd.d)
		o2 := bgpOpenMsg(t.p)
		b.seg(f, at+time.Millisecond, sd.d, sd.local, sd.peer, t.eph, 179, "P.", c, s, o1)
		b.seg(f, at+2*time.Millisecond, t.p, sd.peer, sd.local, 179, t.eph, "P.", s, c+uint32(len(o1)), o2)
		c2, s2 := c+uint32(len(o1)), s+uint32(len(o2))
		note := bgpNotification(2, 2) // OPEN Message Error / Bad Peer AS
		if t.pnb != nil && t.pnb.RemoteAS != sd.d.cfg.BGP.ASN {
			b.seg(f, at+3*time.Millisecond, t.p, sd.peer, sd.local, 179, t.eph, "P.", s2, c2, note)
			b.seg(f, at+4*time.Millisecond, t.p, sd.peer, sd.local, 179, t.eph, "F.", s2+uint32(len(note)), c2, nil)
		} else {
			b.seg(f, at+3*time.Millisecond, sd.d, sd.local, sd.peer, t.eph, 179, "P.", c2, s2, note)
			b.seg(f, at+4*time.Millisecond, sd.d, sd.local, sd.peer, t.eph, 179, "F.", c2+uint32(len(note)), s2, nil)
		}
		break
	}
	b.add(f)
}

// BGP messages (RFC 4271, section 4).
func bgpHeader(typ byte, body []byte) []byte {
	m := make([]byte, 19, 19+len(body))
	for i := 0; i < 16; i++ {
		m[i] = 0xff
	}
	l := 19 + len(body)
	m[16], m[17], m[18] = byte(l>>8), byte(l), typ
	return append(m, body...)
}

// bgpKeepaliveMsg is a BGP KEEPALIVE message (RFC 4271, 4.4).
func bgpKeepaliveMsg() []byte { return bgpHeader(4, nil) }

func bgpOpenMsg(d *device) []byte {
	asn := uint32(0)
	hold := 180
	if bg := d.cfg.BGP; bg != nil {
		asn = bg.ASN
		if bg.Hold > 0 {
			hold = bg.Hold
		}
	}
	as2 := asn
	if as2 > 65535 {
		as2 = 23456 // AS_TRANS
	}
	id := ospfRouterID(d).As4()
	body := []byte{4, byte(as2 >> 8), byte(as2), byte(hold >> 8), byte(hold), id[0], id[1], id[2], id[3], 0}
	return bgpHeader(1, body)
}

func bgpNotification(code, sub byte) []byte { return bgpHeader(3, []byte{code, sub}) }

// bgpInfo names a BGP message for the text summary.
func bgpInfo(msg []byte) string {
	if len(msg) < 19 {
		return ""
	}
	switch msg[18] {
	case 1:
		return "BGP OPEN"
	case 3:
		return "BGP NOTIFICATION"
	case 4:
		return "BGP KEEPALIVE"
	}
	return "BGP"
}

// bgpEstablished tells whether the routing model has the session of d with
// peer Established: the traffic shows keepalives only for sessions the
// model itself reports up (maximum-prefix, hold-timer history and
// everything else it decides included).
func (s *state) bgpEstablished(d *device, peer netip.Addr) bool {
	p := s.bgp[d]
	if p == nil {
		return false
	}
	for _, n := range p.nbrs {
		if n.addr == peer {
			return n.est
		}
	}
	return false
}
