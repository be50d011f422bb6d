package suite

import (
	"slices"

	"github.com/netmcp/netmcp/lab/topology"
)

// TruthOf is the ground truth of faults injected together on topo (none:
// a healthy network), by the conventions of the package comment.
func TruthOf(topo topology.Topology, faults []topology.Fault) Truth {
	t := Truth{IsAnomaly: len(faults) > 0, FaultyDevices: []string{}, RootCauseName: []string{}}
	for _, f := range faults {
		t.FaultyDevices = append(t.FaultyDevices, faultDevices(topo, f)...)
		t.RootCauseName = append(t.RootCauseName, f.Name)
	}
	slices.Sort(t.FaultyDevices)
	slices.Sort(t.RootCauseName)
	t.FaultyDevices = slices.Compact(t.FaultyDevices)
	t.RootCauseName = slices.Compact(t.RootCauseName)
	return t
}

// faultDevices returns the devices a named fault concerns: both ends of
// the link for a fault whose usual target is a link, the target's device
// otherwise (for a conflict, the host that took the address).
func faultDevices(topo topology.Topology, f topology.Fault) []string {
	dev, _, isEnd := topology.SplitEnd(f.Target)
	if !isEnd {
		return []string{f.Target}
	}
	spec, _ := topology.LookupFault(f.Name)
	if len(spec.Targets) == 0 || spec.Targets[0] != topology.TargetLink {
		return []string{dev}
	}
	out := []string{dev}
	for _, l := range topo.Links {
		switch f.Target {
		case l.A:
			d, _, _ := topology.SplitEnd(l.B)
			out = append(out, d)
		case l.B:
			d, _, _ := topology.SplitEnd(l.A)
			out = append(out, d)
		}
	}
	return out
}
