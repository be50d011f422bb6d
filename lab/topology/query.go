package topology

import "strings"

// Domains returns the DNS zones the topology's devices serve, without the
// final dot: what an operator knows of the network's names.
func (t Topology) Domains() []string {
	var out []string
	for _, d := range t.Devices {
		if d.DNS == nil {
			continue
		}
		for _, z := range d.DNS.Zones {
			out = append(out, strings.TrimSuffix(z.Name, "."))
		}
	}
	return out
}

// Addresses returns device name's addresses (CIDR), interface by
// interface: a host's addresses in an inventory.
func (t Topology) Addresses(name string) []string {
	var out []string
	for _, d := range t.Devices {
		if d.Name == name {
			for _, it := range d.Interfaces {
				out = append(out, it.Addresses...)
			}
		}
	}
	return out
}
