//go:build linux

package twin

import (
	"net/netip"
	"strings"

	"github.com/netmcp/netmcp/lab/topology"
)

// Env is what the comparison derives from the topology: the routers, the
// probe destinations, and the address space of VRFs (which the real lab
// does not build: known difference "vrf-global").
type Env struct {
	Topology topology.Topology
	// Routers are the devices running routing protocols, in topology order.
	Routers []string
	// Loopbacks maps a router to the IPv4 address of its first loopback
	// in the global table (the probes' destination for that router).
	Loopbacks map[string]netip.Addr
	// Hosts maps a host to its first IPv4 address.
	Hosts map[string]netip.Addr
	// HostOrder lists the hosts in topology order.
	HostOrder []string
	// VRFPrefixes are the subnets of interfaces in a VRF.
	VRFPrefixes []netip.Prefix
	// Faults are the faults of the scenario compared (none for the baseline).
	Faults []topology.Fault
	// Owners maps every IPv4 address of the topology to its device.
	Owners map[netip.Addr]string
	// SimRoutes are the simulator's route facts of the scenario compared
	// (nil: unknown), against which a traceroute's path is checked.
	SimRoutes Facts
}

// WithFaults returns a copy of e for a scenario with faults.
func (e *Env) WithFaults(faults ...topology.Fault) *Env {
	c := *e
	c.Faults = faults
	return &c
}

// withSimRoutes returns a copy of e knowing the simulator's route facts
// (the routes among facts).
func (e *Env) withSimRoutes(facts Facts) *Env {
	c := *e
	c.SimRoutes = facts.Only(KindRoute)
	return &c
}

// NewEnv derives an Env from a topology.
func NewEnv(topo topology.Topology) *Env {
	e := &Env{Topology: topo, Loopbacks: map[string]netip.Addr{}, Hosts: map[string]netip.Addr{}, Owners: map[netip.Addr]string{}}
	for _, d := range topo.Devices {
		for _, i := range d.Interfaces {
			for _, s := range i.Addresses {
				if p, err := netip.ParsePrefix(s); err == nil && p.Addr().Is4() {
					e.Owners[p.Addr()] = d.Name
				}
			}
		}
		if d.Kind == topology.KindHost {
			if a, ok := firstV4(d.Interfaces, false); ok {
				e.Hosts[d.Name] = a
				e.HostOrder = append(e.HostOrder, d.Name)
			}
			continue
		}
		e.Routers = append(e.Routers, d.Name)
		if a, ok := firstV4(d.Interfaces, true); ok {
			e.Loopbacks[d.Name] = a
		}
		for _, i := range d.Interfaces {
			if i.VRF == "" {
				continue
			}
			for _, s := range i.Addresses {
				if p, err := netip.ParsePrefix(s); err == nil && p.Addr().Is4() {
					e.VRFPrefixes = append(e.VRFPrefixes, p.Masked())
				}
			}
		}
	}
	return e
}

// firstV4 is the first IPv4 address of the global table's loopbacks
// (loopback true) or of any interface.
func firstV4(ifs []topology.Interface, loopback bool) (netip.Addr, bool) {
	for _, i := range ifs {
		if i.VRF != "" || loopback && i.Type != "softwareLoopback" {
			continue
		}
		for _, s := range i.Addresses {
			if p, err := netip.ParsePrefix(s); err == nil && p.Addr().Is4() {
				return p.Addr(), true
			}
		}
	}
	return netip.Addr{}, false
}

// Probe is one ping and traceroute of the check.
type Probe struct {
	From string
	To   netip.Addr
}

// Probes lists every router to every other router's loopback, then every
// router to every host.
func (e *Env) Probes() []Probe {
	var out []Probe
	for _, a := range e.Routers {
		for _, b := range e.Routers {
			if lb, ok := e.Loopbacks[b]; ok && a != b {
				out = append(out, Probe{From: a, To: lb})
			}
		}
		for _, h := range e.HostOrder {
			out = append(out, Probe{From: a, To: e.Hosts[h]})
		}
	}
	return out
}

// inVRF tells whether an address or prefix ("10.0.0.5", "10.0.0.0/24")
// lies in a VRF's subnet.
func (e *Env) inVRF(s string) bool {
	s = strings.TrimSpace(s)
	if p, err := netip.ParsePrefix(s); err == nil {
		for _, v := range e.VRFPrefixes {
			if v.Overlaps(p) && p.Bits() >= v.Bits() {
				return true
			}
		}
		return false
	}
	if a, err := netip.ParseAddr(s); err == nil {
		for _, v := range e.VRFPrefixes {
			if v.Contains(a) {
				return true
			}
		}
	}
	return false
}
