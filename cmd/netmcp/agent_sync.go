package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/agent"
)

// reportPusher is the agent's report pusher for --controller-mcp (nil
// without one): its outbox is in the state directory.
func reportPusher(controllerMCP, stateDir string) *agent.ReportPusher {
	if controllerMCP == "" {
		return nil
	}
	return &agent.ReportPusher{Endpoint: controllerMCP, Dir: filepath.Join(stateDir, agent.OutboxDir)}
}

// newAgentSyncCmd builds "netmcp agent sync": push the reports queued on
// the device to the controller.
func newAgentSyncCmd() *cobra.Command {
	var stateDir, controllerMCP string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "sync --state-dir DIR --controller-mcp URL",
		Short: "Push the D2D reports kept on the device (the controller was unreachable) to the controller",
		Long: "Push every report in the agent's outbox (<state-dir>/" + agent.OutboxDir + ") to the controller's submit_report,\n" +
			"oldest first. A pushed report leaves the outbox; a refused one stays, with the controller's reason.\n" +
			"Exit status 1 when the controller is unreachable or refused any.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if stateDir == "" || controllerMCP == "" {
				return withExit(2, errors.New("agent sync needs --state-dir and --controller-mcp"))
			}
			if _, err := os.Stat(stateDir); err != nil {
				return withExit(2, err)
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			res, err := reportPusher(controllerMCP, stateDir).Flush(ctx)
			out := cmd.OutOrStdout()
			for _, id := range res.Pushed {
				fmt.Fprintf(out, "pushed %s\n", id)
			}
			for id, why := range res.Refused {
				fmt.Fprintf(out, "refused %s: %s\n", id, why)
			}
			fmt.Fprintf(out, "%d pushed, %d still queued\n", len(res.Pushed), len(res.Queued))
			if err != nil {
				return withExit(1, err)
			}
			if len(res.Refused) > 0 {
				return withExit(1, fmt.Errorf("the controller refused %d reports", len(res.Refused)))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&stateDir, "state-dir", "", "the agent's state directory (netmcp agent --state-dir)")
	cmd.Flags().StringVar(&controllerMCP, "controller-mcp", "", "the controller's MCP URL, e.g. http://ctl:8080/mcp")
	cmd.Flags().DurationVar(&timeout, "timeout", time.Minute, "bound on the whole sync")
	return cmd
}
