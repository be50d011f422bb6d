package serve

import (
	"fmt"
	"strings"

	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
)

// FaultHelp lists the fault names, their targets and parameters, for a
// command's help.
func FaultHelp() string {
	var b strings.Builder
	b.WriteString("Faults are written NAME TARGET [key=value ...], NAME one of the NIKA benchmark's fault names:\n")
	for _, s := range topology.Catalog {
		var keys []string
		for _, p := range s.Params {
			k := p.Key
			if p.Default != "" {
				k += "=" + p.Default
			}
			keys = append(keys, k)
		}
		tg := make([]string, len(s.Targets))
		for i, t := range s.Targets {
			tg[i] = map[topology.TargetKind]string{topology.TargetDevice: "DEVICE", topology.TargetInterface: "DEVICE:IF", topology.TargetLink: "DEVICE:IF"}[t]
		}
		fmt.Fprintf(&b, "  %s %s %s\n", s.Name, strings.Join(tg, "|"), strings.Join(keys, " "))
	}
	return b.String()
}

// ParseFaults parses the words of `lab up --fault` and checks them against
// the topology (names, targets, parameters) and, for a real lab, against
// the faults it builds: an error here comes before anything starts.
func ParseFaults(topo topology.Topology, words []string, realLab bool) ([]topology.Fault, error) {
	var out []topology.Fault
	for _, w := range words {
		f, err := topology.ParseFault(w)
		if err != nil {
			return nil, fmt.Errorf("--fault: %w", err)
		}
		if err := netsim.CheckFault(&topo, f); err != nil {
			return nil, fmt.Errorf("--fault %q: %w", w, err)
		}
		if realLab {
			if err := checkRealFault(f); err != nil {
				return nil, err
			}
		}
		out = append(out, f)
	}
	return out, nil
}
