package suite

import (
	"slices"

	"github.com/netmcp/netmcp/lab/score"
	"github.com/netmcp/netmcp/lab/topology"
)

// TruthOf is the ground truth of faults injected together on topo (none:
// a healthy network), by the conventions of the package comment: each
// fault's devices are score.FaultDevices.
func TruthOf(topo topology.Topology, faults []topology.Fault) Truth {
	t := Truth{IsAnomaly: len(faults) > 0, FaultyDevices: []string{}, RootCauseName: []string{}}
	for _, f := range faults {
		t.FaultyDevices = append(t.FaultyDevices, score.FaultDevices(topo, f)...)
		t.RootCauseName = append(t.RootCauseName, f.Name)
	}
	slices.Sort(t.FaultyDevices)
	slices.Sort(t.RootCauseName)
	t.FaultyDevices = slices.Compact(t.FaultyDevices)
	t.RootCauseName = slices.Compact(t.RootCauseName)
	return t
}

// Score is the truth as package score takes it, to score an answer
// (score.Of).
func (t Truth) Score() score.Truth {
	return score.Truth{Devices: slices.Clone(t.FaultyDevices), Names: slices.Clone(t.RootCauseName)}
}
