package serve

import (
	"fmt"
	"strings"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
)

// Router is one router of a simulated network opened by OpenRouters.
type Router struct {
	Name string
	// Driver is the router's driver; it is also its LLDP agent (LLDP).
	Driver device.Driver
	LLDP   device.LLDPAgent
	// TLVs are the organisationally specific LLDP TLVs the topology gives
	// the router: an agent advertises its own next to them, so that the
	// lab's markers survive.
	TLVs []device.LLDPTLV
}

// OpenRouters builds the simulated network of topo without serving it and
// returns its routers, in topology order, with the function that closes
// the network: the routers `netmcp lab agents` runs a collaboration agent
// on, in one process so that they share one network model.
func OpenRouters(topo topology.Topology) ([]Router, func() error, error) {
	lab, err := sim.NewLab(topo, sim.LabOptions{})
	if err != nil {
		return nil, nil, err
	}
	var out []Router
	for _, name := range lab.Routers() {
		drv, err := lab.Device(name)
		if err != nil {
			return nil, nil, fmt.Errorf("%w (closing the lab: %v)", err, lab.Close())
		}
		tlvs, err := topologyTLVs(topo, name)
		if err != nil {
			return nil, nil, fmt.Errorf("%w (closing the lab: %v)", err, lab.Close())
		}
		out = append(out, Router{Name: name, Driver: drv, LLDP: drv, TLVs: tlvs})
	}
	return out, lab.Close, nil
}

// DeviceTLVs are the custom LLDP TLVs a sim:// device (of topologyFile,
// or of the built-in lab) advertises besides its agent's; none for a
// device of another scheme.
func DeviceTLVs(deviceURL, topologyFile string) ([]device.LLDPTLV, error) {
	name, isSim := strings.CutPrefix(deviceURL, "sim://")
	if !isSim {
		return nil, nil
	}
	t, err := LoadTopology(topologyFile)
	if err != nil {
		return nil, err
	}
	return topologyTLVs(t, name)
}

// topologyTLVs are the organisationally specific TLVs the topology gives
// device name.
func topologyTLVs(t topology.Topology, name string) ([]device.LLDPTLV, error) {
	var out []device.LLDPTLV
	for _, dv := range t.Devices {
		if dv.Name != name || dv.LLDP == nil {
			continue
		}
		for _, c := range dv.LLDP.CustomTLVs {
			p, err := netsim.ParseLLDPTLV(c)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			out = append(out, device.LLDPTLV{OUI: p.OUI, Subtype: p.Subtype, Value: p.Value})
		}
	}
	return out, nil
}
