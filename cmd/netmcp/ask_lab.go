package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
)

// askLab is the in-process lab of `netmcp ask --lab`: every router and
// host served over Streamable HTTP on a loopback port, as `netmcp lab up`
// does.
type askLab struct {
	rl   *runningLab
	topo topology.Topology
	// hosts are the topology's hosts as intended, before any fault: what
	// an operator knows of them.
	hosts []controller.Host
	inv   *inventory.Inventory
}

// startAskLab starts the lab of topo broken by the faults (words of
// topology.ParseFault, as `netmcp lab up --fault` takes them), each
// injected by name with Lab.Inject; what was done is told on progress.
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
	for _, f := range faults {
		af, err := rl.lab.Inject(f)
		if err != nil {
			_ = rl.stop()
			return nil, fmt.Errorf("fault %s: %w", f, err)
		}
		fmt.Fprintf(progress, "lab: fault %s injected (%s, on %v)\n", f, af.Kind, af.Devices)
	}
	inv := &inventory.Inventory{Name: topo.Name}
	for _, name := range rl.lab.Routers() {
		inv.Devices = append(inv.Devices, inventory.Device{Name: name, URL: rl.urls[name], Device: "sim://" + name})
	}
	for _, name := range rl.lab.Hosts() {
		inv.Devices = append(inv.Devices, inventory.Device{Name: name, URL: rl.urls[name], Device: "sim://" + name, Role: controller.RoleHost, Dialect: sim.DialectLinux})
	}
	return &askLab{rl: rl, topo: topo, hosts: hosts, inv: inv}, nil
}

func (l *askLab) stop() error { return l.rl.stop() }

// fleetOf returns the fleet a controller command works on: the lab of
// --lab (TOPOLOGY, or labBuiltin for the built-in one) started in-process
// with faults, or the inventory file. stop releases the lab (a no-op for an
// inventory). Hosts and domains are the lab topology's, or those the
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
	topo, err := loadTopology(file)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	l, err := startAskLab(ctx, topo, faults, progress)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return l.inv, l.hosts, controller.DomainsOf(topo), func() { _ = l.stop() }, nil
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

// topologyAddrs are a device's addresses in the topology (CIDR), the
// inventory's Addresses of a lab's host.
func topologyAddrs(topo topology.Topology, name string) []string {
	var out []string
	for _, d := range topo.Devices {
		if d.Name == name {
			for _, it := range d.Interfaces {
				out = append(out, it.Addresses...)
			}
		}
	}
	return out
}
