package sim

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
)

// DefaultTelemetryInterval is how often CPU and memory events fire (the
// MCP-NET draft's "updated every 30 s").
const DefaultTelemetryInterval = 30 * time.Second

// LabOptions tune a Lab.
type LabOptions struct {
	// StateDir holds one state directory per device (StateDir/<device>);
	// "" keeps everything in memory.
	StateDir string
	// Seed makes packet loss and jitter deterministic.
	Seed int64
	// TelemetryInterval is the period of EventCPU/EventMemory (default 30 s).
	TelemetryInterval time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Realtime paces diagnostics like the real tools (ping one request
	// per interval, traceroute's waits); otherwise they answer at once
	// with the simulated round-trip times.
	Realtime bool
	// CommitDelay is how long a device takes to apply a configuration (a
	// commit, a rollback) before the change is made: a real device's
	// commit takes seconds, and a client's timeouts and retries meet
	// that. Zero applies at once.
	CommitDelay time.Duration
}

// Lab is a running simulated network: the network model and one Driver per
// router or switch. Hosts are part of the model but serve no driver.
type Lab struct {
	opts LabOptions
	net  *netsim.Network

	mu      sync.Mutex // serialises model changes and the interface-state diff
	drivers map[string]*Driver
	routers []string
	last    map[string]map[string]ifSnap      // device -> interface -> last state seen
	adj     map[string]netsim.AdjacencyStatus // OSPF/BGP adjacencies last seen (adjacency_log.go)
	booting bool                              // NewLab is loading saved configurations: log nothing
	closed  bool
	// hosts serve read-only "linux" devices (host_driver.go).
	hosts     map[string]*HostDriver
	hostNames []string
	conflicts map[string]map[string]bool // router -> address conflicts logged (conflict_log.go)
	fb        faultBook                  // injected faults (lab_faults.go)
}

// ifSnap is the state of an interface as last reported in the log.
type ifSnap struct {
	admin, oper bool
}

// NewLab builds the network model from topo and opens a driver for every
// router and switch. A device whose state directory holds a configuration
// committed earlier starts from that configuration.
func NewLab(topo topology.Topology, opts LabOptions) (*Lab, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.TelemetryInterval <= 0 {
		opts.TelemetryInterval = DefaultTelemetryInterval
	}
	topo.Devices = slices.Clone(topo.Devices) // the running configurations replace them below
	for i := range topo.Devices {
		if topo.Devices[i].Kind == "" {
			topo.Devices[i].Kind = topology.KindRouter
		}
	}
	l := &Lab{opts: opts, drivers: map[string]*Driver{}, last: map[string]map[string]ifSnap{}, booting: true}
	for _, d := range topo.Devices {
		if d.Kind == topology.KindHost {
			continue
		}
		dir := ""
		if opts.StateDir != "" {
			dir = filepath.Join(opts.StateDir, d.Name)
		}
		drv, err := newDriver(l, d, dir)
		if err != nil {
			l.Close()
			return nil, err
		}
		l.drivers[d.Name] = drv
		l.routers = append(l.routers, d.Name)
	}
	// The model runs every device's running configuration (it differs
	// from the topology when a state directory kept commits): it is built
	// once, from all of them, not once per device.
	for i, d := range topo.Devices {
		if drv := l.drivers[d.Name]; drv != nil {
			dev, err := drv.runningDevice()
			if err != nil {
				l.Close()
				return nil, err
			}
			topo.Devices[i] = dev
		}
	}
	// Faults come once the devices run (lab_faults.go), after those a
	// state directory kept.
	bootList := topo.Faults
	topo.Faults = nil
	n, err := netsim.New(topo, netsim.Options{Seed: opts.Seed, Now: opts.Now})
	if err != nil {
		l.Close()
		return nil, fmt.Errorf("sim: %w", err)
	}
	l.net = n
	l.hosts, l.hostNames = newHostDrivers(l)
	l.mu.Lock()
	l.diffStates(true)
	l.booting = false
	l.mu.Unlock()
	for _, name := range l.routers {
		l.drivers[name].start()
	}
	if err := l.bootFaults(bootList); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// Device returns the driver of a router or switch.
func (l *Lab) Device(name string) (*Driver, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if d, ok := l.drivers[name]; ok {
		return d, nil
	}
	return nil, fmt.Errorf("sim: no router or switch %q in the lab (have %v)", name, l.routers)
}

// Routers lists the devices that serve MCP (routers and switches), in
// topology order.
func (l *Lab) Routers() []string { return slices.Clone(l.routers) }

// devicesNamed returns the configurations of the devices (hosts included)
// whose name is name in any case, in topology order.
func (l *Lab) devicesNamed(name string) []topology.Device {
	var out []topology.Device
	for _, n := range l.net.DeviceNames() {
		if strings.EqualFold(n, name) {
			if d, ok := l.net.Device(n); ok {
				out = append(out, d)
			}
		}
	}
	return out
}

// Network returns the network model.
func (l *Lab) Network() *netsim.Network { return l.net }

// Close closes every driver.
func (l *Lab) Close() error {
	l.stopFaults()
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	drivers := make([]*Driver, 0, len(l.drivers))
	for _, d := range l.drivers {
		drivers = append(drivers, d)
	}
	l.mu.Unlock()
	var errs []error
	for _, d := range drivers {
		errs = append(errs, d.shutdown())
	}
	return errors.Join(errs...)
}

// applyDevice reconfigures one device in the model (called from the
// device's commit) and reports the interface changes it causes.
func (l *Lab) applyDevice(dev topology.Device) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.net == nil {
		// NewLab has not built the model yet (another process sharing the
		// state directory committed meanwhile): it is built from running.
		return nil
	}
	if err := l.net.UpdateDevice(dev); err != nil {
		return err
	}
	l.diffStates(l.booting)
	return nil
}

// diffStates compares every router's interface states with those last
// seen and tells the drivers about the changes (quiet: just record them).
func (l *Lab) diffStates(quiet bool) {
	now := l.opts.Now()
	states := l.net.InterfaceStates()
	for i := 0; i < len(states); {
		dev := states[i].Device
		j := i
		for j < len(states) && states[j].Device == dev {
			j++
		}
		if drv := l.drivers[dev]; drv != nil {
			prev := l.last[dev]
			cur := make(map[string]ifSnap, j-i)
			for _, st := range states[i:j] {
				s := ifSnap{admin: st.AdminUp, oper: st.OperUp}
				cur[st.Interface] = s
				old, seen := prev[st.Interface]
				if quiet || (seen && old == s) || (!seen && !s.admin) {
					continue
				}
				drv.interfaceChanged(now, st.Interface, old, s, seen)
			}
			l.last[dev] = cur
		}
		i = j
	}
	l.logConflicts(now, quiet)
	l.diffAdjacencies(now, quiet) // OSPF and BGP: adjacency_log.go
}

// logFault writes what a device would log about a fault on its interface:
// error-rate alarms for loss, an MTU change; delay and ACL drops are silent.
func (l *Lab) logFault(f topology.Fault, injected bool) {
	f = l.loggedAs(f)
	ends := []string{f.Link, f.Interface}
	for _, lk := range l.net.Links() {
		if lk.A == f.Link || lk.B == f.Link {
			ends = append(ends, lk.A, lk.B)
		}
	}
	seen := map[string]bool{}
	for _, e := range ends {
		dev, ifn, ok := topology.SplitEnd(e)
		if !ok || seen[e] {
			continue
		}
		seen[e] = true
		if drv := l.drivers[dev]; drv != nil {
			drv.faultLogged(l.opts.Now(), f, ifn, injected)
		}
	}
}
