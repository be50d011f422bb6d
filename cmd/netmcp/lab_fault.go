package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
)

// faultHelp lists the fault names for the commands' help.
func faultHelp() string {
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

// labFaults parses the --fault flags of `lab up` and checks them against
// the topology (names, targets, parameters): an error here comes before
// anything starts.
func labFaults(topo topology.Topology, words []string) ([]topology.Fault, error) {
	var out []topology.Fault
	for _, w := range words {
		f, err := topology.ParseFault(w)
		if err != nil {
			return nil, fmt.Errorf("--fault: %w", err)
		}
		if err := netsim.CheckFault(&topo, f); err != nil {
			return nil, fmt.Errorf("--fault %q: %w", w, err)
		}
		out = append(out, f)
	}
	return out, nil
}

// writeLabInventory writes the inventory of a running lab (devices, MCP
// URLs, dialects) in dir and returns its path. The lab's servers take no
// credentials (loopback only), so the entries name none.
func writeLabInventory(dir string, topo topology.Topology, rl *runningLab) (string, error) {
	inv := &inventory.Inventory{Name: topo.Name, Domains: controller.DomainsOf(topo)}
	for _, name := range rl.lab.Routers() {
		drv, _ := rl.lab.Device(name)
		inv.Devices = append(inv.Devices, inventory.Device{Name: name, URL: rl.urls[name], Device: "sim://" + name,
			Dialect: drv.Info().CLIDialect})
	}
	for _, name := range rl.lab.Hosts() {
		inv.Devices = append(inv.Devices, inventory.Device{Name: name, URL: rl.urls[name], Device: "sim://" + name, Dialect: sim.DialectLinux, Role: "host",
			Addresses: topologyAddrs(topo, name)})
	}
	file := filepath.Join(dir, "inventory.yaml")
	if err := inventory.Save(file, inv); err != nil {
		return "", err
	}
	return file, nil
}

// newLabFaultCmd builds `netmcp lab fault add|clear|list`.
func newLabFaultCmd() *cobra.Command {
	var stateDir string
	cmd := &cobra.Command{
		Use:   "fault",
		Short: "Inject, clear and list faults in a running lab",
		Long: "Change a lab started by `netmcp lab up` through its control endpoint (127.0.0.1, a token in\n" +
			"the lab's state directory; give the same --state-dir as lab up).\n\n" + faultHelp(),
	}
	cmd.PersistentFlags().StringVar(&stateDir, "state-dir", "", "the lab's state directory (default $XDG_STATE_HOME/netmcp/lab)")
	client := func() (*controlClient, error) {
		dir, err := labStateDir(stateDir)
		if err != nil {
			return nil, err
		}
		return dialControl(dir)
	}
	var asJSON bool
	show := func(w io.Writer, faults []sim.ActiveFault) error {
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
	add := &cobra.Command{
		Use:   "add NAME TARGET [key=value ...]",
		Short: "Inject a fault (its words, quoted or not)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			words := strings.Join(args, " ")
			if _, err := topology.ParseFault(words); err != nil {
				return withExit(2, err)
			}
			c, err := client()
			if err != nil {
				return withExit(2, err)
			}
			got, err := c.do(cmd.Context(), "POST", "/v1/faults", faultRequest{Fault: words})
			if err != nil {
				return err
			}
			return show(cmd.OutOrStdout(), got)
		},
	}
	var all bool
	clearCmd := &cobra.Command{
		Use:   "clear ID|NAME TARGET [key=value ...]",
		Short: "Clear a fault, by its id (f1) or its words; --all clears every one",
		RunE: func(cmd *cobra.Command, args []string) error {
			if all == (len(args) > 0) {
				return withExit(2, fmt.Errorf("give a fault (its id or words) or --all"))
			}
			c, err := client()
			if err != nil {
				return withExit(2, err)
			}
			got, err := c.do(cmd.Context(), "POST", "/v1/faults/clear", faultRequest{Fault: strings.Join(args, " "), All: all})
			if err != nil {
				return err
			}
			return show(cmd.OutOrStdout(), got)
		},
	}
	clearCmd.Flags().BoolVar(&all, "all", false, "clear every fault")
	list := &cobra.Command{
		Use:   "list",
		Short: "List the injected faults: id, kind (config or runtime), devices, words",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := client()
			if err != nil {
				return withExit(2, err)
			}
			got, err := c.do(cmd.Context(), "GET", "/v1/faults", nil)
			if err != nil {
				return err
			}
			return show(cmd.OutOrStdout(), got)
		},
	}
	for _, c := range []*cobra.Command{add, clearCmd, list} {
		c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	}
	cmd.AddCommand(add, clearCmd, list)
	return cmd
}

// startLabControl starts the control endpoint of a running lab and writes
// its inventory, in lo.controlDir, and tells lo.notes where they are.
func startLabControl(rl *runningLab, topo topology.Topology, lo labRunOptions) (*labControl, error) {
	// The inventory first: a control file tells a lab is up and complete.
	inv, err := writeLabInventory(lo.controlDir, topo, rl)
	if err != nil {
		return nil, fmt.Errorf("lab inventory: %w", err)
	}
	ctl, err := startControl(rl.lab, lo.controlDir)
	if err != nil {
		return nil, err
	}
	if lo.notes != nil {
		fmt.Fprintf(lo.notes, "netmcp lab: inventory %s\nnetmcp lab: control endpoint %s (netmcp lab fault --state-dir %s)\n", inv, ctl.addr, lo.controlDir)
		for _, f := range rl.lab.Faults() {
			fmt.Fprintf(lo.notes, "netmcp lab: fault %s: %s (%s on %s)\n", f.ID, f.Words, f.Kind, strings.Join(f.Devices, ","))
		}
	}
	return ctl, nil
}
