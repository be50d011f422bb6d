package sim

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/netmcp/netmcp/device"
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
	seq     int // VRP sequence number
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

func (r *syslogRing) nextSeq() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	return r.seq
}

// logf records a message in the dialect's style and publishes it.
// facility is the XR facility or VRP module, name the mnemonic's last part.
func (d *Driver) logf(t time.Time, severity int, facility, name, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	e := device.LogEntry{Time: t, Severity: severity, Facility: facility, Message: msg}
	if d.dialect == DialectVRP {
		e.Mnemonic = fmt.Sprintf("%s/%d/%s", facility, severity, name)
		e.Text = fmt.Sprintf("%s %s %%%%01%s(l)[%d]:%s", t.UTC().Format("Jan _2 2006 15:04:05.000"),
			d.config().hostname, e.Mnemonic, d.log.nextSeq(), msg)
	} else {
		e.Mnemonic = fmt.Sprintf("%s-%d-%s", facility, severity, name)
		e.Text = fmt.Sprintf("%s: %%%s: %s", t.UTC().Format("Jan _2 15:04:05.000"), e.Mnemonic, msg)
	}
	d.log.add(e)
	d.ev.publish(device.Event{Kind: device.EventSyslog, Time: t, Log: &e})
}

func upDown(up bool) string {
	if up {
		return "up"
	}
	return "down"
}

// interfaceChanged logs an interface state change as the dialect does and
// publishes an EventInterface.
func (d *Driver) interfaceChanged(t time.Time, ifn string, old, cur ifSnap, seen bool) {
	d.mu.Lock()
	d.ifChange[ifn] = t
	d.mu.Unlock()
	adminChanged := !seen || old.admin != cur.admin
	operChanged := !seen || old.oper != cur.oper
	if d.dialect == DialectVRP {
		if adminChanged && !cur.admin {
			d.logf(t, 4, "IFNET", "IF_STATE", "Interface %s has turned into administratively DOWN state.", ifn)
		} else if operChanged {
			d.logf(t, 4, "IFPDT", "IF_STATE", "Interface %s has turned into %s state.", ifn, strings.ToUpper(upDown(cur.oper)))
		}
		if operChanged {
			d.logf(t, 4, "IFNET", "LINK_STATE", "The line protocol IP on the interface %s has entered the %s state.", ifn, strings.ToUpper(upDown(cur.oper)))
		}
	} else {
		if adminChanged && !cur.admin {
			d.logf(t, 5, "LINK", "CHANGED", "Interface %s, changed state to administratively down", ifn)
		} else if operChanged {
			d.logf(t, 3, "LINK", "UPDOWN", "Interface %s, changed state to %s", ifn, upDown(cur.oper))
		}
		if operChanged {
			d.logf(t, 5, "LINEPROTO", "UPDOWN", "Line protocol on Interface %s, changed state to %s", ifn, upDown(cur.oper))
		}
	}
	d.ev.publish(device.Event{Kind: device.EventInterface, Name: ifn, Time: t})
}

// faultLogged logs what the device sees of an injected or cleared fault.
func (d *Driver) faultLogged(t time.Time, f topology.Fault, ifn string, injected bool) {
	switch f.Kind {
	case topology.FaultLoss:
		if d.dialect == DialectVRP {
			if injected {
				d.logf(t, 2, "PORT", "CRCERRORRISING", "The CRC error is rising. (InterfaceName=%s, ErrorRate=%.0f%%)", ifn, f.Percent)
			} else {
				d.logf(t, 2, "PORT", "CRCERRORRESUME", "The CRC error resume. (InterfaceName=%s)", ifn)
			}
		} else {
			act := "DECLARE"
			if !injected {
				act = "CLEAR"
			}
			d.logf(t, 3, "PKT_INFRA-FM", "FAULT_MAJOR", "ALARM_MAJOR :CRC-ERROR :%s :%s: input CRC error rate above threshold", act, ifn)
		}
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
		if d.dialect == DialectVRP {
			d.logf(t, 6, "IFNET", "MTU_CHANGE", "The MTU of interface %s changed to %d.", ifn, mtu)
		} else {
			d.logf(t, 6, "PKT_INFRA-IM", "MTU_CHANGE", "MTU of interface %s changed to %d", ifn, mtu)
		}
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
	if d.dialect == DialectVRP {
		d.logf(t, e.Severity, "CFG", name, "%s", e.Message)
	} else {
		d.logf(t, e.Severity, "MGBL-CONFIG", name, "%s", e.Message)
	}
	switch name {
	case "COMMIT", "CANCEL", "ROLLBACK":
		d.ev.publish(device.Event{Kind: device.EventConfig, Time: t})
	}
}

// bootLog writes the messages of a device that has just started.
func (d *Driver) bootLog() {
	t := d.lab.opts.Now()
	c := d.config()
	if d.dialect == DialectVRP {
		d.logf(t, 5, "SYSTEM", "SYS_START", "The system is started. (Version=%s)", c.dev.SoftwareVersion)
	} else {
		d.logf(t, 5, "SYS", "RESTART", "System restarted -- Cisco IOS XR Software, Version %s", c.dev.SoftwareVersion)
	}
	for _, it := range c.dev.Interfaces {
		st, err := d.lab.net.InterfaceState(d.name, it.Name)
		if err != nil || !st.AdminUp {
			continue
		}
		if d.dialect == DialectVRP {
			d.logf(t, 4, "IFNET", "LINK_STATE", "The line protocol IP on the interface %s has entered the %s state.", it.Name, strings.ToUpper(upDown(st.OperUp)))
		} else {
			d.logf(t, 5, "LINEPROTO", "UPDOWN", "Line protocol on Interface %s, changed state to %s", it.Name, upDown(st.OperUp))
		}
	}
	d.bootAdjacencyLog() // OSPF and BGP: adjacency_log.go
}

// Syslog returns the last n log entries, oldest first.
func (d *Driver) Syslog(ctx context.Context, n int) ([]device.LogEntry, error) {
	return d.log.last(n), nil
}

// Subscribe calls fn for every event until the returned function is called.
func (d *Driver) Subscribe(fn func(device.Event)) func() { return d.ev.subscribe(fn) }
