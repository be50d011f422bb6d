//go:build linux

package linux

import (
	"context"
	"fmt"
	"math"
	"net"
	"sync"
	"time"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
)

// MaxLogEntries bounds a driver's log: beyond it the oldest entries are
// dropped. The log grows on demand up to it.
const MaxLogEntries = 10000

// Slot is the one hardware slot a Linux host or namespace has, for
// Crashinfo.
const Slot = "0"

// telemetry is a driver's log, its subscribers and the state of its CPU
// readings. It runs from Open until Close: a netlink link subscription in
// the namespace (telemetry_link.go) and a tail of FRR's log files
// (telemetry_frr.go), both feeding the log.
type telemetry struct {
	netns string

	mu   sync.Mutex // log and subscribers
	log  []device.LogEntry
	head int // index of the oldest entry once the log is full
	subs map[int]func(device.Event)
	next int

	pubMu sync.Mutex // one publication at a time, so subscribers see the log's order

	cpuMu  sync.Mutex
	prev   *cpuSample
	avg1   float64
	avg5   float64
	hasAvg bool

	done chan struct{}
	wg   sync.WaitGroup
	once sync.Once
}

// startTelemetry starts the driver's log sources.
func startTelemetry(nsName string) *telemetry {
	t := &telemetry{netns: nsName, subs: map[int]func(device.Event){}, done: make(chan struct{})}
	t.wg.Add(2)
	go func() { defer t.wg.Done(); t.watchLinks() }()
	go func() { defer t.wg.Done(); t.tailFRR() }()
	return t
}

// stop ends the log sources and waits for them.
func (t *telemetry) stop() {
	t.once.Do(func() { close(t.done) })
	t.wg.Wait()
}

// publish adds e to the log and delivers it (and extra events, such as an
// interface's) to every subscriber.
func (t *telemetry) publish(e device.LogEntry, extra ...device.Event) {
	t.pubMu.Lock()
	defer t.pubMu.Unlock()
	t.mu.Lock()
	if len(t.log) < MaxLogEntries {
		t.log = append(t.log, e)
	} else {
		t.log[t.head] = e
		t.head = (t.head + 1) % len(t.log)
	}
	fns := make([]func(device.Event), 0, len(t.subs))
	for id := 0; id < t.next; id++ { // in subscription order
		if fn, ok := t.subs[id]; ok {
			fns = append(fns, fn)
		}
	}
	t.mu.Unlock()
	evs := append([]device.Event{{Kind: device.EventSyslog, Time: e.Time, Log: &e}}, extra...)
	for _, ev := range evs {
		for _, fn := range fns {
			fn(ev)
		}
	}
}

// last returns the last n entries, oldest first.
func (t *telemetry) last(n int) []device.LogEntry {
	t.mu.Lock()
	defer t.mu.Unlock()
	n = min(max(n, 0), len(t.log))
	out := make([]device.LogEntry, 0, n)
	for i := len(t.log) - n; i < len(t.log); i++ {
		out = append(out, t.log[(t.head+i)%len(t.log)])
	}
	return out
}

// Syslog returns the last n log entries, oldest first: the interfaces'
// state changes seen by netlink since the driver opened, in IOS words
// ("%LINK-3-UPDOWN: Interface NAME, changed state to down", NAME the
// interface's alias when it has one), and the lines of FRR's log files.
func (d *Driver) Syslog(ctx context.Context, n int) ([]device.LogEntry, error) {
	return d.tel.last(n), nil
}

// Subscribe calls fn for every new log entry (EventSyslog) and interface
// state change (EventInterface) until the returned function is called.
func (d *Driver) Subscribe(fn func(device.Event)) func() {
	t := d.tel
	t.mu.Lock()
	id := t.next
	t.next++
	t.subs[id] = fn
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		delete(t.subs, id)
		t.mu.Unlock()
	}
}

// Crashinfo returns the crash records of slot "0", the only one: none
// (FRR's crash logs are in its log files, served by Syslog).
func (d *Driver) Crashinfo(ctx context.Context, slot string) ([]device.CrashRecord, error) {
	if slot == "" {
		return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "crashinfo needs a slot (slots: [%s])", Slot)
	}
	if slot != Slot {
		return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "no hardware slot %q (slots: [%s])", slot, Slot)
	}
	return []device.CrashRecord{}, nil
}

// cpuSample is one reading of the host's CPU ticks and, in a namespace,
// of its processes'.
type cpuSample struct {
	at          time.Time
	total, idle uint64
	procs       map[int]uint64 // pid -> utime+stime
}

func (t *telemetry) sample() (*cpuSample, error) {
	total, idle, err := hostTicks()
	if err != nil {
		return nil, err
	}
	s := &cpuSample{at: time.Now(), total: total, idle: idle}
	if t.netns != "" {
		pids, err := NetnsPIDs(t.netns)
		if err != nil {
			return nil, err
		}
		s.procs = make(map[int]uint64, len(pids))
		for _, p := range pids {
			if v, ok := procTicks(p); ok {
				s.procs[p] = v
			}
		}
	}
	return s, nil
}

// minCPUInterval is the shortest interval a utilisation is measured over:
// a call within it of the previous one waits for the rest.
const minCPUInterval = 200 * time.Millisecond

// CPU returns the utilisation since the previous call (at least over
// 200 ms): of the host's CPUs for the host, and for a namespace the share
// of the host's CPU time its processes (those whose network namespace it
// is) used. OneMinute and FiveMinute are exponential averages of the
// readings, seeded by the first.
func (d *Driver) CPU(ctx context.Context) (device.CPUStats, error) {
	t := d.tel
	t.cpuMu.Lock()
	defer t.cpuMu.Unlock()
	prev := t.prev
	if prev == nil || time.Since(prev.at) < minCPUInterval {
		if prev == nil {
			var err error
			if prev, err = t.sample(); err != nil {
				return device.CPUStats{}, err
			}
		}
		select {
		case <-ctx.Done():
			return device.CPUStats{}, ctx.Err()
		case <-time.After(minCPUInterval - time.Since(prev.at)):
		}
	}
	cur, err := t.sample()
	if err != nil {
		return device.CPUStats{}, err
	}
	t.prev = cur
	dt := float64(cur.total - prev.total)
	pct := 0.0
	if dt > 0 {
		if t.netns == "" {
			pct = 100 * (dt - float64(cur.idle-prev.idle)) / dt
		} else {
			var used uint64
			for p, v := range cur.procs {
				if pv, ok := prev.procs[p]; ok && v >= pv {
					used += v - pv
				}
			}
			pct = 100 * float64(used) / dt
		}
	}
	pct = round1(math.Min(100, math.Max(0, pct)))
	el := cur.at.Sub(prev.at).Seconds()
	if !t.hasAvg {
		t.avg1, t.avg5, t.hasAvg = pct, pct, true
	} else {
		a1, a5 := math.Exp(-el/60), math.Exp(-el/300)
		t.avg1 = a1*t.avg1 + (1-a1)*pct
		t.avg5 = a5*t.avg5 + (1-a5)*pct
	}
	return device.CPUStats{Percent: pct, OneMinute: round1(t.avg1), FiveMinute: round1(t.avg5), Time: cur.at}, nil
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// Memory returns the host's memory (Total MemTotal, Free MemAvailable,
// Used the difference) and, for a namespace, Used is its processes'
// proportional share (Pss) instead: Total and Free stay the host's, which
// the namespace shares.
func (d *Driver) Memory(ctx context.Context) (device.MemoryStats, error) {
	total, avail, err := hostMemory()
	if err != nil {
		return device.MemoryStats{}, err
	}
	m := device.MemoryStats{Total: total, Free: avail, Used: total - min(avail, total), Time: time.Now()}
	if d.netns != "" {
		pids, err := NetnsPIDs(d.netns)
		if err != nil {
			return device.MemoryStats{}, err
		}
		var kb int64
		for _, p := range pids {
			kb += procPSS(p)
		}
		m.Used = uint64(kb) << 10
	}
	return m, nil
}

// linkState is what the log last said of an interface.
type linkState struct{ admin, oper bool }

// watchLinks subscribes to the namespace's link updates and logs each
// change of an interface's state, until the telemetry stops; a
// subscription that fails is made again a second later.
func (t *telemetry) watchLinks() {
	links := map[int]linkState{}
	for {
		ch := make(chan netlink.LinkUpdate, 64)
		opts := netlink.LinkSubscribeOptions{ListExisting: true, ErrorCallback: func(error) {}}
		var err error
		var h netns.NsHandle
		if t.netns != "" {
			if h, err = netns.GetFromName(t.netns); err == nil {
				opts.Namespace = &h
			}
		}
		if err == nil {
			// netlink closes the subscription's socket, and ends the
			// goroutine that waits to, when its done channel closes: one
			// of its own, closed when the telemetry stops or once the
			// subscription has ended, so a subscription made again after
			// an error (ENOBUFS in a storm of changes) leaves nothing
			// behind until Close.
			sub := make(chan struct{})
			end := sync.OnceFunc(func() { close(sub) })
			go func() {
				select {
				case <-t.done:
					end()
				case <-sub:
				}
			}()
			err = netlink.LinkSubscribeWithOptions(ch, sub, opts)
			if t.netns != "" {
				h.Close()
			}
			if err == nil {
				for u := range ch {
					t.linkUpdate(links, u)
				}
			}
			end()
		}
		select {
		case <-t.done:
			return
		case <-time.After(time.Second):
		}
	}
}

// linkUpdate logs an interface going administratively down, or its
// operational state changing, as IOS does. An interface seen for the
// first time is not logged.
func (t *telemetry) linkUpdate(links map[int]linkState, u netlink.LinkUpdate) {
	a := u.Link.Attrs()
	if u.Header.Type == unix.RTM_DELLINK {
		delete(links, a.Index)
		return
	}
	admin := a.Flags&net.FlagUp != 0
	cur := linkState{admin: admin,
		oper: a.OperState == netlink.OperUp || (a.OperState == netlink.OperUnknown && admin && a.RawFlags&unix.IFF_LOWER_UP != 0)}
	prev, seen := links[a.Index]
	links[a.Index] = cur
	if !seen || prev == cur {
		return
	}
	name := a.Name
	if a.Alias != "" {
		name = a.Alias
	}
	var sev int
	var mn, msg string
	switch {
	case prev.admin && !admin:
		sev, mn, msg = 5, "CHANGED", fmt.Sprintf("Interface %s, changed state to administratively down", name)
	case prev.oper != cur.oper:
		sev, mn, msg = 3, "UPDOWN", fmt.Sprintf("Interface %s, changed state to %s", name, map[bool]string{true: "up", false: "down"}[cur.oper])
	default:
		return // administratively up, the link still down: nothing yet
	}
	now := time.Now()
	e := device.LogEntry{Time: now, Severity: sev, Facility: "LINK", Mnemonic: fmt.Sprintf("LINK-%d-%s", sev, mn), Message: msg}
	e.Text = fmt.Sprintf("%s: %%%s: %s", now.Format("Jan _2 15:04:05.000"), e.Mnemonic, msg)
	t.publish(e, device.Event{Kind: device.EventInterface, Name: name, Time: now})
}
