package controller

import (
	"net/netip"
	"slices"

	"github.com/netmcp/netmcp/lab/topology"
)

// RoleHost is the inventory role of an end host served over MCP (a
// simulated host, sim://h3, dialect linux): the controller reads it as a
// host, not as a router of the path.
const RoleHost = "host"

// HostsOf returns the hosts of a topology with their intended addresses:
// what an operator knows of them before any fault.
func HostsOf(topo topology.Topology) []Host {
	var out []Host
	for _, d := range topo.Devices {
		if d.Kind != topology.KindHost {
			continue
		}
		h := Host{Name: d.Name}
		for _, it := range d.Interfaces {
			for _, a := range it.Addresses {
				if p, err := netip.ParsePrefix(a); err == nil {
					h.Addrs = append(h.Addrs, p.Addr())
				}
			}
		}
		out = append(out, h)
	}
	return out
}

// FaultDevices returns the devices a named fault concerns, the ground
// truth of NIKA's localization: both ends of a link for a link fault (and
// for link_down, which takes both ends down), the device otherwise.
func FaultDevices(topo topology.Topology, f topology.Fault) []string {
	dev, _, isEnd := topology.SplitEnd(f.Target)
	if !isEnd {
		return []string{f.Target}
	}
	spec, _ := topology.LookupFault(f.Name)
	if len(spec.Targets) == 0 || spec.Targets[0] != topology.TargetLink {
		return []string{dev}
	}
	out := []string{dev}
	for _, l := range topo.Links {
		switch f.Target {
		case l.A:
			d, _, _ := topology.SplitEnd(l.B)
			out = append(out, d)
		case l.B:
			d, _, _ := topology.SplitEnd(l.A)
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
