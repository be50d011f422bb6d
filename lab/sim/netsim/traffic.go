package netsim

import (
	"sync"
	"time"
)

// The traffic model behind interface counters and captures. Besides the
// probes (ping, traceroute), which count as they are forwarded, every
// interface carries traffic that the model derives from the state and the
// lab clock: a background rate from the link speed, OSPF hellos, BGP
// keepalives or connection attempts, ARP refreshes (flows.go). That
// traffic is periodic, so how much of it crossed an interface between two
// instants is computed, not simulated tick by tick, and is the same for
// the same clock. A change of state (a commit, a fault) retires the state
// the traffic was derived from: what it carried up to the change stays
// counted, and what follows comes from the new state.

// Crossing fates.
const (
	crossOK      = iota
	crossDiscard // in: received then dropped (ACL); out: dropped before it was sent
)

// maxRetired bounds the retired states kept for counting lazily; older
// ones are folded into the counters at once.
const maxRetired = 4

// ringSize bounds the probe packets remembered per interface for captures.
const ringSize = 512

// edgeState is the Network's traffic bookkeeping (under n.mu for writes;
// mu guards the lazily derived flows, which readers compute).
type edgeState struct {
	mu sync.Mutex
	// segStart is when the current state started carrying traffic.
	segStart time.Time
	retired  []segment
	// folded holds the modelled traffic of states folded out of retired.
	folded map[string]*Counters
	// cleared is when each interface's counters were last cleared.
	cleared map[string]time.Time
	// cur are the flows of the current state (nil until first needed).
	cur      *flows
	curState *state
	rings    map[string]*ring
}

// segment is the traffic of a past state and the time it was current.
type segment struct {
	from, to time.Time
	fl       *flows
}

// start initialises the bookkeeping at the network's creation.
func (e *edgeState) start(now time.Time) {
	e.segStart = now
	e.folded = map[string]*Counters{}
	e.cleared = map[string]time.Time{}
	e.rings = map[string]*ring{}
}

// changed ends the segment of the state the network just replaced
// (under n.mu's write lock). A
// segment whose traffic nobody looked at (its flows were never derived)
// is not split off: the next state's flows count it, which costs a change
// nothing, and keeps counters monotonic, since no reading covered it. A
// segment that was looked at keeps its own flows; beyond maxRetired the
// oldest is folded into plain counts.
func (e *edgeState) changed(now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cur == nil {
		return
	}
	e.retired = append(e.retired, segment{from: e.segStart, to: now, fl: e.cur})
	e.segStart, e.cur, e.curState = now, nil, nil
	for len(e.retired) > maxRetired {
		sg := &e.retired[0]
		for key := range sg.fl.keys {
			sg.fl.count(e.foldInto(key), key, e.since(key, sg.from), sg.to)
		}
		for key := range sg.fl.bg {
			if _, ok := sg.fl.keys[key]; !ok {
				sg.fl.count(e.foldInto(key), key, e.since(key, sg.from), sg.to)
			}
		}
		e.retired = e.retired[1:]
	}
}

// foldInto returns the folded counts of an interface.
func (e *edgeState) foldInto(key string) *Counters {
	c := e.folded[key]
	if c == nil {
		c = &Counters{}
		e.folded[key] = c
	}
	return c
}

// since is the later of t and the interface's last clear.
func (e *edgeState) since(key string, t time.Time) time.Time {
	if c := e.cleared[key]; c.After(t) {
		return c
	}
	return t
}

// current returns the flows of the current state (under e.mu).
func (e *edgeState) current(s *state) *flows {
	if e.curState != s || e.cur == nil {
		e.cur, e.curState = deriveFlows(s), s
	}
	return e.cur
}

// liveCounters are an interface's counters now: what probes and drops
// counted, plus the modelled traffic since the last clear (under n.mu,
// read or write).
func (n *Network) liveCounters(it *iface) Counters {
	key := it.key()
	var c Counters
	if p := n.counters[key]; p != nil {
		c = *p
	}
	now := n.opts.Now()
	e := &n.edge
	e.mu.Lock()
	defer e.mu.Unlock()
	if f := e.folded[key]; f != nil {
		c.add(f)
	}
	for i := range e.retired {
		sg := &e.retired[i]
		sg.fl.count(&c, key, e.since(key, sg.from), sg.to)
	}
	e.current(n.state).count(&c, key, e.since(key, e.segStart), now)
	c.LastClear = e.cleared[key]
	return c
}

// add adds o's counts to c.
func (c *Counters) add(o *Counters) {
	c.InOctets += o.InOctets
	c.OutOctets += o.OutOctets
	c.InPkts += o.InPkts
	c.OutPkts += o.OutPkts
	c.InErrors += o.InErrors
	c.OutErrors += o.OutErrors
	c.InDiscards += o.InDiscards
	c.OutDiscards += o.OutDiscards
}

// ClearCounters resets the counters of one interface of a device, or of
// all its interfaces when ifname is "", and stamps the time of the clear.
func (n *Network) ClearCounters(dev, ifname string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	d, it, err := n.state.iface(dev, ifname)
	if err != nil {
		return err
	}
	ifs := d.ifList
	if it != nil {
		ifs = []*iface{it}
	}
	now := n.opts.Now()
	n.edge.mu.Lock()
	defer n.edge.mu.Unlock()
	for _, it := range ifs {
		key := it.key()
		delete(n.counters, key)
		delete(n.edge.folded, key)
		n.edge.cleared[key] = now
	}
	return nil
}

// occurrences counts the instants base + k*period (k any integer) in
// [from, to).
func occurrences(base, period time.Duration, from, to time.Time) uint64 {
	if !to.After(from) || period <= 0 {
		return 0
	}
	// instants t with t >= from: k >= ceil((from-base)/period)
	first := ceilDiv(from.UnixNano()-int64(base), int64(period))
	end := ceilDiv(to.UnixNano()-int64(base), int64(period))
	if end <= first {
		return 0
	}
	return uint64(end - first)
}

func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a > 0) == (b > 0) {
		q++
	}
	return q
}

// ring remembers the last probe packets that crossed an interface.
type ring struct {
	pkts []CapturedPacket
	next int
	full bool
}

func (r *ring) put(p CapturedPacket) {
	if len(r.pkts) < ringSize {
		r.pkts = append(r.pkts, p)
		return
	}
	r.pkts[r.next] = p
	r.next = (r.next + 1) % ringSize
	r.full = true
}

// all returns the packets oldest first.
func (r *ring) all() []CapturedPacket {
	if !r.full {
		return append([]CapturedPacket(nil), r.pkts...)
	}
	return append(append([]CapturedPacket(nil), r.pkts[r.next:]...), r.pkts[:r.next]...)
}

// tap follows packets across interfaces: for captures (record) and for
// deriving model flows (trace).
type tap struct {
	// record puts every crossing into the interface's capture ring.
	record bool
	// noLoss turns off random loss (flows account for it by rates).
	noLoss bool
	// trace collects the crossings.
	trace *[]crossing
	// t0 and k time the recorded packets: t0 is when the probe was sent,
	// and each crossing comes a little later than the previous one.
	t0 time.Time
	k  int
	// orig is the probe an ICMP answer is about.
	orig packet
	// mtu is the MTU an ICMP "fragmentation needed" answer tells.
	mtu int
	// icmpSeq is the sequence number of a ping's echo request and reply.
	icmpSeq int
}

// hopGap is the time between two recorded crossings of one probe;
// pingStampLead is how long before the call the last ping's request left
// (room for 500 crossings).
const (
	hopGap         = 100 * time.Microsecond
	pingStampLead  = 50 * time.Millisecond
	traceStampLead = time.Second
)

// at starts the timing of a new probe.
func (t *tap) at(t0 time.Time) { t.t0, t.k = t0, 0 }

// cross notes a packet crossing an interface.
func (t *tap) cross(m *sim, it *iface, p *packet, out bool, fate int) {
	if t.trace != nil {
		*t.trace = append(*t.trace, crossing{it: it, out: out, fate: fate})
	}
	if !t.record {
		return
	}
	if t.t0.IsZero() {
		// A traceroute: its probes are stamped from a little before now
		// (room for 10,000 crossings), so a capture right after sees them.
		t.t0 = m.n.opts.Now().Add(-traceStampLead)
	}
	ts := t.t0.Add(time.Duration(t.k) * hopGap)
	t.k++
	r := m.n.edge.rings[it.key()]
	if r == nil {
		r = &ring{}
		m.n.edge.rings[it.key()] = r
	}
	c := probePacket(it, p, out, ts)
	if isEcho(&c) {
		c.icmpSeq = t.icmpSeq
	} else if p.proto == protoICMP {
		o := probePacket(it, &t.orig, out, ts)
		o.TTL = 1
		c.inner, c.mtu = &o, t.mtu
	}
	r.put(c)
}

// discard notes a packet dropped at an interface: received then dropped
// (in), or dropped before it was sent (out).
func (t *tap) discard(it *iface, out bool) {
	if t.trace == nil {
		return
	}
	l := *t.trace
	if !out && len(l) > 0 && l[len(l)-1].it == it && !l[len(l)-1].out {
		l[len(l)-1].fate = crossDiscard
		return
	}
	*t.trace = append(l, crossing{it: it, out: out, fate: crossDiscard})
}
