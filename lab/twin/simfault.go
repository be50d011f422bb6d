//go:build linux

package twin

import (
	"fmt"
	"slices"

	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
)

// Faults the twin check applies to both labs: the real lab's faults whose
// symptoms the check's facts cover.
var Faults = []string{"bgp_acl_block", "frr_service_down", "icmp_acl_block", "link_down", "mtu_mismatch"}

// SimWithFault returns the simulated network of topo with a named fault
// injected once converged, as `netmcp lab fault add` injects it
// (sim.Lab.Inject: a configuration fault is a commit on the device, a
// runtime fault lives in the model). Only the names of Faults are taken.
func SimWithFault(topo topology.Topology, f topology.Fault) (*netsim.Network, error) {
	if !slices.Contains(Faults, f.Name) {
		return nil, fmt.Errorf("fault %s: the twin check applies %v", f.Name, Faults)
	}
	l, err := sim.NewLab(topo, sim.LabOptions{})
	if err != nil {
		return nil, fmt.Errorf("simulated lab: %w", err)
	}
	defer l.Close() // the network stays readable: the drivers are done with
	if dn, in, ok := topology.SplitEnd(f.Target); ok {
		// Say which end is missing before the lab's longer error.
		d, found := l.Network().Device(dn)
		if !found {
			return nil, fmt.Errorf("%s: no device %s", f.Name, dn)
		}
		if !slices.ContainsFunc(d.Interfaces, func(i topology.Interface) bool { return i.Name == in }) {
			return nil, fmt.Errorf("%s: %s has no interface %s", f.Name, dn, in)
		}
	}
	if _, err := l.Inject(f); err != nil {
		return nil, err
	}
	return l.Network(), nil
}
