package sim

import (
	"context"
	"fmt"
	"net/netip"
	"reflect"
	"slices"
	"strings"

	"github.com/netmcp/netmcp/lab/fault"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
)

// The simulator's faults, bound by kind in faults_acl.go, faults_link.go,
// faults_routing.go, faults_host.go and faults_dns.go. A runtime fault
// lives in the network model's fault list (netsim gives it its effect); a
// configuration fault is a real difference in the device's configuration
// (an ACL, an OSPF or BGP statement, an interface MTU, a host's address,
// gateway, routes, resolver or DNS zone), computed from the configuration
// the device runs and committed through it (lab_faults.go keeps the
// record of both).

// simFaults binds the catalog's names to the simulator's Apply and Clear.
var simFaults = registerFaults()

// registerFaults creates the simulator's backend of the fault registry
// and binds each kind's faults into it.
func registerFaults() *fault.Backend[*faultOp] {
	b := fault.NewBackend[*faultOp](fault.Sim, "the simulator")
	for _, register := range []func(*fault.Backend[*faultOp]){
		registerACLFaults, registerLinkFaults, registerRoutingFaults, registerHostFaults, registerDNSFaults,
	} {
		register(b)
	}
	return b
}

// faultOp is one injection or clearing under way on a lab, l.fb.mu held:
// Apply fills in the record's Kind and Devices (and, for a configuration
// fault, its Note and the configurations around it); Clear leaves in
// note what clearing did, when there is something to say.
type faultOp struct {
	l    *Lab
	rec  *faultRec
	note string
}

// runtimeFault binds a fault the network model holds in its fault list
// (netsim.IsRuntimeFault): applied by adding it to the list, cleared by
// taking it out. The older kinds of fault (no Name) are made so too.
var runtimeFault = fault.Impl[*faultOp]{Apply: (*faultOp).addRuntime, Clear: (*faultOp).removeRuntime}

// configChange makes a configuration fault on d, a copy of the
// configuration the target device runs, with net for the defaults derived
// from the neighbours: it returns the configuration with the fault made
// and a note on what it did; where begins its errors.
type configChange func(net *netsim.Network, d topology.Device, f topology.Fault, where string) (topology.Device, string, error)

// configFault binds a configuration fault made by change: applied as a
// commit of the changed configuration, cleared by undoing the change.
func configFault(change configChange) fault.Impl[*faultOp] {
	return fault.Impl[*faultOp]{
		Apply:  func(op *faultOp, _ context.Context, f topology.Fault) error { return op.applyConfig(f, change) },
		Clear:  func(op *faultOp, _ context.Context, _ topology.Fault) error { return op.undoConfig() },
		Config: true,
	}
}

// addRuntime adds f to the model's fault list.
func (op *faultOp) addRuntime(_ context.Context, f topology.Fault) error {
	l, rec := op.l, op.rec
	l.mu.Lock()
	err := l.net.SetFaults(append(l.net.Faults(), f))
	if err == nil {
		l.logFault(f, true)
		l.diffStates(false)
	}
	l.mu.Unlock()
	if err != nil {
		return fmt.Errorf("sim: fault %s: %w", rec.Words, err)
	}
	rec.Kind, rec.Devices = FaultRuntime, l.faultDevices(f)
	l.scheduleTimedLocked()
	return nil
}

// removeRuntime takes the record's fault out of the model's fault list.
func (op *faultOp) removeRuntime(context.Context, topology.Fault) error {
	l, rec := op.l, op.rec
	l.mu.Lock()
	defer l.mu.Unlock()
	faults := l.net.Faults()
	j := slices.IndexFunc(faults, func(f topology.Fault) bool { return reflect.DeepEqual(f, rec.Fault) })
	if j < 0 {
		op.note = "already gone from the model"
		return nil
	}
	if err := l.net.SetFaults(slices.Delete(faults, j, j+1)); err != nil {
		return fmt.Errorf("sim: clearing %s: %w", rec.Words, err)
	}
	l.logFault(rec.Fault, false)
	l.diffStates(false)
	l.scheduleTimedLocked()
	return nil
}

// applyConfig makes f on its target device's configuration with change,
// and commits it (setConfig).
func (op *faultOp) applyConfig(f topology.Fault, change configChange) error {
	l, rec := op.l, op.rec
	dev, _ := faultTarget(f)
	cur, err := l.deviceConfig(dev)
	if err != nil {
		return err
	}
	after, note, err := change(l.net, cloneDev(cur), f, "fault "+f.String())
	if err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	extra, err := l.setConfig(dev, after, "fault-injector: "+rec.Words)
	if err != nil {
		return fmt.Errorf("sim: fault %s: %w", rec.Words, err)
	}
	rec.Kind, rec.Devices, rec.before, rec.after = FaultConfig, []string{dev}, cur, after
	rec.Note = joinNotes(note, extra)
	return nil
}

// undoConfig undoes the record's configuration change: what it changed
// comes back as it was, unless it has been changed since (undoChange).
func (op *faultOp) undoConfig() error {
	l, rec := op.l, op.rec
	dev := rec.Devices[0]
	cur, err := l.deviceConfig(dev)
	if err != nil {
		return err
	}
	restored, conflicts, err := undoChange(rec.before, rec.after, cur)
	if err != nil {
		return fmt.Errorf("sim: clearing %s: %w", rec.Words, err)
	}
	var notes []string
	if len(conflicts) > 0 {
		notes = append(notes, "changed since the fault, left as they are: "+strings.Join(conflicts, ", "))
	}
	if sameDevice(restored, cur) {
		notes = append(notes, "nothing to restore")
		op.note = joinNotes(notes...)
		return nil
	}
	extra, err := l.setConfig(dev, restored, "fault-injector: clear "+rec.Words)
	if err != nil {
		return fmt.Errorf("sim: clearing %s: %w", rec.Words, err)
	}
	op.note = joinNotes(append(notes, extra)...)
	return nil
}

// ifaceOf returns d's interface called name.
func ifaceOf(d *topology.Device, name, where string) (*topology.Interface, error) {
	for i := range d.Interfaces {
		if d.Interfaces[i].Name == name {
			return &d.Interfaces[i], nil
		}
	}
	return nil, fmt.Errorf("%s: %s has no interface %q", where, d.Name, name)
}

// faultTarget is what a configuration fault changes: a device and,
// optionally, one of its interfaces.
func faultTarget(f topology.Fault) (dev, ifname string) {
	if d, i, ok := topology.SplitEnd(f.Target); ok {
		return d, i
	}
	return f.Target, ""
}

// cloneDev deep-copies a device.
func cloneDev(d topology.Device) topology.Device {
	c, err := deviceOf(plainOf(d))
	if err != nil {
		panic(fmt.Sprintf("sim: copying device %s: %v", d.Name, err))
	}
	return c
}

// peerOf returns the device and interface at the other end of dev:ifn's link.
func peerOf(net *netsim.Network, dev, ifn string) (string, string, bool) {
	end := dev + ":" + ifn
	for _, l := range net.Links() {
		other := ""
		switch end {
		case l.A:
			other = l.B
		case l.B:
			other = l.A
		default:
			continue
		}
		return topology.SplitEnd(other)
	}
	return "", "", false
}

// usedAddrs is every address configured anywhere in the network.
func usedAddrs(net *netsim.Network) map[netip.Addr]bool {
	used := map[netip.Addr]bool{}
	for _, name := range net.DeviceNames() {
		d, _ := net.Device(name)
		for _, it := range d.Interfaces {
			for _, a := range it.Addresses {
				if p, err := netip.ParsePrefix(a); err == nil {
					used[p.Addr()] = true
				}
			}
		}
	}
	return used
}

// unusedIn returns the highest host address of p that no device uses.
func unusedIn(net *netsim.Network, p netip.Prefix) (netip.Addr, bool) {
	used := usedAddrs(net)
	p = p.Masked()
	if !p.Addr().Is4() || p.Bits() > 30 {
		return netip.Addr{}, false
	}
	b := p.Addr().As4()
	n := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	size := uint32(1) << (32 - p.Bits())
	for x := n + size - 2; x > n; x-- {
		a := netip.AddrFrom4([4]byte{byte(x >> 24), byte(x >> 16), byte(x >> 8), byte(x)})
		if !used[a] {
			return a, true
		}
	}
	return netip.Addr{}, false
}
