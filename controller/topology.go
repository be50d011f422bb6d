package controller

import (
	"net/netip"
	"strings"

	"github.com/netmcp/netmcp/lab/topology"
)

// HostsOf returns the hosts of a topology with their intended addresses:
// what an operator knows of them before any fault (Controller.Hosts).
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

// DomainsOf returns the DNS zones a topology's devices serve: what an
// operator knows of the network's names (Controller.Domains).
func DomainsOf(topo topology.Topology) []string {
	var out []string
	for _, d := range topo.Devices {
		if d.DNS == nil {
			continue
		}
		for _, z := range d.DNS.Zones {
			out = append(out, strings.TrimSuffix(z.Name, "."))
		}
	}
	return out
}
