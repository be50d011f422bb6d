package netsim

import (
	"cmp"
	"fmt"
	"net/netip"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// Probe defaults, as the Linux tools use them.
const (
	defaultPingCount  = 5
	defaultPingSize   = 56
	defaultPingTTL    = 64
	defaultTraceHops  = 30
	defaultTraceQ     = 3
	defaultTracePort  = 33434
	tracepathBasePort = 44444
	errNetUnreachable = "Network is unreachable"
	// errBlackhole is what connect() tells on Linux when the route to the
	// destination is a blackhole route: EINVAL, nothing is sent.
	errBlackhole = "Invalid argument"
)

// prober is a resolved probe request.
type prober struct {
	m     *sim
	home  *device
	vrf   string
	src   netip.Addr
	dst   netip.Addr
	fam   int
	local bool // the destination is one of home's own addresses
	given bool
	iface string
	out   *iface // first egress interface
	// noRoute is why nothing can be sent when prepare reports no usable
	// route: errNetUnreachable, or errBlackhole on a Linux host.
	noRoute string
}

// prepare resolves the device, VRF and source address of a request. A
// missing route is not an error: it is reported by noRoute.
func (n *Network) prepare(req ProbeRequest) (*prober, bool, error) {
	s := n.state
	d, ok := s.devs[req.From]
	if !ok {
		return nil, false, fmt.Errorf("netsim: no device %q", req.From)
	}
	if !hasVRF(d, req.VRF) {
		return nil, false, fmt.Errorf("netsim: device %q has no VRF %q", req.From, req.VRF)
	}
	if !req.Destination.IsValid() {
		return nil, false, fmt.Errorf("netsim: probe from %q: no destination address", req.From)
	}
	dst := req.Destination.Unmap()
	pr := &prober{m: &sim{s: s, n: n, seed: n.opts.Seed, tap: tap{record: true}}, home: d, vrf: req.VRF, dst: dst, fam: familyOf(dst)}
	if it := ownerOf(d, req.VRF, dst); it != nil {
		pr.local, pr.src, pr.out = true, dst, it
	}
	if req.Source != "" {
		pr.given = true
		if a, err := netip.ParseAddr(req.Source); err == nil {
			if ownerOf(d, req.VRF, a.Unmap()) == nil {
				return nil, false, fmt.Errorf("netsim: source %s is not an address of %q in VRF %q", a, req.From, vrfName(req.VRF))
			}
			if familyOf(a) != pr.fam {
				return nil, false, fmt.Errorf("netsim: source %s and destination %s are of different address families", a, dst)
			}
			pr.src = a.Unmap()
		} else {
			it, ok := d.ifs[req.Source]
			if !ok {
				return nil, false, fmt.Errorf("netsim: source %q is neither an address nor an interface of %q", req.Source, req.From)
			}
			if it.vrf != req.VRF {
				return nil, false, fmt.Errorf("netsim: source interface %q is not in VRF %q", req.Source, vrfName(req.VRF))
			}
			p, ok := it.addrOf(pr.fam)
			if !ok {
				return nil, false, fmt.Errorf("netsim: source interface %q has no IPv%d address", req.Source, pr.fam)
			}
			pr.src, pr.iface = p.Addr(), it.name
		}
	}
	if pr.local {
		return pr, true, nil
	}
	// With equal-cost routes the kernel picks one for the flow, whose
	// source is not chosen yet when none is given (see flowPick).
	r := s.routeFlow(d, ribKey{req.VRF, pr.fam}, dst, pr.src, dst)
	if r == nil {
		pr.noRoute = errNetUnreachable
		return pr, false, nil
	}
	if r.Discard && d.kind == topology.KindHost {
		// Linux refuses to send along a blackhole route ("ping: connect:
		// Invalid argument"); a router's ping into Null0 just times out.
		pr.noRoute = errBlackhole
		return pr, false, nil
	}
	out := r.outIf
	if out != nil {
		out, _ = s.resolveFlow(d, ribKey{req.VRF, pr.fam}, r, &packet{src: pr.src, dst: dst})
		pr.out = out
	}
	if !pr.src.IsValid() {
		pr.src = errorSource(d, out, pr.fam)
		if out != nil && out.vrf != req.VRF {
			pr.src = netip.Addr{}
		}
		if !pr.src.IsValid() {
			for _, it := range d.ifList {
				if p, ok := it.addrOf(pr.fam); ok && it.vrf == req.VRF {
					pr.src = p.Addr()
					break
				}
			}
		}
		if !pr.src.IsValid() {
			return pr, false, nil
		}
	}
	return pr, true, nil
}

func vrfName(v string) string {
	if v == "" {
		return "default"
	}
	return v
}

// jitter is a small deterministic extra delay for one probe.
func (pr *prober) jitter(key string) float64 {
	pr.m.n.probes++
	return 0.04 * hash01(pr.m.seed, "jitter/"+key, pr.m.n.probes)
}

// probe sends one packet and interprets what comes back.
func (pr *prober) probe(p packet, key string) TraceProbe {
	if pr.local {
		return TraceProbe{Kind: ResultReply, From: pr.dst, RTT: ms(localRTTMS + pr.jitter(key)/4), TTL: pr.home.initialTTL()}
	}
	res := pr.m.forward(pr.home, nil, pr.vrf, p)
	var kind string
	var from netip.Addr
	size := 56
	if pr.fam == 6 {
		size = 96
	}
	switch res.kind {
	case fwLost:
		return TraceProbe{Kind: ResultLost}
	case fwNoRoute:
		return TraceProbe{Kind: ResultNetUnreachable}
	case fwDelivered:
		kind, from = ResultReply, p.dst
		if p.proto == protoICMP {
			size = p.size
		}
	case fwTimeExceeded:
		kind = ResultTimeExceeded
	case fwNetUnreach:
		kind = ResultNetUnreachable
	case fwHostUnreach:
		kind = ResultHostUnreachable
	case fwFragNeeded:
		kind = ResultFragNeeded
	}
	if res.in == nil && res.at == pr.home {
		// An error on the sender itself: no packet comes back, the kernel tells.
		return TraceProbe{Kind: kind, From: pr.src, RTT: ms(res.delayMS + pr.jitter(key)), TTL: 0, MTU: res.mtu}
	}
	if !from.IsValid() {
		from = errorSource(res.at, res.in, pr.fam)
	}
	pr.m.tap.orig = p
	a := pr.m.reply(pr.home, res, from, pr.src, size)
	if !a.ok {
		return TraceProbe{Kind: ResultLost}
	}
	rtt := res.delayMS + a.delayMS + pr.jitter(key)
	return TraceProbe{Kind: kind, From: a.from, RTT: ms(rtt), TTL: a.ttl, MTU: res.mtu}
}

func ms(f float64) time.Duration {
	return time.Duration(f * float64(time.Millisecond)).Round(time.Microsecond)
}

// Ping sends Count echo requests (default 5) of Size payload bytes
// (default 56) with time to live TTL (default 64) from a device and
// reports each answer. When the sender has
// no route the outcome carries Error and no packet is sent at all.
func (n *Network) Ping(req ProbeRequest) (PingOutcome, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	pr, routed, err := n.prepare(req)
	if err != nil {
		return PingOutcome{}, err
	}
	o := PingOutcome{Destination: pr.dst, Source: pr.src, SourceGiven: pr.given, SourceIface: pr.iface,
		Size: req.Size, Count: req.Count, Start: n.opts.Now()}
	if o.Size <= 0 {
		o.Size = defaultPingSize
	}
	if o.Count <= 0 {
		o.Count = defaultPingCount
	}
	if !routed {
		o.Error = cmp.Or(pr.noRoute, errNetUnreachable)
		return o, nil
	}
	ttl := req.TTL
	if ttl <= 0 {
		ttl = defaultPingTTL
	}
	hdr := 28
	if pr.fam == 6 {
		hdr = 48
	}
	var last time.Duration
	for seq := 1; seq <= o.Count; seq++ {
		p := packet{src: pr.src, dst: pr.dst, ttl: ttl, size: o.Size + hdr, proto: protoICMP, df: req.DontFragment, icmpType: 8}
		// The lab answers at once: the pings' packets are stamped as if
		// the last exchange ended just now, so a capture right after sees
		// them all.
		pr.m.tap.at(o.Start.Add(-time.Duration(o.Count-seq)*time.Second - pingStampLead))
		pr.m.tap.icmpSeq = seq
		if pr.fam == 6 {
			p.icmpType = 128
			p.df = true // IPv6 routers never fragment
		}
		tp := pr.probe(p, fmt.Sprintf("ping/%d", seq))
		r := PingReply{Seq: seq, Kind: tp.Kind, From: tp.From, TTL: tp.TTL, MTU: tp.MTU}
		switch tp.Kind {
		case ResultReply:
			r.RTT, r.Bytes = tp.RTT, o.Size+8
			last = tp.RTT
		case ResultLost:
			r.From = netip.Addr{}
		case ResultHostUnreachable:
			if tp.From == pr.src {
				o.Pipe = min(o.Count, 3)
			}
		}
		o.Replies = append(o.Replies, r)
	}
	o.Elapsed = time.Duration(o.Count-1)*time.Second + time.Duration(o.Count)*time.Millisecond + last
	if o.Pipe > 0 {
		o.Elapsed += 40 * time.Millisecond
	}
	return o, nil
}

// Traceroute probes TTL by TTL (default 30 hops, 3 UDP probes per hop to
// port 33434 and up) until the destination or an unreachable error
// answers; it also runs tracepath-style path-MTU probing for RenderTracepath.
func (n *Network) Traceroute(req ProbeRequest) (TraceOutcome, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	pr, routed, err := n.prepare(req)
	if err != nil {
		return TraceOutcome{}, err
	}
	o := TraceOutcome{Destination: pr.dst, Source: pr.src, MaxHops: req.MaxHops, PacketSize: req.Size, Protocol: req.Protocol, Start: n.opts.Now()}
	if o.MaxHops <= 0 {
		o.MaxHops = defaultTraceHops
	}
	if o.PacketSize <= 0 {
		o.PacketSize = 60
		if pr.fam == 6 {
			o.PacketSize = 80
		}
	}
	if o.Protocol == "" {
		o.Protocol = protoUDP
	}
	if o.Protocol != protoUDP && o.Protocol != protoICMP {
		return TraceOutcome{}, fmt.Errorf("netsim: traceroute protocol %q (want udp or icmp)", o.Protocol)
	}
	if !routed {
		o.Error = cmp.Or(pr.noRoute, errNetUnreachable)
		return o, nil
	}
	if pr.out != nil {
		o.LocalMTU = pr.out.mtu
	}
	q := req.Count
	if q <= 0 {
		q = defaultTraceQ
	}
	port := req.DstPort
	if port <= 0 {
		port = defaultTracePort
	}
	seq := 0
	for ttl := 1; ttl <= o.MaxHops; ttl++ {
		hop := TraceHop{TTL: ttl}
		final := false
		for i := 0; i < q; i++ {
			p := packet{src: pr.src, dst: pr.dst, ttl: ttl, size: o.PacketSize, proto: o.Protocol,
				dport: port + seq, df: req.DontFragment || pr.fam == 6}
			seq++
			tp := pr.probe(p, fmt.Sprintf("trace/%d/%d", ttl, i))
			if tp.Kind != ResultLost && tp.Kind != ResultTimeExceeded {
				final = true
			}
			if tp.Kind == ResultReply {
				o.Reached = true
			}
			hop.Probes = append(hop.Probes, tp)
		}
		o.Hops = append(o.Hops, hop)
		if final {
			break
		}
	}
	pr.tracepath(&o)
	return o, nil
}

// tracepath probes as tracepath does: UDP with DF at the path MTU, one
// answer per TTL (up to three tries), lowering the MTU on frag-needed.
func (pr *prober) tracepath(o *TraceOutcome) {
	mtu := o.LocalMTU
	if mtu == 0 {
		mtu = defaultMTU
	}
	seq := 0
	for ttl := 1; ttl <= o.MaxHops; ttl++ {
		var tp TraceProbe
		for try := 0; try < 3; try++ {
			p := packet{src: pr.src, dst: pr.dst, ttl: ttl, size: mtu, proto: protoUDP, dport: tracepathBasePort + seq, df: true}
			seq++
			tp = pr.probe(p, fmt.Sprintf("tracepath/%d/%d", ttl, try))
			if tp.Kind != ResultLost {
				break
			}
		}
		o.Tracepath = append(o.Tracepath, TracepathStep{TTL: ttl, Probe: tp})
		switch tp.Kind {
		case ResultFragNeeded:
			if tp.MTU < mtu && tp.MTU > 0 && len(o.Tracepath) < 4*o.MaxHops {
				mtu = tp.MTU
				ttl-- // probe this TTL again with the smaller MTU
				continue
			}
			o.PMTU = mtu
			return
		case ResultReply, ResultHostUnreachable, ResultNetUnreachable:
			o.PMTU = mtu
			return
		}
	}
	o.PMTU = mtu
}
