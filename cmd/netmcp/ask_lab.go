package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/serve"
	"github.com/netmcp/netmcp/lab/topology"
)

// startAskLab starts the in-process lab of `--lab` (every router and host
// served over Streamable HTTP on a loopback port, as `netmcp lab up`
// does) broken by the faults (words of topology.ParseFault, as `netmcp lab
// up --fault` takes them), each injected by name; what was done is told
// on progress.
func startAskLab(ctx context.Context, topo topology.Topology, words []string, progress io.Writer) (*serve.Lab, error) {
	var faults []topology.Fault
	for _, w := range words {
		f, err := topology.ParseFault(w)
		if err != nil {
			return nil, err
		}
		faults = append(faults, f)
	}
	logger := slog.New(slog.NewTextHandler(progress, &slog.HandlerOptions{Level: slog.LevelError}))
	l, err := serve.Up(ctx, serve.Options{Topology: topo, Logger: logger, Version: version})
	if err != nil {
		return nil, err
	}
	for _, f := range faults {
		af, err := l.Inject(f)
		if err != nil {
			_ = l.Close()
			return nil, fmt.Errorf("fault %s: %w", f, err)
		}
		fmt.Fprintf(progress, "lab: fault %s injected (%s, on %v)\n", f, af.Kind, af.Devices)
	}
	return l, nil
}

// fleetOf returns the fleet a controller command works on: the lab of
// --lab (TOPOLOGY, or labBuiltin for the built-in one) started in-process
// with faults, or the inventory file. stop releases the lab (a no-op for an
// inventory). Hosts and domains are the lab topology's (as intended,
// before any fault: what an operator knows of them), or those the
// inventory gives (its hosts' addresses, its domains).
func fleetOf(ctx context.Context, lab, inventoryFile string, faults []string, progress io.Writer) (inv *inventory.Inventory, hosts []controller.Host, domains []string, stop func(), err error) {
	if lab == "" {
		inv, err = inventory.Load(inventoryFile)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		return inv, inventoryHosts(inv), inv.Domains, func() {}, nil
	}
	file := lab
	if file == labBuiltin {
		file = ""
	}
	topo, err := serve.LoadTopology(file)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	l, err := startAskLab(ctx, topo, faults, progress)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return l.Inventory(), controller.HostsOf(topo), controller.DomainsOf(topo), func() { _ = l.Close() }, nil
}

// inventoryHosts are the hosts an inventory gives addresses (role host):
// what the operator knows of them, as a lab's topology gives it
// (controller.HostsOf), so that a host that answers nothing is still
// placed on its router's LAN.
func inventoryHosts(inv *inventory.Inventory) []controller.Host {
	var out []controller.Host
	for _, d := range inv.Devices {
		if d.Role == controller.RoleHost && len(d.Addresses) > 0 {
			out = append(out, controller.Host{Name: d.Name, Addrs: d.Addrs()})
		}
	}
	return out
}
