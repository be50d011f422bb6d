package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/device/sim"
	"github.com/netmcp/netmcp/device/sim/topology"
	"github.com/netmcp/netmcp/inventory"
)

// askLab is the in-process lab of `netmcp ask --lab`: every router served
// over Streamable HTTP on a loopback port, as `netmcp lab up` does.
type askLab struct {
	rl   *runningLab
	topo topology.Topology
	// hosts are the topology's hosts as intended, before any fault: what
	// an operator knows of them.
	hosts []controller.Host
	inv   *inventory.Inventory
}

// startAskLab starts the lab of topo broken by the faults (words of
// topology.ParseFault). Each fault is injected with Lab.InjectFault;
// one the simulator does not model yet is injected by its older kind
// (controller.LegacyFault) or, being a configuration difference, written
// into the topology before the lab starts (controller.ConfigFault); one
// with neither is an error. What was done is told on progress.
func startAskLab(ctx context.Context, topo topology.Topology, words []string, progress io.Writer) (*askLab, error) {
	hosts := controller.HostsOf(topo)
	var faults []topology.Fault
	for _, w := range words {
		f, err := topology.ParseFault(w)
		if err != nil {
			return nil, err
		}
		faults = append(faults, f)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	rl, err := startLab(ctx, topo, sim.LabOptions{}, 0, logger)
	if err != nil {
		return nil, err
	}
	var later, native []topology.Fault
	reconfigured := false
	for _, f := range faults {
		err := rl.lab.InjectFault(f)
		if err == nil {
			native = append(native, f)
			fmt.Fprintf(progress, "lab: fault %s injected\n", f)
			continue
		}
		if lf, ok := controller.LegacyFault(f); ok {
			if e := rl.lab.InjectFault(lf); e != nil {
				_ = rl.stop()
				return nil, fmt.Errorf("fault %s: %w", f, e)
			}
			later = append(later, lf)
			fmt.Fprintf(progress, "lab: fault %s injected as the simulator's %s fault (it does not model the name yet)\n", f, lf.Kind)
			continue
		}
		ok, cerr := controller.ConfigFault(&topo, f)
		if cerr != nil || !ok {
			_ = rl.stop()
			return nil, fmt.Errorf("fault %s: the simulator rejects it (%v) and it has no fallback", f, err)
		}
		reconfigured = true
		fmt.Fprintf(progress, "lab: fault %s written into the configuration (the simulator does not model the name yet)\n", f)
	}
	if reconfigured {
		if err := rl.stop(); err != nil {
			return nil, err
		}
		if rl, err = startLab(ctx, topo, sim.LabOptions{}, 0, logger); err != nil {
			return nil, err
		}
		for _, f := range append(native, later...) {
			if err := rl.lab.InjectFault(f); err != nil {
				_ = rl.stop()
				return nil, fmt.Errorf("fault %s: %w", f, err)
			}
		}
	}
	inv := &inventory.Inventory{Name: topo.Name}
	for _, name := range rl.lab.Routers() {
		inv.Devices = append(inv.Devices, inventory.Device{Name: name, URL: rl.urls[name], Device: "sim://" + name})
	}
	return &askLab{rl: rl, topo: topo, hosts: hosts, inv: inv}, nil
}

func (l *askLab) stop() error { return l.rl.stop() }
