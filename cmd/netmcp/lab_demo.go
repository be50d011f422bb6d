package main

import (
	"errors"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/lab/serve"
)

// newLabDemoCmd builds "netmcp lab demo".
func newLabDemoCmd() *cobra.Command {
	var topoFile string
	var o serve.DemoOptions
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Walk through MCP-NET section 8 against an in-process lab, as an MCP client",
		Long: "Start the simulated lab in this process (as `netmcp lab up` does, on free 127.0.0.1 ports), connect to r1\n" +
			"as an MCP client over Streamable HTTP and run MCP-NET section 8 step by step: initialize, read an\n" +
			"interface, the ping-failure runbook, an injected fault diagnosed, a YANG edit with a confirmed commit\n" +
			"through the approval gate, a syslog subscription, and a graceful close. Then stop the lab.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			topo, err := serve.LoadTopology(topoFile)
			if err != nil {
				return withExit(2, err)
			}
			o.Topology, o.Out, o.Version = topo, cmd.OutOrStdout(), version
			o.Logger = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelError}))
			err = serve.Demo(cmd.Context(), o)
			if se := (*serve.StartError)(nil); errors.As(err, &se) {
				return withExit(2, err)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&topoFile, "topology", "", "topology YAML (default: the built-in lab; the demo expects its device names)")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print one JSON object per step instead of text")
	cmd.Flags().BoolVar(&o.NoElicitation, "no-elicitation", false, "do not advertise elicitation: approve changes with the refusal's approvalToken instead")
	return cmd
}
