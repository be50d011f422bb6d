package gen

import (
	"fmt"
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
)

// Epoch is the simulated clock of the labs Verify and LabOptions start:
// a fixed time, a multiple of ten seconds, so that results repeat and a
// link_flap with its default period starts in its down phase.
var Epoch = time.Date(2025, 1, 6, 9, 0, 0, 0, time.UTC)

// LabOptions are the simulator's options for checking a generated
// network: a fixed seed and a clock stopped at Epoch.
func LabOptions() sim.LabOptions {
	return sim.LabOptions{Seed: 1, Now: func() time.Time { return Epoch }, TelemetryInterval: time.Hour}
}

// UnhealthyError is Verify's refusal of a network: the checks that failed.
type UnhealthyError struct {
	Topology string
	Problems []Result
}

func (e *UnhealthyError) Error() string {
	const show = 8
	var b strings.Builder
	fmt.Fprintf(&b, "gen: %s is not healthy: %d check(s) failed", e.Topology, len(e.Problems))
	for i, p := range e.Problems {
		if i == show {
			fmt.Fprintf(&b, "; and %d more", len(e.Problems)-show)
			break
		}
		b.WriteString("; " + p.String())
	}
	return b.String()
}

// Verify builds topo in the simulator and checks it healthy (Checker):
// the error is an *UnhealthyError naming every failed check, or the
// simulator's refusal of the topology.
func Verify(topo topology.Topology) error {
	lab, err := sim.NewLab(topo, LabOptions())
	if err != nil {
		return fmt.Errorf("gen: %s: %w", topo.Name, err)
	}
	defer lab.Close()
	if p := NewChecker(topo).Observe(lab.Network()).Problems(); len(p) > 0 {
		return &UnhealthyError{Topology: topo.Name, Problems: p}
	}
	return nil
}
