//go:build linux

package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	reallab "github.com/netmcp/netmcp/lab/real"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/lab/twin"
)

// compareFlags are the flags of "lab compare".
type compareFlags struct {
	topology string
	faults   []string
	prefix   string
	all      bool
}

// newLabCompareCmd builds "netmcp lab compare": the twin check.
func newLabCompareCmd() *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "compare",
		Short: "Build the topology simulated and real (FRR in namespaces) and compare them fact by fact",
		Long: "Build the topology twice, as the simulator's model and as a real lab of FRR in Linux network\n" +
			"namespaces (needs root), with BGP timers 3/9 s in both where the topology sets none; wait for the\n" +
			"real lab to converge, then compare OSPF neighbour states, BGP session states and last-error classes,\n" +
			"the active IPv4 routes (protocol, next hops), and ping and traceroute from every router to every\n" +
			"other router's loopback and to every host. Each --fault 'NAME TARGET key=value' is then applied to\n" +
			"both labs alone, compared, and cleared (faults: " + fmt.Sprint(twin.Faults) + ").\n\n" +
			"Prints the differing facts (all facts with --all) and the counts per scenario. Exit status 0 when\n" +
			"every difference is a documented known one (docs/twin.md), 1 otherwise, 2 on errors.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCompare(cmd.Context(), f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&f.topology, "topology", "", "topology YAML (default: the built-in lab)")
	cmd.Flags().StringArrayVar(&f.faults, "fault", nil, "a fault applied to both labs, as 'NAME TARGET key=value ...' (repeatable; each is compared alone)")
	cmd.Flags().StringVar(&f.prefix, "netns-prefix", "twin-", "prefix of the real lab's namespace names")
	cmd.Flags().BoolVar(&f.all, "all", false, "print every fact, not only the differing ones")
	return cmd
}

// runCompare runs the twin check and prints its reports.
func runCompare(ctx context.Context, f compareFlags, out, errw io.Writer) error {
	if os.Geteuid() != 0 {
		return withExit(2, reallab.ErrNotRoot)
	}
	topo, err := loadTopology(f.topology)
	if err != nil {
		return withExit(2, err)
	}
	var faults []topology.Fault
	for _, s := range f.faults {
		fault, err := topology.ParseFault(s)
		if err != nil {
			return withExit(2, err)
		}
		faults = append(faults, fault)
	}
	logger := slog.New(slog.NewTextHandler(errw, &slog.HandlerOptions{Level: slog.LevelInfo}))
	reports, err := twin.Run(ctx, topo, faults, twin.Options{Prefix: f.prefix, Logger: logger})
	differ := 0
	for _, r := range reports {
		r.Print(out, f.all)
		differ += r.Differ
	}
	if err != nil {
		return withExit(2, err)
	}
	if differ > 0 {
		return withExit(1, fmt.Errorf("lab compare: %d undocumented differences between the simulated and the real lab", differ))
	}
	return nil
}
