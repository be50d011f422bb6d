package netsim

import (
	"encoding/binary"
	"hash/fnv"
	"net/netip"

	"github.com/netmcp/netmcp/lab/topology"
)

// Packet protocols.
const (
	protoICMP = "icmp"
	protoUDP  = "udp"
	protoTCP  = "tcp"
	protoOSPF = "ospf" // IP protocol 89
	protoARP  = "arp"  // not IP: matched only by ACL rules for arp
)

// Per-hop costs added to the link delays, in milliseconds.
const (
	forwardCostMS = 0.012 // each router forwarding a packet
	answerCostMS  = 0.025 // a device answering (echo reply, ICMP error)
	localRTTMS    = 0.030 // a ping to one of the sender's own addresses
	arpTimeoutMS  = 3000  // a failed ARP/ND resolution on the sender
)

// packet is one simulated IP packet.
type packet struct {
	src, dst netip.Addr
	ttl      int
	size     int // IP total length
	proto    string
	sport    int
	dport    int
	df       bool
	// icmpType and icmpCode tell ICMP messages apart in captures (0/0 is
	// an echo reply; Ping sets 8, or 128 for IPv6, on its requests).
	icmpType, icmpCode int
}

// hasPorts tells whether the packet's protocol carries ports.
func (p *packet) hasPorts() bool { return p.proto == protoTCP || p.proto == protoUDP }

// Outcomes of forwarding one packet.
const (
	fwDelivered = iota
	fwLost
	fwNoRoute
	fwTimeExceeded
	fwNetUnreach
	fwHostUnreach
	fwFragNeeded
)

// fwResult says what became of a packet.
type fwResult struct {
	kind int
	// at is where it ended (delivered, or the device that answered an error);
	// in is the interface it came in by (nil: originated there).
	at *device
	in *iface
	// neighbor is set when a static (unmodelled) neighbor received it.
	neighbor *topology.Neighbor
	ttl      int // TTL on arrival
	mtu      int // for fwFragNeeded
	delayMS  float64
	hops     int
}

// sim is one run of probes against a state: it owns the counters and the
// loss sequence numbers of the Network for the time of a call.
type sim struct {
	// tap follows the packets across interfaces (see traffic.go): it
	// records real probes for captures and traces model flows.
	tap  tap
	s    *state
	n    *Network
	seed int64
	// dry runs the control plane's reachability checks: no counter moves,
	// and a link drops a packet only when it loses everything that way
	// (a protocol retransmits through partial loss).
	dry bool
}

// hash01 maps its inputs to a deterministic number in [0,1).
func hash01(seed int64, key string, seq uint64) float64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(seed))
	h.Write(b[:])
	h.Write([]byte(key))
	binary.LittleEndian.PutUint64(b[:], seq)
	h.Write(b[:])
	// Finalise (splitmix64) so that nearby sequence numbers spread well.
	z := h.Sum64() + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11) / float64(1<<53)
}

// lose decides deterministically whether a link drops the next packet in a direction.
func (m *sim) lose(h linkHop) bool {
	if h.l.loss <= 0 {
		return false
	}
	if m.dry {
		return h.l.loss >= 100
	}
	key := h.l.id + ">" + h.to.key()
	seq := m.n.lossSeq[key]
	m.n.lossSeq[key] = seq + 1
	if (!m.tap.noLoss || h.l.loss >= 100) && hash01(m.seed, key, seq)*100 < h.l.loss {
		m.counters(h.to).InErrors++ // a corrupted frame, counted by the receiver
		return true
	}
	return false
}

// counters returns the persistent counters of an interface.
func (m *sim) counters(it *iface) *Counters {
	if m.dry {
		return &Counters{}
	}
	k := it.key()
	c := m.n.counters[k]
	if c == nil {
		c = &Counters{}
		m.n.counters[k] = c
	}
	return c
}

func (m *sim) countOut(it *iface, p *packet, pkts uint64) {
	c := m.counters(it)
	c.OutPkts += pkts
	c.OutOctets += uint64(p.size) + 20*(pkts-1)
	m.tap.cross(m, it, p, true, crossOK)
}

func (m *sim) countIn(it *iface, p *packet, pkts uint64) {
	c := m.counters(it)
	c.InPkts += pkts
	c.InOctets += uint64(p.size) + 20*(pkts-1)
	m.tap.cross(m, it, p, false, crossOK)
}

// ownerOf returns the interface of d in vrf holding address a, if any.
func ownerOf(d *device, vrf string, a netip.Addr) *iface {
	for _, it := range d.ifList {
		if it.vrf == vrf && it.adminUp && it.has(a) {
			return it
		}
	}
	return nil
}

// staticNeighbor returns the static neighbor a on interface it.
func staticNeighbor(d *device, it *iface, a netip.Addr) *topology.Neighbor {
	for i := range d.cfg.Neighbors {
		nb := &d.cfg.Neighbors[i]
		if nb.Interface != it.name {
			continue
		}
		if ip, err := netip.ParseAddr(nb.IP); err == nil && ip == a {
			return nb
		}
	}
	return nil
}

// forward carries a packet hop by hop from device at, which originated it
// (in == nil) or received it on in, until it is delivered, dropped or
// answered by an ICMP error.
func (m *sim) forward(at *device, in *iface, vrf string, p packet) fwResult {
	res := fwResult{}
	fam := familyOf(p.dst)
	for {
		res.at, res.in, res.ttl = at, in, p.ttl
		if in != nil {
			if !aclPermits(at, in.cfg.IngressACL, &p) || faultDrops(in, &p) {
				m.counters(in).InDiscards++
				m.tap.discard(in, false)
				res.kind = fwLost
				return res
			}
			if ownerOf(at, vrf, p.dst) != nil {
				res.kind = fwDelivered
				return res
			}
			if at.kind == topology.KindHost {
				res.kind = fwLost // hosts do not forward
				return res
			}
		} else if ownerOf(at, vrf, p.dst) != nil {
			res.kind = fwDelivered
			return res
		}
		// As in Linux: the route lookup comes first, then the TTL check.
		r := m.s.routeFlow(at, ribKey{vrf, fam}, p.dst, p.src, p.dst)
		switch {
		case r == nil && in == nil:
			res.kind = fwNoRoute
			return res
		case r == nil:
			res.kind = fwNetUnreach
			return res
		case r.Discard:
			res.kind = fwLost
			return res
		}
		if in != nil {
			if p.ttl <= 1 {
				res.kind = fwTimeExceeded
				return res
			}
			p.ttl--
			res.delayMS += forwardCostMS
		}
		out, gw := m.s.resolveFlow(at, ribKey{vrf, fam}, r, &p)
		// A router's egress ACL filters forwarded traffic only; a host's
		// (its firewall's output chain) filters what it sends too.
		if (in != nil || at.kind == topology.KindHost) && !aclPermits(at, out.cfg.EgressACL, &p) {
			m.counters(out).OutDiscards++
			m.tap.discard(out, true)
			res.kind = fwLost
			return res
		}
		frags := uint64(1)
		if p.size > out.mtu {
			if p.df {
				res.kind, res.mtu = fwFragNeeded, out.mtu
				return res
			}
			if out.noFrag {
				m.counters(out).OutDiscards++
				res.kind = fwLost
				return res
			}
			hdr := 20
			if fam == 6 {
				hdr = 40
			}
			per := (out.mtu - hdr) &^ 7
			frags = uint64((p.size - hdr + per - 1) / per)
		}
		if !gw.IsValid() {
			gw = p.dst
		}
		var next, recv *l2Reach
		if out.operUp && !out.loopback {
			next, recv = resolveNeighbor(out, gw)
		}
		if next != nil && recv != next {
			m.countOut(out, &p, frags)
			res.kind = fwLost // a MAC conflict: the frames reach another device
			return res
		}
		if next == nil {
			nb := (*topology.Neighbor)(nil)
			if out.operUp {
				nb = staticNeighbor(at, out, gw)
			}
			if nb == nil || nb.Unreachable {
				res.kind = fwHostUnreach
				if in == nil {
					res.delayMS += arpTimeoutMS
				}
				return res
			}
			m.countOut(out, &p, frags)
			res.delayMS += defaultDelayMS
			if gw != p.dst {
				res.kind = fwLost // beyond an unmodelled host
				return res
			}
			res.kind, res.neighbor, res.in, res.ttl = fwDelivered, nb, out, p.ttl
			res.hops++
			return res
		}
		m.countOut(out, &p, frags)
		for i, h := range next.hops {
			if i > 0 {
				m.countOut(h.from, &p, frags)
			}
			if m.lose(h) {
				res.kind = fwLost
				return res
			}
			lost, fxMS := m.crossFx(h, &p, frags)
			if lost {
				res.kind = fwLost
				return res
			}
			res.delayMS += h.l.delayMS + fxMS
			if i < len(next.hops)-1 {
				m.countIn(h.to, &p, frags)
			}
		}
		m.countIn(next.to, &p, frags)
		res.hops++
		at, in, vrf = next.to.dev, next.to, next.to.vrf
	}
}

// resolveFlow is where a route sends a packet: its interface and gateway,
// or for a route through a next hop off every connected subnet, those of
// the flow's choice among the equal-cost routes to that next hop.
func (s *state) resolveFlow(at *device, k ribKey, r *route, p *packet) (*iface, netip.Addr) {
	if !r.recurse {
		return r.outIf, r.gw
	}
	v := s.routeFlow(at, k, r.NextHop, p.src, p.dst)
	if v == nil || v.Discard || v.outIf == nil || v.recurse {
		return r.outIf, r.gw
	}
	if !v.gw.IsValid() {
		return v.outIf, r.NextHop
	}
	return v.outIf, v.gw
}

// errorSource is the address a device answers an ICMP error from: its
// address on the ingress interface, else any of its addresses in the VRF.
func errorSource(d *device, in *iface, fam int) netip.Addr {
	if in != nil {
		if p, ok := in.addrOf(fam); ok {
			return p.Addr()
		}
	}
	for _, it := range d.ifList {
		if in != nil && it.vrf != in.vrf {
			continue
		}
		if p, ok := it.addrOf(fam); ok {
			return p.Addr()
		}
	}
	return netip.Addr{}
}

// answer is a reply coming back to the prober.
type answer struct {
	ok      bool
	from    netip.Addr
	ttl     int
	delayMS float64
}

// reply sends an answer from the end of res back to src and tells whether
// it arrives at the prober (device home) and with which TTL.
func (m *sim) reply(home *device, res fwResult, from, src netip.Addr, size int) answer {
	if !from.IsValid() {
		return answer{}
	}
	p := packet{src: from, dst: src, size: size, proto: protoICMP}
	p.icmpType, p.icmpCode = icmpAnswer(res, m.tap.orig.proto, familyOf(src))
	m.tap.mtu = res.mtu
	var back fwResult
	if res.neighbor != nil {
		// An unmodelled host answers through the interface it lives on.
		p.ttl = 64
		back = m.forward(res.at, res.in, res.in.vrf, p)
		back.delayMS += defaultDelayMS
	} else {
		p.ttl = res.at.initialTTL()
		vrf := ""
		if res.in != nil {
			vrf = res.in.vrf
		}
		back = m.forward(res.at, nil, vrf, p)
	}
	if back.kind != fwDelivered || back.at != home || back.neighbor != nil {
		return answer{}
	}
	return answer{ok: true, from: from, ttl: back.ttl, delayMS: back.delayMS + answerCostMS}
}
