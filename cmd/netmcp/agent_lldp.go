package main

import (
	"fmt"
	"strings"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
)

// simLLDPTLVs are the organisationally specific TLVs the topology gives
// device name: the agent advertises its own next to them, so the lab's
// marker survives.
func simLLDPTLVs(t topology.Topology, name string) ([]device.LLDPTLV, error) {
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

// deviceLLDPTLVs are the custom TLVs a sim:// device of `netmcp agent`
// advertises besides the agent's (from --topology or the built-in lab).
func deviceLLDPTLVs(f agentFlags) ([]device.LLDPTLV, error) {
	name, isSim := strings.CutPrefix(f.device, "sim://")
	if !isSim {
		return nil, nil
	}
	t := sim.DefaultTopology()
	if f.topology != "" {
		var err error
		if t, err = sim.LoadTopology(f.topology); err != nil {
			return nil, err
		}
	}
	return simLLDPTLVs(t, name)
}
