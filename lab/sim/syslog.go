package sim

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/topology"
)

// syslogCapacity is the size of a device's log buffer (MCP-NET: max 10000).
const syslogCapacity = 10000

// syslogRing is a bounded log buffer: it grows as entries arrive, up to
// capacity, then overwrites the oldest. A quiet device holds a few entries,
// not capacity empty slots.
type syslogRing struct {
	mu      sync.Mutex
	cap     int
	buf     []device.LogEntry // len(buf) <= cap; a ring once len(buf) == cap
	start   int
	n       int
	seq     int // message sequence number (VRP prints it)
	dropped int
}

func newSyslogRing(capacity int) *syslogRing {
	return &syslogRing{cap: max(capacity, 1)}
}

func (r *syslogRing) add(e device.LogEntry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.buf) < r.cap {
		// Not full yet: start is 0 and the entries are buf[:n].
		if len(r.buf) == cap(r.buf) {
			r.buf = slices.Grow(r.buf, min(max(2*len(r.buf), 16), r.cap)-len(r.buf))
		}
		r.buf = append(r.buf, e)
		r.n++
		return
	}
	r.buf[r.start] = e
	r.start = (r.start + 1) % len(r.buf)
	r.dropped++
}

// last returns the last n entries (all when n <= 0), oldest first.
func (r *syslogRing) last(n int) []device.LogEntry {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n <= 0 || n > r.n {
		n = r.n
	}
	out := make([]device.LogEntry, 0, n)
	for i := r.n - n; i < r.n; i++ {
		out = append(out, r.buf[(r.start+i)%len(r.buf)])
	}
	return out
}

func (r *syslogRing) stats() (count, overwritten int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n, r.dropped
}

// nextSeq is the next message sequence number.
func (r *syslogRing) nextSeq() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	return r.seq
}

// logMessage records a message in the dialect's format and publishes it.
func (d *Driver) logMessage(t time.Time, m dialect.Message) {
	e := d.cli.Syslog().Format(m, t, d.config().hostname, d.log.nextSeq)
	d.log.add(e)
	d.ev.publish(device.Event{Kind: device.EventSyslog, Time: t, Log: &e})
}

// interfaceChanged logs an interface state change as the dialect does and
// publishes an EventInterface.
func (d *Driver) interfaceChanged(t time.Time, ifn string, old, cur ifSnap, seen bool) {
	d.mu.Lock()
	d.ifChange[ifn] = t
	d.mu.Unlock()
	w := d.cli.Syslog()
	adminChanged := !seen || old.admin != cur.admin
	operChanged := !seen || old.oper != cur.oper
	if adminChanged && !cur.admin {
		d.logMessage(t, w.AdminDown(ifn))
	} else if operChanged {
		d.logMessage(t, w.LinkState(ifn, cur.oper))
	}
	if operChanged {
		d.logMessage(t, w.LineProtocol(ifn, cur.oper))
	}
	d.ev.publish(device.Event{Kind: device.EventInterface, Name: ifn, Time: t})
}

// faultLogged logs what the device sees of an injected or cleared fault.
func (d *Driver) faultLogged(t time.Time, f topology.Fault, ifn string, injected bool) {
	switch f.Kind {
	case topology.FaultLoss:
		d.logMessage(t, d.cli.Syslog().LinkErrors(ifn, f.Percent, injected))
	case topology.FaultMTU:
		mtu := f.MTU
		if !injected {
			mtu = 0
			for _, it := range d.config().dev.Interfaces {
				if it.Name == ifn {
					mtu = it.MTU
				}
			}
			if mtu == 0 {
				mtu = 1500
			}
		}
		d.logMessage(t, d.cli.Syslog().MTUChanged(ifn, mtu))
	}
}

// storeLogged receives the configuration store's events (commits,
// confirms, rollbacks) and logs them in the dialect's style.
func (d *Driver) storeLogged(e device.LogEntry) {
	name := e.Mnemonic
	if i := strings.LastIndexByte(name, '-'); i >= 0 {
		name = name[i+1:]
	}
	t := e.Time
	if t.IsZero() {
		t = d.lab.opts.Now()
	}
	d.logMessage(t, d.cli.Syslog().ConfigEvent(e.Severity, name, e.Message))
	switch name {
	case "COMMIT", "CANCEL", "ROLLBACK":
		d.ev.publish(device.Event{Kind: device.EventConfig, Time: t})
	}
}

// bootLog writes the messages of a device that has just started.
func (d *Driver) bootLog() {
	t := d.lab.opts.Now()
	c := d.config()
	w := d.cli.Syslog()
	d.logMessage(t, w.Boot(c.dev.SoftwareVersion))
	for _, it := range c.dev.Interfaces {
		st, err := d.lab.net.InterfaceState(d.name, it.Name)
		if err != nil || !st.AdminUp {
			continue
		}
		d.logMessage(t, w.LineProtocol(it.Name, st.OperUp))
	}
	d.bootAdjacencyLog() // OSPF and BGP: adjacency_log.go
}

// Syslog returns the last n log entries, oldest first.
func (d *Driver) Syslog(ctx context.Context, n int) ([]device.LogEntry, error) {
	return d.log.last(n), nil
}

// Subscribe calls fn for every event until the returned function is called.
func (d *Driver) Subscribe(fn func(device.Event)) func() { return d.ev.subscribe(fn) }
