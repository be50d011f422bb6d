//go:build linux

package real

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/fault"
	"github.com/netmcp/netmcp/lab/topology"
)

// The link faults on the real lab: link state and MTU with ip link, a
// flapping link (faults_flap.go), loss as an nftables netdev ingress rule
// with numgen, a rate limit as tc tbf, delay as an NFQUEUE whose
// consumer in the lab process holds each packet (delay.go: the kernel has
// no netem), and an interface that does not fragment as a lowered MTU
// with an nftables rule that drops what the kernel would fragment.

// registerLinkFaults binds the link faults.
func registerLinkFaults(b *fault.Backend[*Lab]) {
	b.Register("link_down", fault.Impl[*Lab]{Apply: (*Lab).linkDown, Clear: (*Lab).linkUp})
	b.Register("mtu_mismatch", fault.Impl[*Lab]{Apply: (*Lab).setMTU, Clear: (*Lab).restoreMTU})
	b.Register("link_flap", fault.Impl[*Lab]{
		Apply: func(l *Lab, _ context.Context, f topology.Fault) error { return l.startFlap(f) },
		Clear: func(l *Lab, ctx context.Context, f topology.Fault) error { return l.stopFlap(ctx, f) },
	})
	b.Register("link_high_packet_corruption", onOff((*Lab).linkLoss))
	b.Register("link_bandwidth_throttling", onOff((*Lab).linkRate))
	b.Register("link_high_latency", onOff(func(l *Lab, _ context.Context, f topology.Fault, on bool) error { return l.linkDelay(f, on) }))
	b.Register("link_detach", fault.Impl[*Lab]{Apply: (*Lab).detach, Clear: (*Lab).reattach})
	b.Register("link_fragmentation_disabled", fault.Impl[*Lab]{Apply: (*Lab).noFragments, Clear: (*Lab).fragmentAgain})
}

// linkDown sets the target interface down.
func (l *Lab) linkDown(ctx context.Context, f topology.Fault) error {
	d, i, err := l.target(f)
	if err != nil {
		return err
	}
	_, err = run(ctx, d.NS, "ip", "link", "set", i.Linux, "down")
	return err
}

// linkUp sets the target interface up again and waits for the
// adjacencies to form.
func (l *Lab) linkUp(ctx context.Context, f topology.Fault) error {
	d, i, err := l.target(f)
	if err != nil {
		return err
	}
	if _, err := run(ctx, d.NS, "ip", "link", "set", i.Linux, "up"); err != nil {
		return err
	}
	return l.fastAdjacencies(ctx, 15*time.Second)
}

// setMTU sets the target interface's MTU to the fault's and resets the
// router's OSPF process (an MTU change alone leaves an adjacency up).
func (l *Lab) setMTU(ctx context.Context, f topology.Fault) error {
	d, i, err := l.target(f)
	if err != nil {
		return err
	}
	mtu := f.Param("mtu")
	if n, err := strconv.Atoi(mtu); err != nil || n < 68 || n > 65535 {
		return fmt.Errorf("mtu_mismatch: mtu %q: want 68..65535", mtu)
	}
	if _, err := run(ctx, d.NS, "ip", "link", "set", i.Linux, "mtu", mtu); err != nil {
		return err
	}
	return l.resetOSPF(ctx, d, false)
}

// restoreMTU puts back the plan's MTU (1500 by default) and resets OSPF
// with the bring-up timers.
func (l *Lab) restoreMTU(ctx context.Context, f topology.Fault) error {
	d, i, err := l.target(f)
	if err != nil {
		return err
	}
	if err := l.restoreLinkMTU(ctx, d, i); err != nil {
		return err
	}
	return l.resetOSPF(ctx, d, true)
}

// resetOSPF restarts router d's OSPF process (an MTU change alone leaves
// an existing adjacency up); with fast, the adjacencies form again with
// the bring-up timers (fastAdjacencies).
func (l *Lab) resetOSPF(ctx context.Context, d *planDevice, fast bool) error {
	if !d.Router() || d.Dev.OSPF == nil {
		return nil
	}
	if _, err := l.Vtysh(ctx, d.Dev.Name, "clear ip ospf process"); err != nil {
		return err
	}
	if fast {
		return l.fastAdjacencies(ctx, 15*time.Second)
	}
	return nil
}

// noFragments lowers the target interface's MTU to the fault's and stops
// it fragmenting, as the simulator's link_fragmentation_disabled does: an
// IPv4 packet larger than the MTU with DF set gets "fragmentation needed"
// from the kernel as usual, one without DF is dropped (an nftables
// postrouting rule, before the kernel would fragment it, counts it)
// instead of leaving in fragments. OSPF is not reset here, but FRR's
// ospfd resets the interface itself when its MTU changes, so the
// adjacency forms again and sticks in ExStart, as with mtu_mismatch,
// where the simulator keeps it Full (it compares the configured MTU,
// which this fault leaves alone). IPv6 is left as it is: routers never
// fragment it.
func (l *Lab) noFragments(ctx context.Context, f topology.Fault) error {
	d, i, err := l.target(f)
	if err != nil {
		return err
	}
	mtu, err := intParam(f, "mtu", 576, 65535)
	if err != nil {
		return err
	}
	if _, err := run(ctx, d.NS, "ip", "link", "set", i.Linux, "mtu", strconv.Itoa(mtu)); err != nil {
		return err
	}
	if err := l.nft(ctx, d, nftNoFragments(f.Name, i.Linux, mtu)); err != nil {
		_ = l.restoreLinkMTU(ctx, d, i)
		return err
	}
	return nil
}

// nftNoFragments is the ruleset of link_fragmentation_disabled on
// interface ifname at MTU mtu: what would leave it in fragments (IPv4
// without DF, longer than the MTU) is dropped and counted.
func nftNoFragments(name, ifname string, mtu int) string {
	return fmt.Sprintf("table inet %s {\n  chain postrouting {\n    type filter hook postrouting priority 0; policy accept;\n"+
		"    oifname %q meta nfproto ipv4 ip frag-off & 0x4000 == 0 meta length > %d counter drop\n  }\n}\n", nftTable(name, ifname), ifname, mtu)
}

// fragmentAgain undoes noFragments: the rule goes, the plan's MTU comes
// back and the adjacencies form again (restoreMTU).
func (l *Lab) fragmentAgain(ctx context.Context, f topology.Fault) error {
	d, i, err := l.target(f)
	if err != nil {
		return err
	}
	_, nerr := run(ctx, d.NS, "nft", "delete", "table", "inet", nftTable(f.Name, i.Linux))
	return errors.Join(nerr, l.restoreMTU(ctx, f))
}

// restoreLinkMTU sets interface i of d back to the plan's MTU (1500 by
// default).
func (l *Lab) restoreLinkMTU(ctx context.Context, d *planDevice, i *planIface) error {
	mtu := i.MTU
	if mtu == 0 {
		mtu = 1500
	}
	_, err := run(ctx, d.NS, "ip", "link", "set", i.Linux, "mtu", strconv.Itoa(mtu))
	return err
}

// linkEnd is one end of a link: its device and interface.
type linkEnd struct {
	d *planDevice
	i *planIface
}

// linkEnds resolves a link fault's target end and the far end, and
// returns the ends whose incoming packets the "direction" parameter
// concerns: in, the target's; out, the far end's (what the target
// sends); both (the default), both.
func (l *Lab) linkEnds(f topology.Fault) ([]linkEnd, error) {
	d, i, err := l.target(f)
	if err != nil {
		return nil, err
	}
	far, err := l.peerOf(linkEnd{d, i})
	if err != nil {
		return nil, fmt.Errorf("%s: %s is on no link of the lab", f.Name, f.Target)
	}
	switch dir := f.Param("direction"); dir {
	case "in":
		return []linkEnd{{d, i}}, nil
	case "out":
		return []linkEnd{far}, nil
	case "", "both":
		return []linkEnd{{d, i}, far}, nil
	default:
		return nil, fmt.Errorf("%s: direction %q: want both, in or out", f.Name, dir)
	}
}

// linkLoss drops a share of the packets entering each concerned end: an
// nftables netdev ingress chain with "numgen random mod 100 < P drop"
// (the kernel has no netem). The receiver counts no input error: the
// loss shows in pings, not in the interface's counters.
func (l *Lab) linkLoss(ctx context.Context, f topology.Fault, on bool) error {
	ends, err := l.linkEnds(f)
	if err != nil {
		return err
	}
	pct, err := intParam(f, "percent", 1, 100)
	if err != nil {
		return err
	}
	return eachEnd(ends, on, func(e linkEnd, on bool) error {
		table := nftTable(f.Name, e.i.Linux)
		if !on {
			_, err := run(ctx, e.d.NS, "nft", "delete", "table", "netdev", table)
			return err
		}
		rs := fmt.Sprintf("table netdev %s {\n  chain ingress {\n    type filter hook ingress device %q priority 0; policy accept;\n"+
			"    numgen random mod 100 < %d counter drop\n  }\n}\n", table, e.i.Linux, pct)
		return l.nft(ctx, e.d, rs)
	})
}

// linkRate limits what each concerned end's far side sends toward it
// (tc tbf on the sending interface): queueing delay grows and packets
// beyond the rate drop, counted as the sender's output drops. A rate limit
// shows only under load, and the lab carries none of its own, so the
// sender also sends the traffic the simulator assumes a link carries
// (netsim's throttleLoadKbps, 100 kbit/s each way): ping -i 0.05 -s 600
// toward the concerned end, for as long as the fault is on.
func (l *Lab) linkRate(ctx context.Context, f topology.Fault, on bool) error {
	ends, err := l.linkEnds(f)
	if err != nil {
		return err
	}
	rate, err := strconv.Atoi(f.Param("rate"))
	if err != nil || rate < 8 {
		return fmt.Errorf("%s: rate %q: want kbit/s, at least 8", f.Name, f.Param("rate"))
	}
	return eachEnd(ends, on, func(e linkEnd, on bool) error {
		// The sender toward e is e's peer; "in" at the target is what its
		// peer sends, so the qdisc goes on the peer's interface.
		s, err := l.peerOf(e)
		if err != nil {
			return err
		}
		key := s.d.Dev.Name + ":" + s.i.Topo
		if !on {
			l.stopLoad(key)
			_, err := run(ctx, s.d.NS, "tc", "qdisc", "del", "dev", s.i.Linux, "root")
			return err
		}
		if _, err := run(ctx, s.d.NS, "tc", "qdisc", "replace", "dev", s.i.Linux, "root", "tbf",
			"rate", strconv.Itoa(rate)+"kbit", "burst", "1600", "latency", "500ms"); err != nil {
			return err
		}
		return l.startLoad(key, s, e)
	})
}

// linkDelay delays what each concerned end's far side sends toward it by
// delay-ms (plus or minus jitter-ms, the order kept): a delayer on the
// sending interface (delay.go), one NFQUEUE number per delayer. Injecting
// it again replaces the delay.
func (l *Lab) linkDelay(f topology.Fault, on bool) error {
	ends, err := l.linkEnds(f)
	if err != nil {
		return err
	}
	ms, err := intParam(f, "delay-ms", 1, 10000)
	if err != nil {
		return err
	}
	jit, err := intParam(f, "jitter-ms", 0, ms) // at most the delay
	if err != nil {
		return err
	}
	return eachEnd(ends, on, func(e linkEnd, on bool) error {
		s, err := l.peerOf(e)
		if err != nil {
			return err
		}
		key := s.d.Dev.Name + ":" + s.i.Topo
		if !on {
			l.mu.Lock()
			d := l.delays[key]
			delete(l.delays, key)
			l.mu.Unlock()
			if d == nil {
				return fmt.Errorf("%s: %s does not delay what it sends", f.Name, key)
			}
			return d.stop()
		}
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			return fmt.Errorf("%s: the lab is closed", f.Name)
		}
		old := l.delays[key]
		delete(l.delays, key)
		l.queueSeq++
		num := l.queueSeq
		l.mu.Unlock()
		if old != nil {
			_ = old.stop() // replaced
		}
		onFail := func(err error) {
			l.logger.Error("real lab: link_high_latency's consumer failed: what "+key+" sends is dropped until the fault is cleared", "err", err)
		}
		h, ok := l.handles.ns[s.d.NS]
		if !ok || h < 0 {
			return fmt.Errorf("%s: namespace %s is not open", f.Name, s.d.NS)
		}
		d, err := startDelayer(h, s.i.Linux, nftTable(f.Name, s.i.Linux), num,
			time.Duration(ms)*time.Millisecond, time.Duration(jit)*time.Millisecond, onFail)
		if err != nil {
			return err
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.closed { // Close ran meanwhile: its stopDelays missed d
			return errors.Join(fmt.Errorf("%s: the lab is closed", f.Name), d.stop())
		}
		if l.delays == nil {
			l.delays = map[string]*delayer{}
		}
		l.delays[key] = d
		return nil
	})
}

// eachEnd applies a link fault to each of its ends (on) or clears it from
// each. Injecting is all or nothing: when an end fails, it and the ends
// already done are cleared again (a failed injection is not recorded, so nothing
// would ever clear them) and the failure is returned, with the undoing's
// own failures if any. Clearing goes on past a failing end, so that as
// much as can be cleared is, and returns every failure.
func eachEnd(ends []linkEnd, on bool, apply func(e linkEnd, on bool) error) error {
	if !on {
		var errs []error
		for _, e := range ends {
			errs = append(errs, apply(e, false))
		}
		return errors.Join(errs...)
	}
	for n, e := range ends {
		if err := apply(e, true); err != nil {
			// The failing end may be half done (a shaper without its
			// load): cleared too, its own errors expected and dropped.
			_ = apply(e, false)
			var undo []error
			for _, done := range slices.Backward(ends[:n]) {
				if uerr := apply(done, false); uerr != nil {
					undo = append(undo, uerr)
				}
			}
			if len(undo) > 0 {
				return errors.Join(err, fmt.Errorf("undoing the ends already done: %w", errors.Join(undo...)))
			}
			return err
		}
	}
	return nil
}

// stopDelays stops every delayer (Close).
func (l *Lab) stopDelays() {
	l.mu.Lock()
	ds := slices.Collect(maps.Values(l.delays))
	l.delays = nil
	l.mu.Unlock()
	for _, d := range ds {
		_ = d.stop()
	}
}

// loadArgv is the background traffic from one end of a link to the
// other's address: 20 echo requests of 628 bytes a second, about 100
// kbit/s each way (the requests, then the replies).
func loadArgv(dst netip.Addr) []string {
	return []string{"ping", "-q", "-n", "-i", "0.05", "-s", "600", dst.String()}
}

// startLoad starts the background traffic that sender s sends to e
// (keyed by key), unless it runs already.
func (l *Lab) startLoad(key string, s, e linkEnd) error {
	if len(e.i.Addrs) == 0 {
		return fmt.Errorf("link_bandwidth_throttling: %s:%s has no address to send load to", e.d.Dev.Name, e.i.Topo)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return fmt.Errorf("link_bandwidth_throttling: the lab is closed")
	}
	if p := l.loads[key]; p != nil && p.alive() {
		return nil
	}
	logf := filepath.Join(l.dir, "load-"+strings.ReplaceAll(key, "/", "_")+".log")
	p, err := startProc(key+"/load", s.d.NS, loadArgv(e.i.Addrs[0].Addr()), logf)
	if err != nil {
		return err
	}
	if l.loads == nil {
		l.loads = map[string]*proc{}
	}
	l.loads[key] = p
	return nil
}

// stopLoad stops the background traffic keyed by key, if any.
func (l *Lab) stopLoad(key string) {
	l.mu.Lock()
	p := l.loads[key]
	delete(l.loads, key)
	l.mu.Unlock()
	if p != nil {
		_ = p.stop(time.Second)
	}
}

// stopLoads stops every background traffic (Close).
func (l *Lab) stopLoads() {
	l.mu.Lock()
	keys := slices.Collect(maps.Keys(l.loads))
	l.mu.Unlock()
	for _, k := range keys {
		l.stopLoad(k)
	}
}

// peerOf returns the far end of e's link.
func (l *Lab) peerOf(e linkEnd) (linkEnd, error) {
	for _, lk := range l.plan.Links {
		switch e.i {
		case lk.AI:
			return linkEnd{lk.B, lk.BI}, nil
		case lk.BI:
			return linkEnd{lk.A, lk.AI}, nil
		}
	}
	return linkEnd{}, fmt.Errorf("%s:%s is on no link", e.d.Dev.Name, e.i.Topo)
}
