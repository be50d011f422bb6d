//go:build linux

package serve

import (
	"context"
	"io"
	"os"

	reallab "github.com/netmcp/netmcp/lab/real"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/lab/twin"
)

// TwinFaults are the faults Compare applies to both labs.
var TwinFaults = twin.Faults

// Compare is the twin check (needs root): it builds the topology as the
// simulator's model and as a real lab of FRR in Linux namespaces, compares
// them fact by fact, healthy and then under each fault, and prints each
// scenario's report to out (also when it then fails). It returns the
// number of differences not documented as known ones (docs/twin.md).
func Compare(ctx context.Context, o CompareOptions, out io.Writer) (int, error) {
	if os.Geteuid() != 0 {
		return 0, reallab.ErrNotRoot
	}
	var faults []topology.Fault
	for _, s := range o.Faults {
		fault, err := topology.ParseFault(s)
		if err != nil {
			return 0, err
		}
		faults = append(faults, fault)
	}
	reports, err := twin.Run(ctx, o.Topology, faults, twin.Options{Prefix: o.NetnsPrefix, Logger: o.Logger})
	differ := 0
	for _, r := range reports {
		r.Print(out, o.All)
		differ += r.Differ
	}
	return differ, err
}
