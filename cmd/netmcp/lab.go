package main

import (
	"bufio"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/console"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/lab/serve"
)

// labUpFlags are the flags of `netmcp lab up`.
type labUpFlags struct {
	topology, grid, stateDir, inventory, prefix  string
	console, reports, role                       string
	basePort, chain                              int
	report, realtime, ssh, real, noConsole, gnmi bool
	faults, viewers                              []string
}

// newLabCmd builds "netmcp lab", which groups the lab's commands.
func newLabCmd() *cobra.Command {
	labCmd := &cobra.Command{Use: "lab", Short: "Run a network whose devices are MCP servers: simulated, or real (FRR in namespaces)"}
	var f labUpFlags
	up := &cobra.Command{
		Use:   "up",
		Short: "Start every router of the topology as its own MCP server over HTTP on 127.0.0.1",
		Long: "Start every router or switch of the topology as its own MCP-NET server (Streamable HTTP at /mcp\n" +
			"on 127.0.0.1, consecutive ports from --base-port; 0 picks free ports) and print one line per device:\n" +
			"device, CLI dialect and URL. Runs until interrupted.\n\n" +
			"--ssh also serves every router's CLI over SSH (prompts, paging, configuration mode and commit,\n" +
			"as the device's dialect has them) and adds a fourth column: the ssh:// URL for `netmcp serve\n" +
			"--device`, with the lab's client key and known_hosts (STATE-DIR/ssh).\n\n" +
			"--chain N and --grid ROWSxCOLS generate a network instead of reading one: routers r1..rN of IOS XR\n" +
			"with Loopback0 10.255.(i>>8).(i&255)/32 and /30 links running the IGP (a chain in a line; a grid\n" +
			"numbered row by row, r1 top left). --report prints to stderr how long the lab took to be ready\n" +
			"and its memory per router.\n\n" +
			"--real builds the topology as a real network instead: Linux namespaces with FRR, lldpd and unbound\n" +
			"(needs root), each device served through linux://.\n\n" +
			"--fault injects a fault at start (repeatable; also the topology's faults: list). The lab keeps a\n" +
			"control endpoint for `netmcp lab fault add|clear|list` and writes an inventory of its devices\n" +
			"(inventory.yaml) in its state directory (--state-dir, default $XDG_STATE_HOME/netmcp/lab), simulated\n" +
			"or real; both paths go to stderr. Diagnostics answer at once with simulated RTTs; --realtime paces\n" +
			"them like the real tools.\n\n" +
			"Every device answers only requests that carry the lab's bearer token (Authorization: Bearer), minted\n" +
			"at start and written 0600 to STATE-DIR/token; the inventory names that file (credentials: token-file),\n" +
			"so `netmcp controller ask|serve --inventory STATE-DIR/inventory.yaml` and the console use it. Its\n" +
			"holder may call every tool (changes still need approval) but sees secrets masked (--role lab);\n" +
			"--role admin also shows them, and allows CLI configuration of the real lab's FRR, whose lines count\n" +
			"as a write of the whole configuration, secrets included. Anything else gets 401.\n\n" +
			"The simulated lab also serves the web console (the network's map, live; an ask box whose reports go to\n" +
			"--reports; fixes applied once approved in its approvals queue; its audit log console-audit.jsonl in the\n" +
			"state directory) on a free loopback port and prints its one-time login URL after the devices\n" +
			"(console: URL); --console ADDR picks the address (with --real, it turns the console on),\n" +
			"--console=off or --no-console turns it off (docs/console.md).\n\n" + serve.FaultHelp(),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runLabUp(cmd, f) },
	}
	fl := up.Flags()
	fl.StringVar(&f.topology, "topology", "", "topology YAML (default: the built-in lab)")
	fl.IntVar(&f.chain, "chain", 0, "generate N routers in a line instead of reading a topology")
	fl.StringVar(&f.grid, "grid", "", "generate a grid of ROWSxCOLS routers (e.g. 32x32) instead of reading a topology")
	fl.BoolVar(&f.report, "report", false, "print the time to ready and the memory per router to stderr")
	fl.IntVar(&f.basePort, "base-port", 0, "first TCP port; device i listens on base-port+i (0: any free port)")
	fl.StringVar(&f.stateDir, "state-dir", "", "the lab's state directory: inventory.yaml, the devices' token, control file, SSH keys, devices' state (default $XDG_STATE_HOME/netmcp/lab)")
	fl.StringVar(&f.inventory, "inventory", "", "also write the lab's inventory to this file (it is always in STATE-DIR/inventory.yaml)")
	fl.BoolVar(&f.gnmi, "gnmi", false, "also serve every router over gNMI on 127.0.0.1, mutual TLS from the lab's CA (STATE-DIR/gnmi/ca.pem; clients present STATE-DIR/gnmi/client.pem); the inventory gives each router's gnmi:// URL")
	fl.BoolVar(&f.ssh, "ssh", false, "also serve every router's CLI over SSH on 127.0.0.1 (a fourth column: its ssh:// URL; keys in STATE-DIR/ssh)")
	realHelp := "build the topology as a real network: Linux namespaces with FRR, lldpd and unbound (needs root), each router served through linux://; --fault and netmcp lab fault take the faults it builds: " + strings.Join(serve.RealFaults, ", ")
	if serve.ErrNoRealLab != nil {
		realHelp = "build the topology as a real network: " + serve.ErrNoRealLab.Error()
	}
	fl.BoolVar(&f.real, "real", false, realHelp)
	fl.StringVar(&f.prefix, "netns-prefix", "", "with --real: prefix of the namespace names (default: none, so router r1 is linux://r1)")
	fl.StringArrayVar(&f.faults, "fault", nil, "inject a fault: 'NAME TARGET [key=value ...]' (repeatable)")
	fl.BoolVar(&f.realtime, "realtime", false, "pace diagnostics like the real tools (ping: one request per second)")
	fl.StringVar(&f.console, "console", "127.0.0.1:0", "serve the web console on this loopback address (off: none; with --real: none unless given)")
	fl.BoolVar(&f.noConsole, "no-console", false, "do not serve the web console (as --console=off)")
	fl.StringArrayVar(&f.viewers, "console-viewer", nil, "also print a one-time console login for a viewer of this name, who may look but not ask, apply or approve (repeatable)")
	fl.StringVar(&f.reports, "reports", controller.DefaultReportsDir(), "directory of the reports the console's asks save (as `controller ask --reports`)")
	fl.StringVar(&f.role, "role", serve.RoleLab, "role of the lab token's holder on every device: lab (every tool, secrets masked), admin (also secrets), operator or viewer")
	labCmd.AddCommand(up, newLabDemoCmd(), newLabFaultCmd(), newLabCompareCmd(), newLabAgentsCmd(), newLabGenCmd())
	return labCmd
}

// runLabUp is `netmcp lab up`: start the lab, print its devices, serve it
// until interrupted.
func runLabUp(cmd *cobra.Command, f labUpFlags) error {
	switch {
	case f.real && f.ssh:
		return withExit(2, fmt.Errorf("--ssh serves the simulated routers' CLI; with --real, reach the routers' vtysh through ssh:// to the namespaces instead"))
	case f.real && f.gnmi:
		return withExit(2, fmt.Errorf("--gnmi serves the simulated routers; the real lab's FRR has no gNMI server here"))
	case f.real && f.realtime:
		return withExit(2, fmt.Errorf("--realtime is for the simulated lab; the real lab runs in real time"))
	}
	topo, err := serve.LabTopology(f.topology, f.chain, f.grid, cmd.Flags().Changed("chain"))
	if err != nil {
		return withExit(2, err)
	}
	faults, err := serve.ParseFaults(topo, f.faults, f.real)
	if err != nil {
		return withExit(2, err)
	}
	dir, err := serve.StateDir(f.stateDir)
	if err != nil {
		return withExit(2, err)
	}
	level := slog.LevelWarn
	if f.real {
		level = slog.LevelInfo // the real lab's progress: namespaces, daemons, convergence
	}
	errw := cmd.ErrOrStderr()
	o := serve.Options{Topology: topo, Real: f.real, Faults: faults, BasePort: f.basePort, StateDir: dir, Inventory: f.inventory,
		SSH: f.ssh, GNMI: f.gnmi, DeviceStateDir: f.stateDir, Realtime: f.realtime, NetnsPrefix: f.prefix, Report: f.report, Notes: errw, Role: f.role,
		Logger: slog.New(slog.NewTextHandler(errw, &slog.HandlerOptions{Level: level})), Version: version}
	lab, err := serve.Up(cmd.Context(), o)
	if err != nil {
		return withExit(2, err)
	}
	var web *webConsole
	if f.console != console.Off && !f.noConsole && (!f.real || cmd.Flags().Changed("console")) {
		topo := lab.Topology()
		inv := lab.Inventory()
		web, err = serveConsole(f.console, console.Options{Inventory: inv, Topology: &topo, Logger: o.Logger}, nil, inv,
			controller.HostsOf(topo), f.reports, filepath.Join(dir, consoleAuditFile), nil)
		if err != nil {
			_ = lab.Close()
			return withExit(2, err)
		}
	}
	out := bufio.NewWriter(cmd.OutOrStdout())
	for _, d := range lab.Devices() {
		fmt.Fprintf(out, "%s\t%s\t%s", d.Name, d.Dialect, d.URL)
		if d.SSH != "" {
			fmt.Fprintf(out, "\t%s", d.SSH)
		}
		fmt.Fprintln(out)
	}
	if web != nil {
		fmt.Fprintln(out, "console:", web.console().LoginURL())
		if err := printViewerLogins(out, web.console(), "console", f.viewers); err != nil {
			_ = web.close()
			_ = lab.Close()
			return withExit(2, err)
		}
	}
	if err = out.Flush(); err == nil {
		err = lab.Wait(cmd.Context())
	} else {
		_ = lab.Close()
	}
	if web != nil {
		err = errors.Join(err, web.close())
	}
	return err
}
