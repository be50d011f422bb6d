package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/lab/serve"
	"github.com/netmcp/netmcp/lab/topology"
)

// newLabFaultCmd builds `netmcp lab fault add|clear|list`.
func newLabFaultCmd() *cobra.Command {
	var stateDir string
	var asJSON, all bool
	cmd := &cobra.Command{
		Use:   "fault",
		Short: "Inject, clear and list faults in a running lab",
		Long: "Change a lab started by `netmcp lab up` through its control endpoint (127.0.0.1, a token in\n" +
			"the lab's state directory; give the same --state-dir as lab up).\n\n" + serve.FaultHelp(),
	}
	cmd.PersistentFlags().StringVar(&stateDir, "state-dir", "", "the lab's state directory (default $XDG_STATE_HOME/netmcp/lab)")
	// run dials the lab and prints what op returns.
	run := func(cmd *cobra.Command, op func(*serve.Control) ([]serve.ActiveFault, error)) error {
		dir, err := serve.StateDir(stateDir)
		if err != nil {
			return withExit(2, err)
		}
		c, err := serve.Dial(dir)
		if err != nil {
			return withExit(2, err)
		}
		got, err := op(c)
		if err != nil {
			return err
		}
		return showFaults(cmd.OutOrStdout(), got, asJSON)
	}
	add := &cobra.Command{
		Use:   "add NAME TARGET [key=value ...]",
		Short: "Inject a fault (its words, quoted or not)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			words := strings.Join(args, " ")
			if _, err := topology.ParseFault(words); err != nil {
				return withExit(2, err)
			}
			return run(cmd, func(c *serve.Control) ([]serve.ActiveFault, error) { return c.Add(cmd.Context(), words) })
		},
	}
	clearCmd := &cobra.Command{
		Use:   "clear (ID | NAME TARGET [key=value ...] | --all)",
		Short: "Clear a fault, by its id (f1) or its words; --all clears every one",
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case all && len(args) > 0:
				return withExit(2, errors.New("give a fault (its id or words) or --all, not both"))
			case all:
				return run(cmd, func(c *serve.Control) ([]serve.ActiveFault, error) { return c.ClearAll(cmd.Context()) })
			case len(args) == 0:
				return withExit(2, errors.New("name the fault to clear (its id or words, see `netmcp lab fault list`), or clear every one with --all"))
			}
			return run(cmd, func(c *serve.Control) ([]serve.ActiveFault, error) {
				return c.Clear(cmd.Context(), strings.Join(args, " "))
			})
		},
	}
	clearCmd.Flags().BoolVar(&all, "all", false, "clear every fault")
	list := &cobra.Command{
		Use:   "list",
		Short: "List the injected faults: id, kind (config or runtime), devices, words",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd, func(c *serve.Control) ([]serve.ActiveFault, error) { return c.List(cmd.Context()) })
		},
	}
	for _, c := range []*cobra.Command{add, clearCmd, list} {
		c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	}
	cmd.AddCommand(add, clearCmd, list)
	return cmd
}

// showFaults prints faults as a table, or as JSON.
func showFaults(w io.Writer, faults []serve.ActiveFault, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(faults)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tDEVICES\tFAULT\tNOTE")
	for _, f := range faults {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.ID, f.Kind, strings.Join(f.Devices, ","), f.Words, f.Note)
	}
	return tw.Flush()
}
