//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/linux"
	"github.com/netmcp/netmcp/inventory"
	reallab "github.com/netmcp/netmcp/lab/real"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/transport"
)

// realLabFlags are the flags of "lab up --real".
type realLabFlags struct {
	real      bool
	inventory string
	prefix    string
	// report prints the daemons' memory after the time to converge.
	report bool
	// faults are the --fault words, injected once the lab has converged.
	faults []string
	// stateDir holds the control file (see labStateDir).
	stateDir string
}

// addRealLabFlags registers --real, --inventory and --netns-prefix on "lab up".
func addRealLabFlags(up *cobra.Command, f *realLabFlags) {
	up.Flags().BoolVar(&f.real, "real", false, "build the topology as a real network: Linux namespaces with FRR, lldpd and unbound (needs root), each router served through linux://; --fault and netmcp lab fault take the faults it builds: "+strings.Join(reallab.RealFaults, ", "))
	up.Flags().StringVar(&f.inventory, "inventory", "", "with --real: write the lab's inventory file here (default: netmcp-lab-inventory.yaml in the current directory)")
	up.Flags().StringVar(&f.prefix, "netns-prefix", "", "with --real: prefix of the namespace names (default: none, so router r1 is linux://r1)")
}

// runRealLab builds topo as a real lab, serves every router and host
// through the linux driver as its own MCP server over HTTP on 127.0.0.1,
// prints one line per device (device, dialect, URL), writes the inventory, and
// tears everything down when ctx ends.
func runRealLab(ctx context.Context, topo topology.Topology, f realLabFlags, basePort int, out, errw io.Writer) error {
	faults, err := checkRealFaults(topo, f.faults)
	if err != nil {
		return withExit(2, err)
	}
	if os.Geteuid() != 0 {
		return withExit(2, reallab.ErrNotRoot)
	}
	dir, err := labStateDir(f.stateDir)
	if err != nil {
		return withExit(2, err)
	}
	logger := slog.New(slog.NewTextHandler(errw, &slog.HandlerOptions{Level: slog.LevelInfo}))
	rl, err := startRealLab(ctx, topo, f.prefix, basePort, logger)
	if err != nil {
		return withExit(2, err)
	}
	invFile := f.inventory
	if invFile == "" {
		invFile = "netmcp-lab-inventory.yaml"
	}
	if err := inventory.Save(invFile, rl.inventory()); err != nil {
		return errors.Join(withExit(2, err), rl.stop())
	}
	fmt.Fprintf(errw, "lab: %d routers converged in %.2f s (real: namespaces and FRR); inventory in %s\n",
		len(rl.lab.Routers()), rl.lab.Converged.Seconds(), invFile)
	if f.report {
		u, err := rl.lab.Usage()
		if err != nil {
			fmt.Fprintf(errw, "lab: memory: %v\n", err)
		} else {
			fmt.Fprintf(errw, "lab: memory of the daemons: %s\n", u)
		}
	}
	ctl, _, err := startRealControl(rl, faults, dir, func(format string, a ...any) { fmt.Fprintf(errw, format, a...) })
	if err != nil {
		return errors.Join(withExit(2, err), rl.stop())
	}
	for _, name := range append(rl.lab.Routers(), rl.hosts()...) {
		fmt.Fprintf(out, "%s\t%s\t%s\n", name, rl.drivers[name].Info().CLIDialect, rl.urls[name])
	}
	select {
	case <-ctx.Done():
	case <-rl.failed:
	}
	ctl.stop()
	return rl.stop()
}

// runningRealLab is a real lab whose routers are served over HTTP.
type runningRealLab struct {
	labServers
	lab     *reallab.Lab
	drivers map[string]*linux.Driver
	servers []*server.Server
	cancel  context.CancelFunc
}

// startRealLab builds the lab and starts one MCP server per device
// (routers, then hosts).
func startRealLab(ctx context.Context, topo topology.Topology, prefix string, basePort int, logger *slog.Logger) (*runningRealLab, error) {
	lab, err := reallab.Up(ctx, topo, reallab.Options{Prefix: prefix, Logger: logger})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	rl := &runningRealLab{lab: lab, drivers: map[string]*linux.Driver{}, cancel: cancel}
	rl.init()
	// The hosts too (dialect linux, read-only), after the routers' ports,
	// as the simulated lab serves them.
	for i, name := range append(lab.Routers(), rl.hosts()...) {
		if err := rl.serve(ctx, name, i, basePort, logger); err != nil {
			return nil, errors.Join(err, rl.stop())
		}
	}
	// A device a fault takes down (host_crash) answers nothing: its
	// endpoint is killed, and revived on the same address when the fault
	// is cleared.
	lab.OnDeviceState(func(_ context.Context, name string, down bool) error {
		if down {
			return rl.kill(name)
		}
		return rl.revive(name)
	})
	return rl, nil
}

// serve starts the MCP server of one device. Its configuration (FRR's
// and the interfaces') goes through the linux driver's configstore, with
// its state in the lab's own directory: crash-safe for the lab's life,
// and gone with the lab, whose next build starts from the topology.
func (rl *runningRealLab) serve(ctx context.Context, name string, i, basePort int, logger *slog.Logger) error {
	drv, err := linux.OpenConfig(ctx, rl.lab.Namespace(name), device.Options{StateDir: filepath.Join(rl.lab.Dir(), "config", name)})
	if err != nil {
		return fmt.Errorf("device %s: %w", name, err)
	}
	rl.drivers[name] = drv
	srv, err := server.New(drv, server.Options{Version: version, Logger: logger.With("device", name)})
	if err != nil {
		return fmt.Errorf("device %s: %w", name, err)
	}
	rl.servers = append(rl.servers, srv)
	return rl.listenDevice(ctx, name, i, basePort, func() http.Handler {
		return transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, transport.HTTPOptions{Logger: logger})
	})
}

// hosts lists the lab's devices that are not routers, in topology order.
func (rl *runningRealLab) hosts() []string {
	var out []string
	routers := rl.lab.Routers()
	for _, name := range rl.lab.Devices() {
		if !slices.Contains(routers, name) {
			out = append(out, name)
		}
	}
	return out
}

// inventory lists the routers, then the hosts (role host, with the
// topology's addresses), with their MCP endpoints.
func (rl *runningRealLab) inventory() *inventory.Inventory {
	inv := &inventory.Inventory{Name: rl.lab.Topology().Name, Domains: controller.DomainsOf(rl.lab.Topology())}
	for _, name := range rl.lab.Routers() {
		inv.Devices = append(inv.Devices, inventory.Device{Name: name, URL: rl.urls[name],
			Device: "linux://" + rl.lab.Namespace(name), Dialect: rl.drivers[name].Info().CLIDialect, Tags: []string{"real-lab"}})
	}
	for _, name := range rl.hosts() {
		inv.Devices = append(inv.Devices, inventory.Device{Name: name, URL: rl.urls[name], Device: "linux://" + rl.lab.Namespace(name),
			Dialect: rl.drivers[name].Info().CLIDialect, Role: controller.RoleHost, Tags: []string{"real-lab"},
			Addresses: topologyAddrs(rl.lab.Topology(), name)})
	}
	return inv
}

// stop shuts the servers down and tears the lab down.
func (rl *runningRealLab) stop() error {
	rl.cancel()
	errs := rl.wait()
	for _, s := range rl.servers {
		_ = s.Close()
	}
	return errors.Join(append(errs, rl.lab.Close())...)
}
