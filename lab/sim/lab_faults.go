package sim

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/lab/topology"
)

// FaultOwner is the owner the lab edits and commits configuration faults
// as: its name is the user of those commits in a device's history.
var FaultOwner = device.Owner{Session: "fault-injector", User: "fault-injector"}

// Fault kinds of ActiveFault.Kind.
const (
	// FaultConfig is a fault made as a difference in a device's configuration.
	FaultConfig = "config"
	// FaultRuntime is a fault held in the network model's state.
	FaultRuntime = "runtime"
)

// ActiveFault is one fault injected into a lab.
type ActiveFault struct {
	// ID names the fault for ClearFault: "f1", "f2", ...
	ID string `json:"id"`
	// Words are the fault as written after --fault.
	Words string `json:"fault"`
	// Kind is FaultConfig or FaultRuntime.
	Kind string `json:"kind"`
	// Devices are the devices the fault changes.
	Devices []string `json:"devices"`
	// Note says what the fault did (or, from ClearFault, what clearing did).
	Note  string         `json:"note,omitempty"`
	Fault topology.Fault `json:"-"`
}

// faultBook is a lab's record of its injected faults.
type faultBook struct {
	mu     sync.Mutex // serialises fault changes (commits run outside Lab.mu)
	next   int
	list   []*faultRec
	timer  *time.Timer // next state change of a timed fault (link_flap)
	closed bool
}

// faultRec is one injected fault with what undoes it.
type faultRec struct {
	ActiveFault
	// before and after are the device's configuration around a
	// configuration fault.
	before, after topology.Device
}

// describeFault writes a fault as words: the named form, or the older
// kinds with their fields.
func describeFault(f topology.Fault) string {
	if f.Name != "" {
		return f.String()
	}
	var b strings.Builder
	b.WriteString(f.Kind)
	for _, kv := range [][2]string{{"link", f.Link}, {"interface", f.Interface}, {"destination", f.Destination}} {
		if kv[1] != "" {
			fmt.Fprintf(&b, " %s=%s", kv[0], kv[1])
		}
	}
	if f.Percent != 0 {
		fmt.Fprintf(&b, " percent=%s", strconv.FormatFloat(f.Percent, 'g', -1, 64))
	}
	if f.MTU != 0 {
		fmt.Fprintf(&b, " mtu=%d", f.MTU)
	}
	if f.DelayMS != 0 {
		fmt.Fprintf(&b, " delay-ms=%s", strconv.FormatFloat(f.DelayMS, 'g', -1, 64))
	}
	return b.String()
}

// faultDevices lists the devices a runtime fault touches: the device of
// the target and, for a link fault, the device at the other end.
func (l *Lab) faultDevices(f topology.Fault) []string {
	var ends []string
	switch {
	case f.Name == "":
		ends = []string{f.Link, f.Interface}
	default:
		ends = []string{f.Target}
	}
	var out []string
	add := func(d string) {
		if d != "" && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	for _, e := range ends {
		d, _, ok := topology.SplitEnd(e)
		if !ok {
			add(e)
			continue
		}
		add(d)
		if f.Name == "link_fragmentation_disabled" || f.Kind == topology.FaultMTU || f.Kind == topology.FaultACLDrop {
			continue
		}
		for _, lk := range l.net.Links() {
			if lk.A == e || lk.B == e {
				pa, _, _ := topology.SplitEnd(lk.A)
				pb, _, _ := topology.SplitEnd(lk.B)
				add(pa)
				add(pb)
			}
		}
	}
	return out
}

// InjectFault adds a fault to the network: a named fault of
// topology.Catalog or one of the older kinds (see Inject).
func (l *Lab) InjectFault(f topology.Fault) error {
	_, err := l.Inject(f)
	return err
}

// Inject adds a fault to the network and returns it with its id, made by
// its binding in the fault registry (faults.go). A runtime fault joins
// the model's fault list; a configuration fault is made as a
// configuration change of the device: for a router, an edit committed
// through its configuration store by FaultOwner (so running
// configuration, YANG and CLI show it); for a host, its configuration in
// the model.
func (l *Lab) Inject(f topology.Fault) (ActiveFault, error) {
	l.fb.mu.Lock()
	defer l.fb.mu.Unlock()
	impl := runtimeFault // the older kinds
	if f.Name != "" {
		if err := l.net.CheckFault(f); err != nil {
			return ActiveFault{}, fmt.Errorf("sim: %w", err)
		}
		var err error
		if impl, err = simFaults.Lookup(f.Name); err != nil {
			return ActiveFault{}, fmt.Errorf("sim: %w", err)
		}
	}
	op := &faultOp{l: l, rec: &faultRec{ActiveFault: ActiveFault{Words: describeFault(f), Fault: f}}}
	if err := impl.Apply(op, context.Background(), f); err != nil {
		return ActiveFault{}, err
	}
	rec := op.rec
	l.fb.next++
	rec.ID = "f" + strconv.Itoa(l.fb.next)
	l.fb.list = append(l.fb.list, rec)
	return rec.ActiveFault, l.saveFaultsLocked()
}

func joinNotes(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}

// deviceConfig returns the configuration a device runs: a router's from
// its driver, a host's from the model.
func (l *Lab) deviceConfig(name string) (topology.Device, error) {
	l.mu.Lock()
	drv := l.drivers[name]
	l.mu.Unlock()
	if drv != nil {
		return drv.config().dev, nil
	}
	d, ok := l.net.Device(name)
	if !ok {
		return topology.Device{}, fmt.Errorf("sim: no device %q in the lab", name)
	}
	return d, nil
}

// setConfig makes target the configuration of device name. A router's
// change is edited and committed through its configuration store as
// FaultOwner with comment; what the configuration tree does not carry
// (yet) is set in the configuration the model runs, and the returned
// note says so. A host's is set in the model.
func (l *Lab) setConfig(name string, target topology.Device, comment string) (string, error) {
	l.mu.Lock()
	drv := l.drivers[name]
	l.mu.Unlock()
	if drv == nil {
		return "", l.applyDevice(target)
	}
	ctx := context.Background()
	cur := drv.config()
	edits, err := editsBetween(deviceToTree(cur.dev, cur.hostname), deviceToTree(target, cur.hostname), drv.schema)
	if err != nil {
		return "", err
	}
	if len(edits) > 0 {
		if err := drv.store.Edit(ctx, FaultOwner, edits); err != nil {
			return "", fmt.Errorf("editing %s's candidate: %w", name, err)
		}
		if _, err := drv.Commit(ctx, FaultOwner, device.CommitOptions{Comment: comment}); err != nil {
			_ = drv.store.Discard(ctx, FaultOwner)
			return "", fmt.Errorf("committing on %s: %w", name, err)
		}
		drv.store.Release(FaultOwner)
	}
	if sameDevice(drv.config().dev, target) {
		return "", nil
	}
	// Parts the configuration tree does not carry: the model runs them.
	dev, err := TreeToDevice(drv.store.Running(), target)
	if err != nil {
		return "", err
	}
	if err := l.applyDevice(dev); err != nil {
		return "", err
	}
	drv.mu.Lock()
	drv.cur.dev = dev
	drv.mu.Unlock()
	return "part of the change is not in " + name + "'s configuration tree yet: the model runs it", nil
}

// ClearFault removes one injected fault, named by its id ("f2" or "2") or
// by its words. A configuration fault is undone: what it changed comes
// back as it was, unless it has been changed since; such parts are left
// as they are and the returned Note says which.
func (l *Lab) ClearFault(idOrWords string) (ActiveFault, error) {
	l.fb.mu.Lock()
	defer l.fb.mu.Unlock()
	i := l.findFaultLocked(strings.TrimSpace(idOrWords))
	if i < 0 {
		var ids []string
		for _, r := range l.fb.list {
			ids = append(ids, r.ID+" ("+r.Words+")")
		}
		if len(ids) == 0 {
			return ActiveFault{}, fmt.Errorf("sim: no fault %q: no fault is injected", idOrWords)
		}
		return ActiveFault{}, fmt.Errorf("sim: no fault %q (injected: %s)", idOrWords, strings.Join(ids, ", "))
	}
	rec := l.fb.list[i]
	note, err := l.undoLocked(rec)
	if err != nil {
		return ActiveFault{}, err
	}
	l.fb.list = slices.Delete(l.fb.list, i, i+1)
	out := rec.ActiveFault
	out.Note = note
	return out, l.saveFaultsLocked()
}

// findFaultLocked finds a fault by id or words.
func (l *Lab) findFaultLocked(s string) int {
	if s == "" {
		return -1
	}
	id := s
	if _, err := strconv.Atoi(s); err == nil {
		id = "f" + s
	}
	for i, r := range l.fb.list {
		if r.ID == id {
			return i
		}
	}
	words := s
	if f, err := topology.ParseFault(s); err == nil {
		words = f.String()
	}
	for i, r := range l.fb.list {
		if r.Words == words {
			return i
		}
	}
	return -1
}

// undoLocked takes one fault out of the network with its binding's
// Clear, and returns what clearing did when there is something to say.
func (l *Lab) undoLocked(rec *faultRec) (string, error) {
	impl := runtimeFault // the older kinds
	if rec.Fault.Name != "" {
		var err error
		if impl, err = simFaults.Lookup(rec.Fault.Name); err != nil {
			return "", fmt.Errorf("sim: clearing %s: %w", rec.Words, err)
		}
	}
	op := &faultOp{l: l, rec: rec}
	if err := impl.Clear(op, context.Background(), rec.Fault); err != nil {
		return "", err
	}
	return op.note, nil
}

// ClearFaults removes every injected fault, the newest first.
func (l *Lab) ClearFaults() {
	l.fb.mu.Lock()
	defer l.fb.mu.Unlock()
	for i := len(l.fb.list) - 1; i >= 0; i-- {
		_, _ = l.undoLocked(l.fb.list[i])
	}
	l.fb.list = nil
	_ = l.saveFaultsLocked()
	l.mu.Lock()
	if len(l.net.Faults()) > 0 { // faults set on the model directly
		old := l.net.Faults()
		if l.net.SetFaults(nil) == nil {
			for _, f := range old {
				l.logFault(f, false)
			}
			l.diffStates(false)
		}
	}
	l.mu.Unlock()
	l.scheduleTimedLocked()
}

// Faults lists the injected faults, oldest first.
func (l *Lab) Faults() []ActiveFault {
	l.fb.mu.Lock()
	defer l.fb.mu.Unlock()
	out := make([]ActiveFault, len(l.fb.list))
	for i, r := range l.fb.list {
		out[i] = r.ActiveFault
		out[i].Devices = slices.Clone(r.Devices)
	}
	return out
}

// bootFaults brings back the faults a state directory kept (configuration
// faults are already in the saved configurations; runtime ones go back
// into the model), then injects those of the topology not among them.
func (l *Lab) bootFaults(fs []topology.Fault) error {
	if err := l.loadFaults(); err != nil {
		return err
	}
	for _, f := range fs {
		if l.findFault(describeFault(f)) {
			continue
		}
		if _, err := l.Inject(f); err != nil {
			return err
		}
	}
	return nil
}

// findFault tells whether a fault of these words is injected.
func (l *Lab) findFault(words string) bool {
	l.fb.mu.Lock()
	defer l.fb.mu.Unlock()
	return slices.ContainsFunc(l.fb.list, func(r *faultRec) bool { return r.Words == words })
}

// scheduleTimedLocked arms the timer of the next change of a timed fault
// (link_flap), by the lab's clock; l.fb.mu is held.
func (l *Lab) scheduleTimedLocked() {
	if l.fb.timer != nil {
		l.fb.timer.Stop()
		l.fb.timer = nil
	}
	if l.fb.closed {
		return
	}
	now := l.opts.Now()
	next, ok := l.net.NextFaultChange(now)
	if !ok {
		return
	}
	l.fb.timer = time.AfterFunc(next.Sub(now)+time.Millisecond, l.timedFaultTick)
}

// timedFaultTick brings the model to the timed faults' current state and
// logs the interface changes, then arms the next tick.
func (l *Lab) timedFaultTick() {
	l.fb.mu.Lock()
	defer l.fb.mu.Unlock()
	if l.fb.closed {
		return
	}
	l.RefreshTimedFaults()
	l.scheduleTimedLocked()
}

// RefreshTimedFaults recomputes the model at the lab clock's current time
// so timed faults (link_flap) take their state, and logs what changed.
func (l *Lab) RefreshTimedFaults() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.net.Refresh()
	l.diffStates(false)
}

// stopFaults stops the timed faults' timer (Lab.Close).
func (l *Lab) stopFaults() {
	l.fb.mu.Lock()
	defer l.fb.mu.Unlock()
	l.fb.closed = true
	if l.fb.timer != nil {
		l.fb.timer.Stop()
	}
}

// loggedAs maps a named fault onto the older kind whose syslog lines it
// shares (corruption: CRC error alarms at the receiving ends; no
// fragmentation: an MTU change).
func (l *Lab) loggedAs(f topology.Fault) topology.Fault {
	switch f.Name {
	case "link_high_packet_corruption":
		p, _ := strconv.ParseFloat(f.Param("percent"), 64)
		switch f.Param("direction") {
		case "in":
			return topology.Fault{Kind: topology.FaultLoss, Interface: f.Target, Percent: p}
		case "out":
			for _, lk := range l.net.Links() {
				switch f.Target {
				case lk.A:
					return topology.Fault{Kind: topology.FaultLoss, Interface: lk.B, Percent: p}
				case lk.B:
					return topology.Fault{Kind: topology.FaultLoss, Interface: lk.A, Percent: p}
				}
			}
		}
		return topology.Fault{Kind: topology.FaultLoss, Link: f.Target, Percent: p}
	case "link_fragmentation_disabled":
		m, _ := strconv.Atoi(f.Param("mtu"))
		return topology.Fault{Kind: topology.FaultMTU, Interface: f.Target, MTU: m}
	}
	return f
}
