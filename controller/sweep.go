package controller

import (
	"fmt"
	"net/netip"
	"slices"
	"sync"

	"github.com/netmcp/netmcp/netproto"
)

// lossOnLinks pings each link's far end from both ends at once and names
// the links whose probes are partly lost (or whose ends count input
// errors). A link whose probes are all lost while both ends are up is left
// to the other rules (an ACL, a down link).
func (r *run) lossOnLinks(n *network, links []link) []Cause {
	count := r.c.LinkPings
	if count <= 0 {
		count = 10
	}
	type res struct{ ab, ba pingResult }
	out := make([]res, len(links))
	var wg sync.WaitGroup
	for i, l := range links {
		a, b := n.Devices[l.A.Device].Iface(l.A.Iface), n.Devices[l.B.Device].Iface(l.B.Iface)
		if a == nil || b == nil || !a.OperUp || !b.OperUp {
			continue
		}
		wg.Add(2)
		go func() { defer wg.Done(); out[i].ab = r.ping(l.A.Device, l.B.Addr, pingOpts{Count: count}) }()
		go func() { defer wg.Done(); out[i].ba = r.ping(l.B.Device, l.A.Addr, pingOpts{Count: count}) }()
	}
	wg.Wait()
	partial := func(p pingResult) bool { return p.Err == nil && p.Loss > 0 && p.Loss < 100 }
	// A link that lost every probe both ways may corrupt them all (its
	// ends' input errors grow meanwhile) or be filtered (they do not).
	total := func(p pingResult) bool { return p.Err == nil && p.Loss == 100 }
	// A link is slow above limit, whatever the cause; one that stands
	// out from its peers (above peer) but not that far is rate-limited
	// only when its delay grows with the packet's size (sizeDelays): a
	// link of a longer path than its peers is no fault.
	limit := r.latencyLimit()
	if r.c.LinkLatencyMS > 0 {
		limit = r.c.LinkLatencyMS
	}
	var rtts []float64
	for _, o := range out {
		if o.ab.OK() && o.ba.OK() {
			rtts = append(rtts, max(o.ab.RTT, o.ba.RTT))
		}
	}
	peer := limit
	if len(rtts) >= 3 {
		peer = min(limit, standsOut(rtts))
	}
	slow := func(ab, ba pingResult) bool { return max(ab.RTT, ba.RTT) > peer }
	// Counters count since the interface came up, not since a fault: a
	// link with loss, errors or a slow round trip has both ends' counters
	// read again after its probes, and what they added meanwhile is the
	// evidence (a slow link whose senders drop at their queues is
	// rate-limited, even when the drops missed the probes).
	after := map[string]*deviceView{}
	var amu sync.Mutex
	for i, l := range links {
		a, b := n.Devices[l.A.Device].Iface(l.A.Iface), n.Devices[l.B.Device].Iface(l.B.Iface)
		if out[i].ab.Call == 0 || !partial(out[i].ab) && !partial(out[i].ba) && !total(out[i].ab) && !total(out[i].ba) && a.InErrors+b.InErrors == 0 && !slow(out[i].ab, out[i].ba) {
			continue
		}
		for _, dev := range []string{l.A.Device, l.B.Device} {
			amu.Lock()
			_, seen := after[dev]
			after[dev] = nil
			amu.Unlock()
			if seen {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				data, call, err := r.yangGet(dev, pathInterfaces)
				if err != nil {
					return
				}
				v := &deviceView{Name: dev, Ifaces: parseInterfaces(data), Calls: map[string]int{pathInterfaces: call}}
				r.summarize(call, "counters after the probes")
				amu.Lock()
				after[dev] = v
				amu.Unlock()
			}()
		}
	}
	wg.Wait()
	// delta returns an interface's counters as read after the probes, the
	// growth since the first read in InErrors and OutDiscards, and the
	// call that showed them (the first read's when there is no second).
	delta := func(dev string, it *ifaceView) (*ifaceView, int) {
		v := after[dev]
		if v == nil {
			return it, n.Devices[dev].Calls[pathInterfaces]
		}
		now := v.Iface(it.Name)
		if now == nil {
			return it, n.Devices[dev].Calls[pathInterfaces]
		}
		d := *now
		d.InErrors, d.OutDiscards = max(now.InErrors-it.InErrors, 0), max(now.OutDiscards-it.OutDiscards, 0)
		return &d, v.Calls[pathInterfaces]
	}
	var causes []Cause
	for i, l := range links {
		ab, ba := out[i].ab, out[i].ba
		if ab.Call == 0 {
			continue
		}
		a, b := n.Devices[l.A.Device].Iface(l.A.Iface), n.Devices[l.B.Device].Iface(l.B.Iface)
		a, aCall := delta(l.A.Device, a)
		b, bCall := delta(l.B.Device, b)
		errs := a.InErrors + b.InErrors
		rtt := max(ab.RTT, ba.RTT)
		ev := []Evidence{
			r.ev(ab.Call, l.A.Device, netproto.ToolPing, "%s", ab.Text),
			r.ev(ba.Call, l.B.Device, netproto.ToolPing, "%s", ba.Text),
		}
		// throttled: no corrupted frames, but the senders' queues drop
		// (their output discards are the evidence): a rate limit.
		throttled := func(loss float64) Cause {
			ev := append(ev, r.ev(aCall, l.A.Device, netproto.ToolYangGet, "%s out-discards %d, in-errors 0", a.Name, a.OutDiscards),
				r.ev(bCall, l.B.Device, netproto.ToolYangGet, "%s out-discards %d, in-errors 0", b.Name, b.OutDiscards))
			return throttleCause(l, loss, rtt, ev...)
		}
		if !partial(ab) && !partial(ba) && errs == 0 {
			switch {
			case rtt <= peer || !ab.OK() || !ba.OK():
			case rtt <= limit:
				// Above its peers, below a slow link: a rate limit
				// only when large packets show it.
				if a.OutDiscards+b.OutDiscards > 0 || r.sizeDelays(l.A.Device, l.B.Addr, pingOpts{}, ab, &ev) {
					causes = append(causes, throttled(0))
				}
			case a.OutDiscards+b.OutDiscards > 0:
				// Every probe came back, late, while the senders' queues
				// dropped other traffic: a rate limit, not a long path.
				causes = append(causes, throttled(0))
			case r.sizeDelays(l.A.Device, l.B.Addr, pingOpts{}, ab, &ev):
				// Large packets take much longer than small ones: the
				// delay is the link's serialisation, a rate limit.
				causes = append(causes, throttled(0))
			default:
				causes = append(causes, latencyCause(l, rtt, limit, ev...))
			}
			continue
		}
		loss := max(ab.Loss, ba.Loss)
		if ab.Err == nil && ba.Err == nil {
			loss = (ab.Loss + ba.Loss) / 2
		}
		if errs > 0 {
			ev = append(ev, r.ev(aCall, l.A.Device, netproto.ToolYangGet, "%s in-errors %d", a.Name, a.InErrors),
				r.ev(bCall, l.B.Device, netproto.ToolYangGet, "%s in-errors %d", b.Name, b.InErrors))
		} else if a.OutDiscards+b.OutDiscards > 0 || rtt > limit {
			// Packets queue (a round trip far above a link's) or the
			// senders' queues overflow.
			causes = append(causes, throttled(loss))
			continue
		}
		causes = append(causes, lossCause(l, loss, errs, ev...))
	}
	return causes
}

// sweep checks the whole network with no hint: it reads every device,
// then runs the sweep's rules over what they showed (sweepRules): every
// link's state, MTU, ACLs and loss, every BGP session and OSPF adjacency,
// every known host from its router and from afar, name resolution.
func (r *run) sweep() error {
	r.applyRules(r.readNetwork(), sweepRules)
	return nil
}

// linkState checks both ends of every link: a link down while its ends
// are administratively up, one end shut down, a link whose logs show it
// flapping, an MTU that differs between the ends. The links up at both
// ends are left for linkLoss.
func (r *run) linkState(s *sweepState) {
	n := s.n
	for _, l := range n.Links {
		a, b := n.Devices[l.A.Device].Iface(l.A.Iface), n.Devices[l.B.Device].Iface(l.B.Iface)
		if a == nil || b == nil {
			continue
		}
		if c, ok := r.flapCause(n, l); ok && a.AdminUp && b.AdminUp {
			r.rep.addCause(c)
			if a.OperUp && b.OperUp && a.MTU != b.MTU {
				r.rep.addCause(r.mtuMismatch(n, l))
			}
			continue // down now, or up between losses a probe would see
		}
		if !a.OperUp || !b.OperUp {
			ev := []Evidence{r.ev(n.Devices[l.A.Device].Calls[pathInterfaces], l.A.Device, netproto.ToolYangGet, "%s admin %s, oper %s", a.Name, upDown(a.AdminUp), a.OperStatus),
				r.ev(n.Devices[l.B.Device].Calls[pathInterfaces], l.B.Device, netproto.ToolYangGet, "%s admin %s, oper %s", b.Name, upDown(b.AdminUp), b.OperStatus)}
			if a.AdminUp && b.AdminUp && !a.OperUp && !b.OperUp {
				if c, ok := r.watchLink(l, ev...); ok {
					r.rep.addCause(c)
					continue
				}
			}
			if c, ok := endsCause(l, a, b, ev...); ok {
				r.rep.addCause(c)
			}
			continue // down, or both ends shut down on purpose
		}
		s.up = append(s.up, l)
		if a.MTU != b.MTU {
			r.rep.addCause(r.mtuMismatch(n, l))
		}
	}
}

// linkLoss probes the links up at both ends for loss, corruption, delay
// and throttling (lossOnLinks).
func (r *run) linkLoss(s *sweepState) {
	for _, c := range r.lossOnLinks(s.n, s.up) {
		r.rep.addCause(c)
	}
}

// unreadDevices names, when no rule found a cause, the devices that
// could not be read.
func (r *run) unreadDevices(s *sweepState) {
	n := s.n
	if len(r.rep.RootCauses) == 0 && len(n.Unread) > 0 {
		for _, d := range sortedKeys(n.Unread) {
			c := newCause("device_unreachable", []string{d}, "", fmt.Sprintf("%s could not be read: %s", d, n.Unread[d]))
			r.rep.addCause(c)
		}
	}
}

// aclSweep reports every ACL bound on an interface that drops control
// traffic the network runs (BGP, OSPF) or ICMP toward a subnet in use.
func (r *run) aclSweep(n *network) {
	var devs []*deviceView
	for _, name := range n.Order {
		devs = append(devs, n.Devices[name])
	}
	for _, name := range sortedKeys(n.HostViews) {
		if h := n.HostViews[name]; h.Err == "" && len(h.Bindings) > 0 {
			devs = append(devs, h.asDevice())
		}
	}
	for _, d := range devs {
		name := d.Name
		for _, b := range d.Bindings {
			it := d.Iface(b.Iface)
			if it == nil {
				continue
			}
			var local netip.Addr
			for _, p := range it.Addrs {
				if p.Addr().Is4() {
					local = p.Addr()
					break
				}
			}
			classes := []struct {
				t    traffic
				what string
				runs bool
			}{
				{traffic{Protocol: "TCP", Port: 179}, "BGP (TCP port 179)", d.BGP != nil || !anyBGP(n)},
				{traffic{Protocol: "OSPF"}, "OSPF (IP protocol 89)", d.OSPF != nil || !anyOSPF(n)},
				{traffic{Protocol: "ICMP", Dst: local}, "ICMP", true},
				{traffic{Protocol: "UDP", Port: 53}, "DNS (port 53)", true},
				{traffic{Protocol: "TCP", Port: 80}, "HTTP (TCP port 80)", true},
				{traffic{Protocol: "ARP"}, "ARP", true},
			}
			for _, c := range classes {
				if !c.runs {
					continue
				}
				set := d.ACLs[b.Set]
				if set == nil {
					continue
				}
				e, drop := set.Drops(c.t)
				if !drop || e.Seq == 0 && c.t.Protocol != "ICMP" {
					// The implicit deny of a set is reported once, for ICMP.
					continue
				}
				// An entry that denies everything is reported as ICMP.
				if (e.Protocol == "" || e.Protocol == "IP") && c.t.Protocol != "ICMP" {
					continue
				}
				f := aclFinding{Device: name, Binding: b, Entry: e}.WithAlso(set, c.t)
				r.rep.addCause(aclCause(f, c.t, c.what, r.ev(d.Calls[PathACL], name, netproto.ToolYangGet,
					"ACL %s bound %s on %s: %s", b.Set, b.Dir(), b.Iface, e)))
			}
		}
	}
}

func anyBGP(n *network) bool {
	for _, d := range n.Devices {
		if d.BGP != nil {
			return true
		}
	}
	return false
}

func anyOSPF(n *network) bool {
	for _, d := range n.Devices {
		if d.OSPF != nil {
			return true
		}
	}
	return false
}

// hostSweep pings every known host from its router, and from the router
// farthest from it; a host its router reaches but others do not has a
// routing problem, found by walking the path.
func (r *run) hostSweep(n *network, done map[string]bool) {
	type probe struct {
		h          hostAttach
		local, far pingResult
		farDev     string
	}
	probes := make([]probe, len(n.Hosts))
	var wg sync.WaitGroup
	for i, h := range n.Hosts {
		probes[i].h = h
		if done[h.Host.Name] {
			continue
		}
		it := n.Devices[h.Router.Device].Iface(h.Router.Iface)
		vrf := ""
		if it != nil {
			vrf = it.VRF
		}
		far, farSrc := "", ""
		if vrf == "" {
			far, farSrc = n.farProber(h.Router.Device)
		}
		probes[i].farDev = far
		wg.Add(1)
		go func() {
			defer wg.Done()
			probes[i].local = r.ping(h.Router.Device, h.Addr, pingOpts{Count: 3, VRF: vrf})
			if far != "" {
				probes[i].far = r.ping(far, h.Addr, pingOpts{Count: 3, Source: farSrc})
			}
		}()
	}
	wg.Wait()
	// Router-host links are compared with each other: one whose round
	// trip stands far above its peers' delays (or queues) the host's
	// traffic.
	var rtts []float64
	for _, p := range probes {
		if p.local.OK() && p.local.RTT > 0 {
			rtts = append(rtts, p.local.RTT)
		}
	}
	limit := peerLimit(rtts)
	for _, p := range probes {
		if done[p.h.Host.Name] || p.local.Err != nil || p.local.RTT == 0 || len(rtts) < 3 || p.local.RTT <= limit {
			continue
		}
		if p.local.Loss > 0 {
			if c, ok := r.hostLinkErrors(n, p.h, p.local); ok {
				// Some lost, as corrupted frames (input errors) are.
				r.rep.addCause(c)
				done[p.h.Host.Name] = true
				continue
			}
		}
		l := link{A: p.h.Router, B: end{Device: p.h.Host.Name, Addr: p.h.Addr}}
		pev := r.ev(p.local.Call, p.h.Router.Device, netproto.ToolPing, "%s", p.local.Text)
		sev := []Evidence{pev}
		vrf := ""
		if it := n.Devices[p.h.Router.Device].Iface(p.h.Router.Iface); it != nil {
			vrf = it.VRF
		}
		if grew, ev, ok := r.discardsGrew(n, p.h.Router); ok && grew > 0 || r.sizeDelays(p.h.Router.Device, p.h.Addr, pingOpts{VRF: vrf}, p.local, &sev) || p.local.Loss > 0 {
			if ok && grew > 0 {
				sev = append(sev, ev)
			}
			// Late replies while the router's queue toward the host
			// drops other traffic, or a delay that grows with the
			// packet's size, or replies late while others are lost (a
			// queue that overflows): a rate limit, not a long path.
			c := throttleCause(l, p.local.Loss, p.local.RTT, sev...)
			c.Where = p.h.Router.Device + ":" + p.h.Router.Iface + " — " + p.h.Host.Name
			r.rep.addCause(c)
			done[p.h.Host.Name] = true
			continue
		}
		c := latencyCause(l, p.local.RTT, limit, pev)
		c.Where = p.h.Router.Device + ":" + p.h.Router.Iface + " — " + p.h.Host.Name
		c.Summary = fmt.Sprintf("The link from %s:%s to host %s delays packets: %.0f ms round trip, where its peers' router-host links take at most %.1f ms.", p.h.Router.Device, p.h.Router.Iface, p.h.Host.Name, p.local.RTT, limit)
		c.Fix = fmt.Sprintf("Find what delays the link from %s:%s to host %s (a shaper, the host's port) and check its round trip afterwards.", p.h.Router.Device, p.h.Router.Iface, p.h.Host.Name)
		r.rep.addCause(c)
		done[p.h.Host.Name] = true
	}
	for _, p := range probes {
		if done[p.h.Host.Name] {
			continue
		}
		ep := r.hostEndpoint(n, p.h)
		if it := n.Devices[p.h.Router.Device].Iface(p.h.Router.Iface); it != nil && !it.OperUp {
			if hi := hostPort(n.HostViews[p.h.Host.Name], p.h.Addr); it.AdminUp && hi != nil && hi.AdminUp && hi.OperUp {
				// The host's end is up and attached: the router's port
				// alone has no carrier, it is detached from the LAN.
				hv := n.HostViews[p.h.Host.Name]
				he := end{Device: p.h.Host.Name, Iface: hi.Name, Addr: p.h.Addr}
				r.rep.addCause(detachCause(link{A: p.h.Router, B: he}, p.h.Router, he,
					r.ev(n.Devices[p.h.Router.Device].Calls[pathInterfaces], p.h.Router.Device, netproto.ToolYangGet, "%s admin UP, oper %s", it.Name, it.OperStatus),
					r.ev(hv.Calls[pathInterfaces], hv.Name, netproto.ToolYangGet, "%s admin UP, oper %s", hi.Name, hi.OperStatus),
					r.ev(p.local.Call, p.h.Router.Device, netproto.ToolPing, "%s", p.local.Text)))
				continue
			}
			if hi := hostPort(n.HostViews[p.h.Host.Name], p.h.Addr); it.AdminUp && (hi == nil || hi.AdminUp && !hi.OperUp) {
				// Down at both ends though up administratively: a flap
				// comes back by itself.
				he := end{Device: p.h.Host.Name, Addr: p.h.Addr}
				if hi != nil {
					he.Iface = hi.Name
				}
				if c, ok := r.watchLink(link{A: p.h.Router, B: he},
					r.ev(n.Devices[p.h.Router.Device].Calls[pathInterfaces], p.h.Router.Device, netproto.ToolYangGet, "%s admin UP, oper %s", it.Name, it.OperStatus)); ok {
					r.rep.addCause(c)
					continue
				}
			}
			// The host's LAN port is down: the link to the host.
			state := "administratively up but operationally " + it.OperStatus
			if !it.AdminUp {
				state = "administratively down"
			}
			c := newCause("link_down", []string{p.h.Router.Device, p.h.Host.Name}, p.h.Router.Device+":"+p.h.Router.Iface+" — "+p.h.Host.Name,
				fmt.Sprintf("The link from %s:%s to host %s is down: the port is %s.", p.h.Router.Device, p.h.Router.Iface, p.h.Host.Name, state),
				r.ev(n.Devices[p.h.Router.Device].Calls[pathInterfaces], p.h.Router.Device, netproto.ToolYangGet, "%s admin %s, oper %s", it.Name, upDown(it.AdminUp), it.OperStatus),
				r.ev(p.local.Call, p.h.Router.Device, netproto.ToolPing, "%s", p.local.Text))
			c.Fix = fmt.Sprintf("Restore the link between %s:%s and %s (cable, the host's port, the host itself).", p.h.Router.Device, p.h.Router.Iface, p.h.Host.Name)
			r.rep.addCause(c)
			continue
		}
		switch {
		case lostDevice(p.local.Err) || lostDevice(p.far.Err):
			continue // a prober was lost (Report.Unreachable), not the host
		case notRun(p.local.Err):
			// The router runs no probes (reached over gNMI): a host that
			// serves its own view still shows a port of its own down.
			if ev, _, mac := r.routerARP(n, ep); mac == "" && !r.hasCauseOn(p.h.Host.Name) {
				if c, ok := r.hostPortDown(n, ep, ev); ok {
					r.rep.addCause(c)
				}
			}
		case p.local.Unknown || p.far.Unknown:
			continue // a probe refused even after retries shows nothing
		case !p.local.OK() && p.local.Loss == 100:
			if r.coveredByCause(p.h.Router.Device, p.h.Router.Iface) || r.hasCauseOn(p.h.Host.Name) {
				// A cause found already on the port or the host itself
				// (its filter, its address) explains its silence.
				continue
			}
			if c, ok := r.hostLinkErrors(n, p.h, p.local); ok {
				r.rep.addCause(c) // corrupted on the way, not unanswered
				continue
			}
			c := r.hostCause(n, ep)
			c.Evidence = append([]Evidence{r.ev(p.local.Call, p.h.Router.Device, netproto.ToolPing, "%s", p.local.Text)}, c.Evidence...)
			r.rep.addCause(c)
		case p.farDev != "" && !p.far.OK() && p.far.Loss == 100:
			if len(r.rep.RootCauses) > 0 {
				continue // a cause found already (a session, a link) explains a missing path
			}
			hops, stop := n.walk(p.farDev, p.h.Addr)
			cs, _ := r.checkHops(n, hops, traffic{Protocol: "ICMP", Dst: p.h.Addr}, fmt.Sprintf("ICMP to %s", p.h.Addr))
			if len(cs) == 0 && stop != "" {
				cs = append(cs, r.routeCause(n, hops, p.farDev, ep, stop))
			}
			if len(cs) == 0 && r.gatewayRead(n, p.h) {
				// The host's own routes show the gateway its LAN offers
				// (host-config compared them): its return path is not
				// the host's, whatever lies beyond its router.
				continue
			}
			if len(cs) == 0 {
				c := newCause("host_incorrect_gateway", []string{p.h.Host.Name}, "",
					fmt.Sprintf("Host %s answers its own router %s but not %s, whose path to it is sound: its return path (gateway) is wrong.", p.h.Host.Name, p.h.Router.Device, p.farDev))
				c.Fix = fmt.Sprintf("Set %s's default gateway to %s.", p.h.Host.Name, p.h.Router.Addr)
				cs = append(cs, c)
			}
			for _, c := range cs {
				c.Evidence = append([]Evidence{r.ev(p.local.Call, p.h.Router.Device, netproto.ToolPing, "%s", p.local.Text),
					r.ev(p.far.Call, p.farDev, netproto.ToolPing, "%s", p.far.Text)}, c.Evidence...)
				if !r.causeKnown(c) {
					r.rep.addCause(c)
				}
			}
		case p.local.Err == nil && p.local.Loss > 0 && p.local.Loss < 100:
			// Some probes lost on one link: corruption shows as input
			// errors on its ends.
			if c, ok := r.hostLinkErrors(n, p.h, p.local); ok && !r.coveredByCause(p.h.Router.Device, p.h.Router.Iface) {
				r.rep.addCause(c)
			}
		}
	}
}

// sizeDelays pings dst from dev again with large packets and tells
// whether their round trip grows with the size as a slow link's
// serialisation makes it, over the small probes' (small): both the
// request and the reply carry the extra bytes, so a growth g implies a
// bottleneck of 2 × extra × 8 / g kbit/s, and a link is rate-limited when
// that is below rateLimitKbps and the growth stands above the probes'
// own jitter. A long path delays every size alike, and a full queue's
// wait adds to both sizes and cancels out. The ping is added to ev.
func (r *run) sizeDelays(dev string, dst netip.Addr, o pingOpts, small pingResult, ev *[]Evidence) bool {
	o.Count, o.Size = 5, largeProbe
	p := r.ping(dev, dst, o)
	if p.Err != nil || p.RTT == 0 {
		return false
	}
	kbps, slow := serialised(small, p)
	if slow {
		*ev = append(*ev, r.ev(p.Call, dev, netproto.ToolPing, "%s: %.0f ms more than %d-byte probes, a bottleneck of about %.0f kbit/s", p.Text, p.RTT-small.RTT, smallProbe, kbps))
	} else {
		*ev = append(*ev, r.ev(p.Call, dev, netproto.ToolPing, "%s", p.Text))
	}
	return slow
}

// serialised tells whether large probes' round trip grows over small
// ones' as a link slower than rateLimitKbps makes it, by more than the
// probes' own jitter (three times their mean deviations), and returns
// the bottleneck rate the growth implies.
func serialised(small, large pingResult) (kbps float64, slow bool) {
	grow := large.RTT - small.RTT
	if small.RTT == 0 || large.RTT == 0 || grow <= 0 {
		return 0, false
	}
	kbps = bottleneckKbps(grow)
	return kbps, grow > 3*(small.Mdev+large.Mdev) && kbps < rateLimitKbps
}

// largeProbe is the payload of the pings that measure how a link's delay
// grows with the packet's size; smallProbe is a ping's default payload.
const (
	largeProbe = 1400
	smallProbe = 56
)

// rateLimitKbps is the rate below which a link is rate-limited: slower
// than any LAN port or core link (at this rate the 1,344 extra bytes of
// a large probe add 11 ms to its round trip, more on a slower link).
const rateLimitKbps = 2000

// bottleneckKbps is the rate that makes the large probes' round trip
// grow by growMS over the small ones': the extra bytes cross it twice.
func bottleneckKbps(growMS float64) float64 {
	return 2 * (largeProbe - smallProbe) * 8 / growMS // bit/ms = kbit/s
}

// discardsGrew reads the interface of e again and returns how much its
// output discards grew since the first read, with the evidence; ok is
// false when it could not be read again.
func (r *run) discardsGrew(n *network, e end) (int64, Evidence, bool) {
	first := n.Devices[e.Device].Iface(e.Iface)
	data, call, err := r.yangGet(e.Device, pathInterfaces)
	if err != nil || first == nil {
		return 0, Evidence{}, false
	}
	v := &deviceView{Name: e.Device, Ifaces: parseInterfaces(data)}
	now := v.Iface(e.Iface)
	if now == nil {
		return 0, Evidence{}, false
	}
	grew := max(now.OutDiscards-first.OutDiscards, 0)
	r.summarize(call, "counters after the probes: %s out-discards +%d", e.Iface, grew)
	return grew, r.ev(call, e.Device, netproto.ToolYangGet, "%s out-discards %d (+%d since the first read), in-errors %d", e.Iface, now.OutDiscards, grew, now.InErrors), true
}

// farProber returns the router that probes a host of router own from
// afar, and the address it probes from: the last other router (the
// farthest in a line) that has a LAN of hosts up, from its address on
// that LAN, so the probe travels between LANs as the hosts' traffic does
// (a router's link addresses need not be routed beyond the network, an
// upstream provider's hosts have no way back to them). With no such
// router: the last other router, from its default source.
func (n *network) farProber(own string) (dev, src string) {
	for _, name := range n.Order {
		if name != own {
			dev = name
		}
	}
	for _, h := range n.Hosts {
		if h.Router.Device == own || !h.Router.Addr.IsValid() {
			continue
		}
		it := n.Devices[h.Router.Device].Iface(h.Router.Iface)
		if it == nil || !it.OperUp || it.VRF != "" {
			continue
		}
		if i, j := slices.Index(n.Order, h.Router.Device), slices.Index(n.Order, dev); src == "" || i > j {
			dev, src = h.Router.Device, h.Router.Addr.String()
		}
	}
	return dev, src
}

// gatewayRead tells whether a host's own view was read and shows the
// default gateway its LAN offers (its router's address there).
func (r *run) gatewayRead(n *network, h hostAttach) bool {
	hv := n.HostViews[h.Host.Name]
	if hv == nil || hv.Err != "" {
		return false
	}
	gw, ok := hv.Gateway()
	return ok && gw == h.Router.Addr
}

// coveredByCause tells whether a cause found already concerns an interface.
func (r *run) coveredByCause(dev, iface string) bool {
	for _, c := range r.rep.RootCauses {
		for _, d := range c.Devices {
			if d == dev && (c.Where == "" || containsWord(c.Where, dev+":"+iface)) {
				return true
			}
		}
	}
	return false
}

// causeKnown tells whether a cause of the same name on the same devices is there.
func (r *run) causeKnown(c Cause) bool {
	for _, o := range r.rep.RootCauses {
		if o.Name == c.Name && o.Where == c.Where {
			return true
		}
	}
	return false
}

func containsWord(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		if s[i:i+len(w)] == w && (i+len(w) == len(s) || s[i+len(w)] == ' ') {
			return true
		}
	}
	return false
}

// peerLimit is the round trip above which a link stands out from its
// peers (rtts, one per link of the same kind): ten times their median,
// and never below 20 ms, so that a lab's jitter is not a fault.
func peerLimit(rtts []float64) float64 {
	if len(rtts) == 0 {
		return 20
	}
	s := slices.Clone(rtts)
	slices.Sort(s)
	return max(20, 10*s[len(s)/2])
}

// standsOut is the round trip above which a link stands out from its
// peers (rtts, every link's): three times their median, and never below
// 20 ms.
func standsOut(rtts []float64) float64 {
	s := slices.Clone(rtts)
	slices.Sort(s)
	return max(20, 3*s[len(s)/2])
}

// latencyLimit is the round trip across one link above which it is slow.
func (r *run) latencyLimit() float64 {
	if r.c.LinkLatencyMS > 0 {
		return r.c.LinkLatencyMS
	}
	return 100
}
