package main

import (
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/lab/serve"
)

// newLabCompareCmd builds "netmcp lab compare": the twin check.
func newLabCompareCmd() *cobra.Command {
	var topoFile string
	var o serve.CompareOptions
	cmd := &cobra.Command{
		Use:   "compare",
		Short: "Build the topology simulated and real (FRR in namespaces) and compare them fact by fact",
		Long: "Build the topology twice, as the simulator's model and as a real lab of FRR in Linux network\n" +
			"namespaces (needs root), with BGP timers 3/9 s in both where the topology sets none; wait for the\n" +
			"real lab to converge, then compare OSPF neighbour states, BGP session states and last-error classes,\n" +
			"the active IPv4 routes (protocol, next hops), and ping and traceroute from every router to every\n" +
			"other router's loopback and to every host. Each --fault 'NAME TARGET key=value' is then applied to\n" +
			"both labs alone, compared, and cleared (faults: " + fmt.Sprint(serve.TwinFaults) + ").\n\n" +
			"Prints the differing facts (all facts with --all) and the counts per scenario. Exit status 0 when\n" +
			"every difference is a documented known one (docs/twin.md), 1 otherwise, 2 on errors.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			topo, err := serve.LoadTopology(topoFile)
			if err != nil {
				return withExit(2, err)
			}
			o.Topology = topo
			o.Logger = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelInfo}))
			differ, err := serve.Compare(cmd.Context(), o, cmd.OutOrStdout())
			switch {
			case err != nil:
				return withExit(2, err)
			case differ > 0:
				return withExit(1, fmt.Errorf("lab compare: %d undocumented differences between the simulated and the real lab", differ))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&topoFile, "topology", "", "topology YAML (default: the built-in lab)")
	cmd.Flags().StringArrayVar(&o.Faults, "fault", nil, "a fault applied to both labs, as 'NAME TARGET key=value ...' (repeatable; each is compared alone)")
	cmd.Flags().StringVar(&o.NetnsPrefix, "netns-prefix", "twin-", "prefix of the real lab's namespace names")
	cmd.Flags().BoolVar(&o.All, "all", false, "print every fact, not only the differing ones")
	return cmd
}
