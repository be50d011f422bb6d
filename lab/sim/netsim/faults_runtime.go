package netsim

import (
	"math"
	"strconv"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// This file gives the named runtime faults of topology.Catalog their
// effect on the model: an end shut down (link_down), a link down by the
// lab clock (link_flap), an end without carrier (link_detach), per-direction impairments of a link (throttling,
// corruption, latency) and an interface that does not fragment.
// frr_service_down and host_crash are entries of the fault list whose
// symptoms the routing and host models read from it.

// Throttling model: a link rate-limited below the traffic it normally
// carries queues to its limit and drops the excess; below that load, a
// packet waits as in an M/M/1 queue.
const (
	// throttleLoadKbps is the traffic the model assumes a link carries
	// besides probes (protocol chatter and users' traffic), each way.
	throttleLoadKbps = 100
	// throttleQueueMS is the queue's limit in time, as tc tbf's latency.
	throttleQueueMS = 400
)

// dirFx are the effects of named faults on the packets crossing a link in
// one direction.
type dirFx struct {
	corrupt  float64 // percent of packets corrupted (input errors at the receiver)
	delayMS  float64 // added one-way delay
	jitterMS float64 // random variation of the delay, ±
	rateKbps float64 // 0: not throttled
}

func (d *dirFx) active() bool {
	return d.corrupt > 0 || d.delayMS > 0 || d.jitterMS > 0 || d.rateKbps > 0
}

// linkFx are the effects on a link, per receiving end.
type linkFx struct {
	toA, toB dirFx
}

// toward returns the effects on the packets received by interface to.
func (l *link) toward(to *iface) *dirFx {
	if l.fx == nil {
		l.fx = &linkFx{}
	}
	if to == l.a {
		return &l.fx.toA
	}
	return &l.fx.toB
}

// paramFloat reads a numeric parameter of a validated fault (its default
// from the catalog when absent).
func paramFloat(f topology.Fault, key string) float64 {
	x, _ := strconv.ParseFloat(f.Param(key), 64)
	return x
}

// FlapDown tells whether a link_flap fault holds the link down at now: the
// lab clock is divided in periods of `period` seconds and the link is down
// for the first `down` seconds of each.
func FlapDown(f topology.Fault, now time.Time) bool {
	period, down := flapTimes(f)
	if period <= 0 {
		return false
	}
	phase := time.Duration(now.UnixNano() % int64(period))
	return phase < down
}

// NextFlapChange returns the next instant after now at which a link_flap
// fault changes the link's state.
func NextFlapChange(f topology.Fault, now time.Time) time.Time {
	period, down := flapTimes(f)
	if period <= 0 {
		return time.Time{}
	}
	start := now.Add(-time.Duration(now.UnixNano() % int64(period)))
	if now.Before(start.Add(down)) {
		return start.Add(down)
	}
	return start.Add(period)
}

func flapTimes(f topology.Fault) (period, down time.Duration) {
	return time.Duration(paramFloat(f, "period") * float64(time.Second)), time.Duration(paramFloat(f, "down") * float64(time.Second))
}

// directions returns the receiving ends a direction parameter names,
// relative to the target interface t of link l: "in" is what t receives,
// "out" what it sends (its peer receives), "both" both.
func directions(l *link, t *iface, dir string) []*iface {
	switch dir {
	case "in":
		return []*iface{t}
	case "out":
		return []*iface{l.other(t)}
	}
	return []*iface{l.a, l.b}
}

// runtimeEffect is what a named runtime fault does to the state being
// built: byEnd finds a link by either end, lookup an interface by
// "device:interface", now is the lab clock's time.
type runtimeEffect func(f topology.Fault, byEnd map[string]*link, lookup func(string) *iface, now time.Time)

// runtimeFaults binds each named fault that lives in the network model's
// fault list (state of links, interfaces and daemons, not configuration)
// to its effect on the state; frr_service_down and host_crash have none
// there: the routing and host models read them from the list. Every
// other name of topology.Catalog is a configuration fault, made by the
// lab through the device's own configuration.
var runtimeFaults = map[string]runtimeEffect{
	"link_down": func(f topology.Fault, _ map[string]*link, lookup func(string) *iface, _ time.Time) {
		// As `ip link set IF down`: the target end is administratively
		// down and its peer loses the carrier ("peer admin-down").
		lookup(f.Target).adminUp = false
	},
	"link_flap": func(f topology.Fault, byEnd map[string]*link, _ func(string) *iface, now time.Time) {
		if FlapDown(f, now) {
			l := byEnd[f.Target]
			l.down, l.downWhy = true, "link-flap fault"
		}
	},
	"link_detach": func(f topology.Fault, _ map[string]*link, lookup func(string) *iface, _ time.Time) {
		// The target end is unplugged from its segment: administratively
		// up with no carrier, while its peer stays attached and up but
		// hears nothing from it.
		lookup(f.Target).detached = true
	},
	"link_bandwidth_throttling": perDirection(func(f topology.Fault, d *dirFx) {
		r := paramFloat(f, "rate")
		if d.rateKbps == 0 || r < d.rateKbps {
			d.rateKbps = r // the tightest limit wins
		}
	}),
	"link_high_packet_corruption": perDirection(func(f topology.Fault, d *dirFx) {
		d.corrupt = 100 - (100-d.corrupt)*(100-paramFloat(f, "percent"))/100
	}),
	"link_high_latency": perDirection(func(f topology.Fault, d *dirFx) {
		d.delayMS += paramFloat(f, "delay-ms")
		d.jitterMS += paramFloat(f, "jitter-ms")
	}),
	"link_fragmentation_disabled": func(f topology.Fault, _ map[string]*link, lookup func(string) *iface, _ time.Time) {
		it := lookup(f.Target)
		it.mtu = int(paramFloat(f, "mtu"))
		it.noFrag = true
	},
	"frr_service_down": nil,
	"host_crash":       nil,
}

// perDirection is the effect of an impairment of a link: fx changes the
// effects on the packets of each direction the fault's "direction"
// parameter names.
func perDirection(fx func(f topology.Fault, d *dirFx)) runtimeEffect {
	return func(f topology.Fault, byEnd map[string]*link, lookup func(string) *iface, _ time.Time) {
		l := byEnd[f.Target]
		t := lookup(f.Target)
		for _, to := range directions(l, t, f.Param("direction")) {
			fx(f, l.toward(to))
		}
	}
}

// applyRuntimeFault applies one named runtime fault of a validated
// topology while the state is built.
func applyRuntimeFault(f topology.Fault, byEnd map[string]*link, lookup func(string) *iface, now time.Time) {
	if fx := runtimeFaults[f.Name]; fx != nil {
		fx(f, byEnd, lookup, now)
	}
}

// draw returns the next deterministic number in [0,1) of a named sequence.
func (m *sim) draw(key string) float64 {
	seq := m.n.lossSeq[key]
	m.n.lossSeq[key] = seq + 1
	return hash01(m.seed, key, seq)
}

// crossFx applies the named faults' effects to a packet crossing hop h:
// whether it is lost (corrupted: an input error at the receiver; dropped
// by a throttled link's full queue: an output discard at the sender) and
// the delay it gains.
func (m *sim) crossFx(h linkHop, p *packet, frags uint64) (lost bool, delayMS float64) {
	if h.l.fx == nil {
		return false, 0
	}
	d := h.l.toward(h.to)
	if !d.active() {
		return false, 0
	}
	if m.dry {
		// The control plane's reachability checks: a protocol gets
		// through partial corruption and a slow link by retransmitting.
		return d.corrupt >= 100, 0
	}
	key := h.l.id + ">" + h.to.key()
	if d.corrupt > 0 && m.draw(key+"/corrupt")*100 < d.corrupt {
		m.counters(h.to).InErrors += frags
		return true, 0
	}
	if d.rateKbps > 0 {
		bits := float64(p.size*8) * float64(frags)
		service := bits / d.rateKbps // kbit/s = bit/ms
		rho := throttleLoadKbps / d.rateKbps
		if rho >= 1 {
			// Saturated: the queue is full, the share beyond the rate drops.
			if m.draw(key+"/throttle") < 1-1/rho {
				m.counters(h.from).OutDiscards += frags
				return true, 0
			}
			delayMS += throttleQueueMS + service
		} else {
			delayMS += service / (1 - rho)
		}
	}
	delayMS += d.delayMS
	if d.jitterMS > 0 {
		delayMS += d.jitterMS * (2*m.draw(key+"/jitter") - 1)
	}
	return false, math.Max(delayMS, 0)
}

// NextFaultChange returns the next instant after now at which a timed
// fault (link_flap) changes the network's state, and false when no fault
// is timed. The lab rebuilds the state then (Refresh).
func (n *Network) NextFaultChange(now time.Time) (time.Time, bool) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	var next time.Time
	for _, f := range n.topo.Faults {
		if f.Name != "link_flap" {
			continue
		}
		if t := NextFlapChange(f, now); !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	return next, !next.IsZero()
}

// Refresh recomputes the derived state at the clock's current time, so
// timed faults (link_flap) take their current state.
func (n *Network) Refresh() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.rebuild()
}

// RuntimeFaultsOn returns the named runtime faults whose target is device
// dev or one of its interfaces, for the models of daemons and hosts
// (frr_service_down, host_crash) and the surfaces.
func (n *Network) RuntimeFaultsOn(dev string) []topology.Fault {
	n.mu.RLock()
	defer n.mu.RUnlock()
	var out []topology.Fault
	for _, f := range n.topo.Faults {
		if f.Name == "" {
			continue
		}
		d, _, ok := topology.SplitEnd(f.Target)
		if !ok {
			d = f.Target
		}
		if d == dev {
			out = append(out, f)
		}
	}
	return cloneFaults(out)
}
