package sim

import (
	"context"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/netproto"
)

// CPU load added by activity, in percentage points at the moment it
// happens; it decays with loadTau.
const (
	loadExec   = 2.0
	loadProbe  = 6.0
	loadCommit = 12.0
	loadTau    = 15 * time.Second
	loadKeep   = 10 * time.Minute
	memTau     = 2 * time.Minute
)

// telemetry computes CPU and memory as a deterministic function of time
// and recent load: a per-device base, two slow waves and the decaying cost
// of recent commands, probes and commits.
type telemetry struct {
	now     func() time.Time
	base    float64
	totalMB int
	slots   []string
	crashes []topology.CrashRecord

	mu    sync.Mutex
	loads []loadEvent

	stopOnce sync.Once
	stopCh   chan struct{}
}

type loadEvent struct {
	t      time.Time
	amount float64
}

func newTelemetry(d topology.Device, now func() time.Time) *telemetry {
	t := &telemetry{now: now, base: d.CPUBase, totalMB: d.MemoryTotalMB, slots: d.Slots,
		crashes: d.Crashes, stopCh: make(chan struct{})}
	if t.base <= 0 {
		t.base = 10
	}
	if t.totalMB <= 0 {
		t.totalMB = 4096
	}
	if len(t.slots) == 0 {
		t.slots = []string{"0/RP0"}
	}
	return t
}

func (t *telemetry) stop() { t.stopOnce.Do(func() { close(t.stopCh) }) }

// addLoad records activity at time at.
func (t *telemetry) addLoad(at time.Time, amount float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.loads = slices.DeleteFunc(t.loads, func(e loadEvent) bool { return at.Sub(e.t) > loadKeep })
	t.loads = append(t.loads, loadEvent{at, amount})
}

// load is the decayed activity at time at, with time constant tau.
func (t *telemetry) load(at time.Time, tau time.Duration) float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	sum := 0.0
	for _, e := range t.loads {
		if dt := at.Sub(e.t); dt >= 0 {
			sum += e.amount * math.Exp(-float64(dt)/float64(tau))
		}
	}
	return sum
}

func (t *telemetry) slotIndex(slot string) (int, error) {
	if slot == "" {
		return 0, nil
	}
	if i := slices.Index(t.slots, slot); i >= 0 {
		return i, nil
	}
	return 0, netproto.Errorf(netproto.CodeConfigIncompatible, "no hardware slot %q (slots: %v)", slot, t.slots)
}

// cpuAt is the CPU utilisation of slot i at time at.
func (t *telemetry) cpuAt(at time.Time, i int) float64 {
	s := float64(at.UnixNano()) / 1e9
	base := t.base
	if i > 0 {
		base *= 0.6 // line cards idle lower than the route processor
	}
	ph := float64(i)
	v := base + 0.25*base*math.Sin(2*math.Pi*s/600+ph) + 0.1*base*math.Sin(2*math.Pi*s/83+2*ph)
	if i == 0 {
		v += t.load(at, loadTau)
	} else {
		v += 0.3 * t.load(at, loadTau)
	}
	return math.Round(math.Min(100, math.Max(0.5, v))*10) / 10
}

// cpuAvg averages cpuAt over the window before at.
func (t *telemetry) cpuAvg(at time.Time, i int, window time.Duration) float64 {
	const n = 12
	sum := 0.0
	for k := 0; k < n; k++ {
		sum += t.cpuAt(at.Add(-window*time.Duration(k)/n), i)
	}
	return math.Round(sum/n*10) / 10
}

func (t *telemetry) cpu(slot string) (device.CPUStats, error) {
	i, err := t.slotIndex(slot)
	if err != nil {
		return device.CPUStats{}, err
	}
	now := t.now()
	return device.CPUStats{Percent: t.cpuAt(now, i), OneMinute: t.cpuAvg(now, i, time.Minute),
		FiveMinute: t.cpuAvg(now, i, 5*time.Minute), Time: now, Slot: t.slots[i]}, nil
}

func (t *telemetry) memory(slot string) (device.MemoryStats, error) {
	i, err := t.slotIndex(slot)
	if err != nil {
		return device.MemoryStats{}, err
	}
	now := t.now()
	total := uint64(t.totalMB) << 20
	if i > 0 {
		total /= 2
	}
	s := float64(now.UnixNano()) / 1e9
	frac := 0.34 + 0.02*math.Sin(2*math.Pi*s/1800+float64(i)) + 0.002*t.load(now, memTau)
	frac = math.Min(0.97, frac)
	used := uint64(float64(total)*frac) &^ 0xfff
	return device.MemoryStats{Total: total, Used: used, Free: total - used, Time: now, Slot: t.slots[i]}, nil
}

// CPU returns the route processor's CPU utilisation (the first slot).
func (d *Driver) CPU(ctx context.Context) (device.CPUStats, error) { return d.tel.cpu("") }

// Memory returns the route processor's memory summary.
func (d *Driver) Memory(ctx context.Context) (device.MemoryStats, error) { return d.tel.memory("") }

// SlotCPU returns the CPU utilisation of one hardware slot.
func (d *Driver) SlotCPU(slot string) (device.CPUStats, error) { return d.tel.cpu(slot) }

// SlotMemory returns the memory summary of one hardware slot.
func (d *Driver) SlotMemory(slot string) (device.MemoryStats, error) { return d.tel.memory(slot) }

// Slots lists the device's hardware slots.
func (d *Driver) Slots() []string { return slices.Clone(d.tel.slots) }

// Crashinfo returns the crash records of a slot, oldest first.
func (d *Driver) Crashinfo(ctx context.Context, slot string) ([]device.CrashRecord, error) {
	if slot == "" {
		return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "crashinfo needs a slot (slots: %v)", d.tel.slots)
	}
	if _, err := d.tel.slotIndex(slot); err != nil {
		return nil, err
	}
	out := []device.CrashRecord{}
	for _, c := range d.tel.crashes {
		if c.Slot != slot {
			continue
		}
		ts, _ := time.Parse(time.RFC3339, c.Time)
		out = append(out, device.CrashRecord{Time: ts, Slot: c.Slot, Process: c.Process, Reason: c.Reason,
			Detail: "core dumped to harddisk:/dumper/" + c.Process + ".by." + signalOf(c.Reason) + "." + ts.UTC().Format("20060102-150405") + ".core.gz"})
	}
	return out, nil
}

func signalOf(reason string) string {
	for _, s := range []string{"SIGSEGV", "SIGABRT", "SIGBUS", "SIGKILL"} {
		if strings.HasPrefix(reason, s) {
			return s[3:]
		}
	}
	return "signal"
}

// telemetryLoop publishes EventCPU and EventMemory every interval.
func (d *Driver) telemetryLoop(interval time.Duration) {
	tk := time.NewTicker(interval)
	defer tk.Stop()
	for {
		select {
		case <-d.tel.stopCh:
			return
		case <-tk.C:
			now := d.lab.opts.Now()
			d.ev.publish(device.Event{Kind: device.EventCPU, Name: d.tel.slots[0], Time: now})
			d.ev.publish(device.Event{Kind: device.EventMemory, Name: d.tel.slots[0], Time: now})
		}
	}
}
