package snmp

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
)

// cpuWindow is how long CPU samples are kept for the five-minute average.
const cpuWindow = 5 * time.Minute

// poller publishes telemetry events while someone subscribes: every
// Config.Poll it reads ifTable/ifXTable and HOST-RESOURCES-MIB and sends
// an EventInterface for each interface whose counters or status changed,
// and EventCPU and EventMemory when the agent has those objects.
type poller struct {
	d *Driver

	mu      sync.Mutex
	subs    map[int]func(device.Event)
	next    int
	cancel  context.CancelFunc // of the running loop; nil when none
	done    chan struct{}
	stopped bool
	samples []cpuSample
}

type cpuSample struct {
	t time.Time
	v float64
}

func newPoller(d *Driver) *poller { return &poller{d: d, subs: map[int]func(device.Event){}} }

// Subscribe calls fn for every event until the returned function is
// called. Polling runs only while there are subscribers.
func (d *Driver) Subscribe(fn func(device.Event)) (unsubscribe func()) {
	p := d.tel
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return func() {}
	}
	id := p.next
	p.next++
	p.subs[id] = fn
	if p.cancel == nil {
		ctx, cancel := context.WithCancel(context.Background())
		p.cancel, p.done = cancel, make(chan struct{})
		go p.loop(ctx, p.done)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			delete(p.subs, id)
			var done chan struct{}
			if len(p.subs) == 0 && p.cancel != nil {
				p.cancel()
				done = p.done
				p.cancel, p.done = nil, nil
			}
			p.mu.Unlock()
			if done != nil {
				<-done
			}
		})
	}
}

func (p *poller) stop() {
	p.mu.Lock()
	p.stopped = true
	cancel, done := p.cancel, p.done
	p.cancel, p.done = nil, nil
	p.subs = map[int]func(device.Event){}
	p.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

func (p *poller) publish(ev device.Event) {
	p.mu.Lock()
	fns := make([]func(device.Event), 0, len(p.subs))
	for _, f := range p.subs {
		fns = append(fns, f)
	}
	p.mu.Unlock()
	for _, f := range fns {
		f(ev)
	}
}

type ifSeen struct {
	c           counters
	admin, oper int
}

func (p *poller) loop(ctx context.Context, done chan struct{}) {
	defer close(done)
	last := map[string]ifSeen{}
	tk := time.NewTicker(p.d.cfg.Poll)
	defer tk.Stop()
	for {
		p.pollOnce(ctx, last)
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
		}
	}
}

// pollOnce reads the agent once and publishes what changed since last.
func (p *poller) pollOnce(ctx context.Context, last map[string]ifSeen) {
	rctx, cancel := context.WithTimeout(ctx, p.d.cfg.Timeout*time.Duration(p.d.cfg.Retries+1)*4)
	defer cancel()
	s, err := collect(rctx, p.d.c, partSystem|partInterfaces|partResources)
	if err != nil {
		return // the agent did not answer; the next poll tries again
	}
	now := time.Now()
	seen := map[string]bool{}
	for _, it := range s.Ifs {
		n := it.name()
		seen[n] = true
		cur := ifSeen{c: it.C, admin: it.Admin, oper: it.Oper}
		if prev, ok := last[n]; !ok || prev != cur {
			last[n] = cur
			p.publish(device.Event{Kind: device.EventInterface, Name: n, Time: now})
		}
	}
	for n := range last {
		if !seen[n] {
			delete(last, n)
			p.publish(device.Event{Kind: device.EventInterface, Name: n, Time: now})
		}
	}
	if len(s.Res.CPULoads) > 0 {
		p.addSample(now, mean(s.Res.CPULoads))
		p.publish(device.Event{Kind: device.EventCPU, Time: now})
	}
	if s.Res.HasRAM {
		p.publish(device.Event{Kind: device.EventMemory, Time: now})
	}
}

func mean(l []int) float64 {
	sum := 0
	for _, v := range l {
		sum += v
	}
	return float64(sum) / float64(len(l))
}

func (p *poller) addSample(t time.Time, v float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.samples = slices.DeleteFunc(p.samples, func(s cpuSample) bool { return t.Sub(s.t) > cpuWindow })
	p.samples = append(p.samples, cpuSample{t, v})
}

func (p *poller) window() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	sum := 0.0
	for _, s := range p.samples {
		sum += s.v
	}
	return sum / float64(len(p.samples))
}

// CPU returns the mean hrProcessorLoad of the device's processors (each a
// one-minute average, so Percent and OneMinute are the same value);
// FiveMinute is the mean of the samples this driver read in the last five
// minutes. An agent without hrProcessorLoad gives -32084.
func (d *Driver) CPU(ctx context.Context) (device.CPUStats, error) {
	r, err := fetchResources(ctx, d.c)
	if err != nil {
		return device.CPUStats{}, err
	}
	if len(r.CPULoads) == 0 {
		return device.CPUStats{}, netproto.Errorf(netproto.CodeConfigIncompatible,
			"the SNMP agent serves no hrProcessorLoad (HOST-RESOURCES-MIB %s); net-snmp fills it about a minute after it starts", oidHrProcLoad)
	}
	now := time.Now()
	v := mean(r.CPULoads)
	d.tel.addSample(now, v)
	return device.CPUStats{Percent: v, OneMinute: v, FiveMinute: d.tel.window(), Time: now}, nil
}

// Memory returns the RAM row (hrStorageRam) of hrStorageTable. An agent
// without it gives -32084.
func (d *Driver) Memory(ctx context.Context) (device.MemoryStats, error) {
	r, err := fetchResources(ctx, d.c)
	if err != nil {
		return device.MemoryStats{}, err
	}
	if !r.HasRAM {
		return device.MemoryStats{}, netproto.Errorf(netproto.CodeConfigIncompatible,
			"the SNMP agent serves no RAM row in hrStorageTable (HOST-RESOURCES-MIB %s)", oidHrStorageEntry)
	}
	return device.MemoryStats{Total: r.RAMTotal, Used: r.RAMUsed, Free: r.RAMTotal - r.RAMUsed, Time: time.Now()}, nil
}

// Syslog is not available over SNMP: -32084.
func (d *Driver) Syslog(ctx context.Context, n int) ([]device.LogEntry, error) {
	return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "the snmp driver reads no syslog: SNMP does not carry the device's log")
}

// Crashinfo is not available over SNMP: -32084.
func (d *Driver) Crashinfo(ctx context.Context, slot string) ([]device.CrashRecord, error) {
	return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "the snmp driver reads no crash information: SNMP does not carry it")
}
