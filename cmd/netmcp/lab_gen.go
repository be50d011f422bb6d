package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/lab/gen"
)

// newLabGenCmd is `netmcp lab gen`: a seeded network in the lab's
// topology format, checked healthy on the simulator unless --no-verify.
func newLabGenCmd() *cobra.Command {
	var o gen.Options
	var out string
	var noVerify bool
	c := &cobra.Command{
		Use:   "gen --shape SHAPE --routers N [--seed S] [--dialect D] [-o FILE]",
		Short: "Generate a network (" + strings.Join(gen.Shapes, "|") + "), verified healthy, as topology YAML",
		Long: "Generate a network in the lab's topology format: OSPF areas, iBGP and eBGP, host LANs (some behind\n" +
			"VLAN interfaces), DNS and web servers, upstream providers. The same options give the same network.\n" +
			"It is checked healthy on the simulator first (OSPF Full, BGP Established, every host reaches every\n" +
			"service); use it with `netmcp lab up --topology FILE` or `netmcp controller ask --lab=FILE`.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			topo, err := gen.Generate(o)
			if err != nil {
				return withExit(2, err)
			}
			if !noVerify {
				if err := gen.Verify(topo); err != nil {
					return fmt.Errorf("the generated network is not healthy: %w", err)
				}
			}
			w := cmd.OutOrStdout()
			if out != "" && out != "-" {
				f, err := os.Create(out)
				if err != nil {
					return err
				}
				defer f.Close()
				w = f
			}
			if err := gen.WriteYAML(w, topo); err != nil {
				return err
			}
			fmt.Fprintln(cmd.ErrOrStderr(), gen.Summarize(topo))
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&o.Shape, "shape", "ring", "the network's shape: "+strings.Join(gen.Shapes, ", "))
	f.IntVar(&o.Routers, "routers", 6, fmt.Sprintf("the network's own routers, %d to %d (providers come on top)", gen.MinRouters, gen.MaxRouters))
	f.Int64Var(&o.Seed, "seed", 1, "the seed: the same options give the same network")
	f.StringVar(&o.Dialect, "dialect", "", "the routers' CLI dialect: "+strings.Join(gen.Dialects, ", ")+" (empty: mixed)")
	f.StringVarP(&out, "output", "o", "-", "where to write the YAML (- for standard output)")
	f.BoolVar(&noVerify, "no-verify", false, "skip the health check on the simulator")
	return c
}
