package score

import (
	"slices"

	"github.com/netmcp/netmcp/lab/topology"
)

// FaultDevices returns the devices a named fault concerns, the ground
// truth of NIKA's localization: both ends of a link for a link fault (and
// for link_down, which takes both ends down), the device otherwise.
func FaultDevices(topo topology.Topology, f topology.Fault) []string {
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
	slices.Sort(out)
	return slices.Compact(out)
}
