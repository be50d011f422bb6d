package real

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// More of the catalog on the real lab, by real-lab.md's methods (section
// 3): loss as an nftables netdev ingress rule with numgen, a rate limit
// as tc tbf, a host taking another device's address or MAC (ip), and a
// wrong DNS record (unbound restarted with it), delay as an NFQUEUE
// whose consumer in the lab process holds each packet (delay.go: the
// kernel has no netem), and a crashed host (faults_crash.go: its links
// and daemons down, its MCP server silenced through OnDeviceState). Not
// built, for want of a kernel means: link_detach (a veth pair has no
// carrier switch: an end loses its carrier only when the other end is
// shut, which is link_down).

// applyExtra injects (on) or clears the faults of this file; ok is false
// for a name it does not build.
func (l *Lab) applyExtra(ctx context.Context, f topology.Fault, on bool) (ok bool, err error) {
	switch f.Name {
	case "link_high_packet_corruption":
		return true, l.linkLoss(ctx, f, on)
	case "link_bandwidth_throttling":
		return true, l.linkRate(ctx, f, on)
	case "link_high_latency":
		return true, l.linkDelay(f, on)
	case "host_ip_conflict":
		return true, l.hostConflictIP(ctx, f, on)
	case "mac_address_conflict":
		return true, l.hostConflictMAC(ctx, f, on)
	case "dns_record_error":
		return true, l.dnsRecord(ctx, f, on)
	case "host_crash":
		return true, l.hostCrash(ctx, f, on)
	}
	return false, nil
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

// hostConflictIP gives the host the address of another device (the
// "with" device's address in the host's LAN, by default its gateway's),
// with the host's prefix length; clearing restores the plan's.
func (l *Lab) hostConflictIP(ctx context.Context, f topology.Fault, on bool) error {
	d, i, err := l.hostIface(f)
	if err != nil {
		return err
	}
	if !on {
		return l.restoreHost(ctx, d, i)
	}
	v4 := slices.IndexFunc(i.Addrs, func(p netip.Prefix) bool { return p.Addr().Is4() })
	if v4 < 0 {
		return fmt.Errorf("%s: %s:%s has no IPv4 address", f.Name, d.Dev.Name, i.Topo)
	}
	cur := i.Addrs[v4]
	var take netip.Addr
	if with := f.Param("with"); with != "" {
		o, ok := l.plan.Device(with)
		if !ok {
			return fmt.Errorf("%s: no device %q in the lab", f.Name, with)
		}
		for _, oi := range o.Ifaces {
			for _, a := range oi.Addrs {
				if a.Addr().Is4() && (!take.IsValid() || cur.Contains(a.Addr())) {
					take = a.Addr()
				}
			}
		}
	} else if gw, err := netip.ParseAddr(d.Dev.Gateway); err == nil && gw.Is4() {
		take = gw
	}
	if !take.IsValid() {
		return fmt.Errorf("%s: no address to take (give with=DEVICE)", f.Name)
	}
	if _, err := run(ctx, d.NS, "ip", "-4", "addr", "flush", "dev", i.Linux, "scope", "global"); err != nil {
		return err
	}
	_, err = run(ctx, d.NS, "ip", "addr", "add", netip.PrefixFrom(take, cur.Bits()).String(), "dev", i.Linux)
	return err
}

// hostConflictMAC gives the host's interface the MAC of another device on
// its LAN (the "with" device's, by default another host of the LAN, else
// its gateway's router interface); clearing restores the plan's MAC, or
// the one it had.
func (l *Lab) hostConflictMAC(ctx context.Context, f topology.Fault, on bool) error {
	d, i, err := l.hostIface(f)
	if err != nil {
		return err
	}
	// The MAC the interface had (the kernel's, when the topology gives
	// none) is kept in the lab's directory until the fault is cleared.
	saved := filepath.Join(l.dir, "mac-"+d.NS+"-"+i.Linux)
	if !on {
		b, _ := os.ReadFile(saved)
		_ = os.Remove(saved)
		mac := strings.TrimSpace(string(b))
		if i.MAC != nil {
			mac = i.MAC.String()
		}
		if mac == "" {
			return fmt.Errorf("%s: %s's own MAC is not known", f.Name, f.Target)
		}
		if _, err := run(ctx, d.NS, "ip", "link", "set", "dev", i.Linux, "address", mac); err != nil {
			return err
		}
		return l.flushLAN(ctx, i)
	}
	var lan []netip.Prefix
	for _, a := range i.Addrs {
		lan = append(lan, a.Masked())
	}
	onLAN := func(o *planDevice) *planIface {
		for _, oi := range o.Ifaces {
			for _, a := range oi.Addrs {
				if slices.ContainsFunc(lan, func(p netip.Prefix) bool { return p.Contains(a.Addr()) }) {
					return oi
				}
			}
		}
		return nil
	}
	var who *planDevice
	var oi *planIface
	if with := f.Param("with"); with != "" {
		o, ok := l.plan.Device(with)
		if !ok || o == d {
			return fmt.Errorf("%s: no other device %q in the lab", f.Name, with)
		}
		who, oi = o, onLAN(o)
	} else {
		for _, o := range l.plan.Devices {
			if o != d && !o.Router() && onLAN(o) != nil {
				who, oi = o, onLAN(o)
				break
			}
		}
		if who == nil {
			gw, _ := netip.ParseAddr(d.Dev.Gateway)
			for _, o := range l.plan.Devices {
				for _, x := range o.Ifaces {
					if slices.ContainsFunc(x.Addrs, func(p netip.Prefix) bool { return p.Addr() == gw }) {
						who, oi = o, x
					}
				}
			}
		}
	}
	if who == nil || oi == nil {
		return fmt.Errorf("%s: no device on %s's LAN to take a MAC from (give with=DEVICE)", f.Name, f.Target)
	}
	mac, err := ifaceMAC(ctx, who, oi)
	if err != nil {
		return err
	}
	own, err := ifaceMAC(ctx, d, i)
	if err != nil {
		return err
	}
	if err := os.WriteFile(saved, []byte(own+"\n"), 0o600); err != nil {
		return err
	}
	_, err = run(ctx, d.NS, "ip", "link", "set", "dev", i.Linux, "address", mac)
	return err
}

// flushLAN forgets the neighbours learnt on every interface of i's LAN
// (the other devices still map the host's address to the MAC it had).
func (l *Lab) flushLAN(ctx context.Context, i *planIface) error {
	for _, o := range l.plan.Devices {
		for _, oi := range o.Ifaces {
			if !slices.ContainsFunc(oi.Addrs, func(a netip.Prefix) bool {
				return slices.ContainsFunc(i.Addrs, func(b netip.Prefix) bool { return b.Masked() == a.Masked() })
			}) {
				continue
			}
			if _, err := run(ctx, o.NS, "ip", "neigh", "flush", "dev", oi.Linux); err != nil {
				return err
			}
		}
	}
	return nil
}

// ifaceMAC reads an interface's MAC from the kernel.
func ifaceMAC(ctx context.Context, d *planDevice, i *planIface) (string, error) {
	out, err := run(ctx, d.NS, "cat", "/sys/class/net/"+i.Linux+"/address")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// dnsRecord restarts the device's unbound with one record's value wrong
// (the "name" parameter's record, by default the first A record; the
// "value" parameter, by default an address of no device), and with the
// plan's records again.
func (l *Lab) dnsRecord(ctx context.Context, f topology.Fault, on bool) error {
	d, p, err := l.dnsServer(f)
	if err != nil {
		return err
	}
	dd := *d
	if on {
		dns := *d.Dev.DNS
		dns.Zones = slices.Clone(dns.Zones)
		found := false
		for zi := range dns.Zones {
			recs := slices.Clone(dns.Zones[zi].Records)
			for ri, r := range recs {
				if found || !strings.EqualFold(r.Type, "A") || (f.Param("name") != "" && r.Name != f.Param("name")) {
					continue
				}
				v := f.Param("value")
				if v == "" {
					a, err := netip.ParseAddr(r.Value)
					if err != nil {
						return fmt.Errorf("%s: record %s: %v", f.Name, r.Name, err)
					}
					v = unusedAddr(netip.PrefixFrom(a, 24), l.plan).String()
				}
				if a, err := netip.ParseAddr(v); err != nil || !a.Is4() {
					return fmt.Errorf("%s: value %q is not an IPv4 address", f.Name, v)
				}
				recs[ri].Value, found = v, true
			}
			dns.Zones[zi].Records = recs
		}
		if !found {
			return fmt.Errorf("%s: %s has no A record %q", f.Name, f.Target, f.Param("name"))
		}
		dd.Dev.DNS = &dns
	}
	if p != nil && p.alive() {
		if err := p.stop(3 * time.Second); err != nil {
			return err
		}
	}
	// startUnbound returns once unbound serves (its "start of service").
	return l.startUnbound(&dd)
}

// intParam is fault f's integer parameter name, refused with the range
// it must be in (lo..hi) when it is not an integer or out of it.
func intParam(f topology.Fault, name string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(f.Param(name))
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%s: %s %q: want %d..%d", f.Name, name, f.Param(name), lo, hi)
	}
	return n, nil
}
