//go:build linux

package real

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/lab/fault"
	"github.com/netmcp/netmcp/lab/topology"
)

// The real lab's faults are bound in the fault registry by kind, in
// faults_acl.go, faults_link.go, faults_routing.go, faults_host.go,
// faults_dns.go and faults_crash.go; this file dispatches through it and
// holds what the kinds share.

// realFaults binds the catalog's names to the real lab's Apply and Clear.
var realFaults = registerFaults()

// registerFaults creates the real lab's backend of the fault registry and
// binds each kind's faults into it.
func registerFaults() *fault.Backend[*Lab] {
	b := fault.NewBackend[*Lab](fault.Real, "the real lab")
	for _, register := range []func(*fault.Backend[*Lab]){
		registerACLFaults, registerLinkFaults, registerRoutingFaults, registerHostFaults, registerDNSFaults, registerCrashFaults,
	} {
		register(b)
	}
	return b
}

// RealFaults lists the fault names InjectFault builds on the real lab,
// sorted: those bound in the fault registry.
var RealFaults = realFaults.Names()

// InjectFault applies a fault of the catalog (topology.ParseFault) to the
// running lab with its binding in the fault registry: nftables rules for
// ACL faults, ip link for link and MTU faults, stopping the routing
// daemons for frr_service_down, and so on. An unknown name is refused
// naming the catalog's; a name the real lab does not build yet, naming
// those it builds.
func (l *Lab) InjectFault(ctx context.Context, f topology.Fault) error {
	return realFaults.Apply(ctx, l, f)
}

// ClearFault undoes InjectFault.
func (l *Lab) ClearFault(ctx context.Context, f topology.Fault) error {
	return realFaults.Clear(ctx, l, f)
}

// ConfigFault tells whether the real lab makes fault name as a change of
// a device's configuration (vtysh, or a host's addresses and routes)
// rather than a runtime condition (nftables, link state, daemons).
func ConfigFault(name string) bool {
	impl, err := realFaults.Lookup(name)
	return err == nil && impl.Config
}

// onOff binds a fault made by one method that injects it (on) or clears
// it (not on).
func onOff(m func(l *Lab, ctx context.Context, f topology.Fault, on bool) error) fault.Impl[*Lab] {
	return fault.Impl[*Lab]{
		Apply: func(l *Lab, ctx context.Context, f topology.Fault) error { return m(l, ctx, f, true) },
		Clear: func(l *Lab, ctx context.Context, f topology.Fault) error { return m(l, ctx, f, false) },
	}
}

// configured is impl marked as a configuration fault (fault.Impl.Config).
func configured(impl fault.Impl[*Lab]) fault.Impl[*Lab] {
	impl.Config = true
	return impl
}

// target resolves an interface or link-end target.
func (l *Lab) target(f topology.Fault) (*planDevice, *planIface, error) {
	dn, in, ok := topology.SplitEnd(f.Target)
	if !ok {
		return nil, nil, fmt.Errorf("%s: target %q is not device:interface", f.Name, f.Target)
	}
	d, ok := l.plan.Device(dn)
	if !ok {
		return nil, nil, fmt.Errorf("%s: no device %s in the lab", f.Name, dn)
	}
	i, ok := d.Iface(in)
	if !ok {
		return nil, nil, fmt.Errorf("%s: %s has no interface %s", f.Name, dn, in)
	}
	return d, i, nil
}

// device resolves a device target.
func (l *Lab) device(f topology.Fault) (*planDevice, error) {
	d, ok := l.plan.Device(f.Target)
	if !ok {
		return nil, fmt.Errorf("%s: no device %s in the lab", f.Name, f.Target)
	}
	return d, nil
}

// router resolves a device target that must be a router running proto
// ("ospf", "bgp").
func (l *Lab) router(f topology.Fault, proto string) (*planDevice, error) {
	d, err := l.device(f)
	if err != nil {
		return nil, err
	}
	if !d.Router() || (proto == "bgp" && d.Dev.BGP == nil) || (proto == "ospf" && d.Dev.OSPF == nil) {
		return nil, fmt.Errorf("%s: %s is not a router running %s", f.Name, f.Target, strings.ToUpper(proto))
	}
	return d, nil
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

// unusedAddr is an address of prefix p that no device of the plan has,
// counting down from the top of the subnet.
func unusedAddr(p netip.Prefix, pl *plan) netip.Addr {
	used := map[netip.Addr]bool{}
	for _, d := range pl.Devices {
		for _, i := range d.Ifaces {
			for _, a := range i.Addrs {
				used[a.Addr()] = true
			}
		}
	}
	if !p.Addr().Is4() {
		return p.Addr()
	}
	b := p.Masked().Addr().As4()
	base := binary.BigEndian.Uint32(b[:])
	last := base | uint32(1<<(32-p.Bits())-1) // the broadcast address
	for c := last - 1; c > base; c-- {
		var o [4]byte
		binary.BigEndian.PutUint32(o[:], c)
		if a := netip.AddrFrom4(o); !used[a] {
			return a
		}
	}
	return p.Addr()
}
