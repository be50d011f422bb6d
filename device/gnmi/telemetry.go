package gnmi

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// MaxLogEntries bounds a driver's log: beyond it the oldest entries are
// dropped.
const MaxLogEntries = 10000

// Paths of the ON_CHANGE subscription that feeds the driver's events.
const (
	pathOperStatus  = "/openconfig-interfaces:interfaces/interface/state/oper-status"
	pathAdminStatus = "/openconfig-interfaces:interfaces/interface/state/admin-status"
	pathBGPSession  = "/openconfig-network-instance:network-instances/network-instance/protocols/protocol/bgp/neighbors/neighbor/state/session-state"
	moduleNetInst   = "openconfig-network-instance"
)

// telemetry is a driver's log and event subscribers. From the first
// Subscribe or Syslog until Close, an ON_CHANGE subscription to the
// interfaces' oper- and admin-status (and, where the target has
// openconfig-network-instance, its BGP sessions' state) turns each change
// into a log line in IOS words and an event.
type telemetry struct {
	d *Driver

	mu      sync.Mutex
	log     []device.LogEntry
	head    int
	subs    map[int]func(device.Event)
	next    int
	q       []device.Event // events waiting for delivery
	cond    *sync.Cond
	started bool
	stopped bool
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	synced chan struct{} // closed when the subscription's initial leaves are in
	ended  chan struct{} // closed when the subscription has ended for good
	endErr error         // why it ended; read after ended is closed

	state map[string]string // leaf path -> last value seen
}

func newTelemetry(d *Driver) *telemetry {
	t := &telemetry{d: d, subs: map[int]func(device.Event){}, state: map[string]string{},
		synced: make(chan struct{}), ended: make(chan struct{})}
	t.cond = sync.NewCond(&t.mu)
	t.wg.Add(1)
	go t.deliver()
	return t
}

// deliver hands queued events to the subscribers, in order, outside
// every lock (the store logs with its lock held).
func (t *telemetry) deliver() {
	defer t.wg.Done()
	for {
		t.mu.Lock()
		for len(t.q) == 0 && !t.stopped {
			t.cond.Wait()
		}
		if t.stopped {
			t.mu.Unlock()
			return
		}
		batch := t.q
		t.q = nil
		fns := make([]func(device.Event), 0, len(t.subs))
		for id := 0; id < t.next; id++ {
			if fn, ok := t.subs[id]; ok {
				fns = append(fns, fn)
			}
		}
		t.mu.Unlock()
		for _, e := range batch {
			for _, fn := range fns {
				fn(e)
			}
		}
	}
}

// ensure starts the event subscription once.
func (t *telemetry) ensure() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.started || t.stopped {
		return
	}
	t.started = true
	ctx, cancel := context.WithCancel(context.Background())
	t.cancel = cancel
	paths := []string{pathOperStatus, pathAdminStatus}
	if slices.Contains(t.d.caps.Models, moduleNetInst) {
		paths = append(paths, pathBGPSession)
	}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		synced := false
		err := t.d.Watch(ctx, Subscription{Paths: paths, Mode: ModeOnChange, Reconnect: true}, func(b Batch) {
			if b.Sync {
				if !synced {
					synced = true
					close(t.synced)
				}
				return
			}
			for _, u := range b.Updates {
				t.observe(u, synced)
			}
		})
		if err == nil {
			err = errors.New("the subscription ended")
		}
		t.endErr = err
		close(t.ended)
		if !errors.Is(err, context.Canceled) {
			t.d.log.Warn("gnmi: the event subscription ended", "device", t.d.cfg.Address(), "err", err)
		}
	}()
}

// waitSynced returns once the subscription's initial leaves are in, so
// that a change made from then on is an event; or the reason the
// subscription ended first, or ctx's error.
func (t *telemetry) waitSynced(ctx context.Context) error {
	t.ensure()
	t.mu.Lock()
	stopped := t.stopped
	t.mu.Unlock()
	if stopped {
		return netproto.Errorf(netproto.CodeUnreachable, "gnmi %s: the driver is closed", t.d.cfg.Address())
	}
	select {
	case <-t.synced:
		return nil
	case <-t.ended:
		return fmt.Errorf("gnmi %s: the change stream ended before its initial state: %w", t.d.cfg.Address(), t.endErr)
	case <-ctx.Done():
		return fmt.Errorf("gnmi %s: the change stream has not sent its initial state: %w", t.d.cfg.Address(), ctx.Err())
	}
}

// stop ends the subscription and the delivery.
func (t *telemetry) stop() {
	t.mu.Lock()
	t.stopped = true
	if t.cancel != nil {
		t.cancel()
	}
	t.cond.Broadcast()
	t.mu.Unlock()
	t.wg.Wait()
}

// observe records a leaf and, after the initial leaves (live), logs its
// change.
func (t *telemetry) observe(u Update, live bool) {
	v := fmt.Sprint(u.Value)
	t.mu.Lock()
	old, had := t.state[u.Path]
	if u.Deleted {
		delete(t.state, u.Path)
	} else {
		t.state[u.Path] = v
	}
	t.mu.Unlock()
	if !live || u.Deleted || (had && old == v) {
		return
	}
	p, err := yang.ParsePath(u.Path)
	if err != nil || len(p) < 2 {
		return
	}
	key := func(i int, name string) string {
		if i >= len(p) {
			return ""
		}
		for _, k := range p[i].Keys {
			if k.Name == name {
				return k.Value
			}
		}
		return ""
	}
	switch leaf := p[len(p)-1].Name; {
	case p[0].Module == "openconfig-interfaces" && leaf == "oper-status":
		name := key(1, "name")
		e := device.LogEntry{Time: u.Time, Severity: 3, Facility: "LINK", Mnemonic: "LINK-3-UPDOWN",
			Message: fmt.Sprintf("Interface %s, changed state to %s", name, strings.ToLower(v))}
		t.publish(e, device.Event{Kind: device.EventInterface, Name: name, Time: u.Time})
	case p[0].Module == "openconfig-interfaces" && leaf == "admin-status":
		name := key(1, "name")
		state := "up"
		if v != "UP" {
			state = "administratively down"
		}
		e := device.LogEntry{Time: u.Time, Severity: 5, Facility: "LINK", Mnemonic: "LINK-5-CHANGED",
			Message: fmt.Sprintf("Interface %s, changed state to %s", name, state)}
		t.publish(e, device.Event{Kind: device.EventInterface, Name: name, Time: u.Time})
	case p[0].Module == moduleNetInst && leaf == "session-state":
		peer := ""
		for i := range p {
			if s := key(i, "neighbor-address"); s != "" {
				peer = s
			}
		}
		updown := "Down"
		if v == "ESTABLISHED" {
			updown = "Up"
		} else if had && old != "ESTABLISHED" {
			return // between two states that are both down
		}
		e := device.LogEntry{Time: u.Time, Severity: 5, Facility: "BGP", Mnemonic: "BGP-5-ADJCHANGE",
			Message: fmt.Sprintf("neighbor %s %s (session-state %s)", peer, updown, v)}
		t.publish(e)
	}
}

// publish adds e to the log and queues it (and extra events) for the
// subscribers; it never blocks.
func (t *telemetry) publish(e device.LogEntry, extra ...device.Event) {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	e.Text = fmt.Sprintf("%s: %%%s: %s", e.Time.UTC().Format(time.RFC3339), e.Mnemonic, e.Message)
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.log) < MaxLogEntries {
		t.log = append(t.log, e)
	} else {
		t.log[t.head] = e
		t.head = (t.head + 1) % len(t.log)
	}
	if len(t.subs) == 0 || t.stopped {
		return
	}
	t.q = append(t.q, device.Event{Kind: device.EventSyslog, Time: e.Time, Log: &e})
	t.q = append(t.q, extra...)
	t.cond.Signal()
}

// storeLogged is the store's Log hook: commits, confirms, rollbacks.
func (t *telemetry) storeLogged(e device.LogEntry) {
	if e.Facility == "" {
		e.Facility = "CONFIG"
	}
	t.publish(e, device.Event{Kind: device.EventConfig, Time: e.Time})
}

// Syslog returns the last n log entries, oldest first: the interfaces'
// and BGP sessions' changes the target streamed since the first call,
// and the configuration's commits.
func (d *Driver) Syslog(ctx context.Context, n int) ([]device.LogEntry, error) {
	t := d.tel
	t.ensure()
	t.mu.Lock()
	defer t.mu.Unlock()
	n = min(max(n, 0), len(t.log))
	out := make([]device.LogEntry, 0, n)
	for i := len(t.log) - n; i < len(t.log); i++ {
		out = append(out, t.log[(t.head+i)%len(t.log)])
	}
	return out, nil
}

// Subscribe calls fn for every new log entry (EventSyslog), interface
// change (EventInterface) and commit (EventConfig) until the returned
// function is called. fn is called from one goroutine, in order.
func (d *Driver) Subscribe(fn func(device.Event)) func() {
	t := d.tel
	t.ensure()
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

// WaitEvents returns once the ON_CHANGE subscription behind Subscribe
// has its initial state, from when on every interface change is an
// event: a change before it would be taken for the initial state and
// never reported. It returns the subscription's error if it ended first,
// or ctx's error.
func (d *Driver) WaitEvents(ctx context.Context) error { return d.tel.waitSynced(ctx) }

// CPU reads openconfig-system's CPU utilisation (the "ALL" entry, else
// the mean of the CPUs' instant values).
func (d *Driver) CPU(ctx context.Context) (device.CPUStats, error) {
	v, err := d.Get(ctx, device.Operational, "/openconfig-system:system/cpus")
	if err != nil {
		return device.CPUStats{}, notPublished(d, "CPU", err)
	}
	m, _ := v.(map[string]any)
	l, _ := m["cpu"].([]any)
	var sum float64
	var n int
	for _, e := range l {
		em, _ := e.(map[string]any)
		inst, ok := number(dig(em, "state", "total", "instant"))
		if !ok {
			continue
		}
		if idx := fmt.Sprint(em["index"]); idx == "ALL" {
			return device.CPUStats{Percent: inst, OneMinute: inst, FiveMinute: inst, Time: time.Now()}, nil
		}
		sum += inst
		n++
	}
	if n == 0 {
		return device.CPUStats{}, notPublished(d, "CPU", nil)
	}
	p := sum / float64(n)
	return device.CPUStats{Percent: p, OneMinute: p, FiveMinute: p, Time: time.Now()}, nil
}

// Memory reads openconfig-system's memory state.
func (d *Driver) Memory(ctx context.Context) (device.MemoryStats, error) {
	v, err := d.Get(ctx, device.Operational, "/openconfig-system:system/memory/state")
	if err != nil {
		return device.MemoryStats{}, notPublished(d, "memory", err)
	}
	m, _ := v.(map[string]any)
	total, ok := number(m["physical"])
	if !ok {
		return device.MemoryStats{}, notPublished(d, "memory", nil)
	}
	used, _ := number(m["used"])
	free, hasFree := number(m["free"])
	if !hasFree {
		free = total - used
	}
	return device.MemoryStats{Total: uint64(total), Used: uint64(used), Free: uint64(free), Time: time.Now()}, nil
}

// Crashinfo is not available over gNMI.
func (d *Driver) Crashinfo(ctx context.Context, slot string) ([]device.CrashRecord, error) {
	return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "gnmi: %s: crash information is not available over gNMI", d.cfg.Name)
}

// notPublished is -32084 for data the target does not publish; other
// errors (unreachable, cancelled) pass.
func notPublished(d *Driver, what string, err error) error {
	var ne *netproto.Error
	if err == nil || errors.Is(err, device.ErrNotFound) || (errors.As(err, &ne) && ne.Code == netproto.CodeConfigIncompatible) {
		return netproto.Errorf(netproto.CodeConfigIncompatible, "gnmi: %s publishes no %s data under openconfig-system", d.cfg.Name, what)
	}
	return err
}

func dig(m map[string]any, names ...string) any {
	var v any = m
	for _, n := range names {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[n]
	}
	return v
}

// number reads a JSON number or a decimal string (RFC 7951 64-bit).
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	}
	return 0, false
}
