package sim

import (
	"encoding/base64"
	"strconv"

	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
)

// openconfig-lldp: the agent's configuration (on or off) maps onto the
// topology's LLDP settings; its neighbours are operational state, from the
// model (docs/datamodel.md).

// lldpFromTree is the LLDP configuration of a running tree: the agent is
// on unless openconfig-lldp:lldp/config/enabled is false; the custom TLVs,
// which openconfig-lldp does not configure, stay as they were.
func lldpFromTree(tree map[string]any, base *topology.LLDP) *topology.LLDP {
	var l topology.LLDP
	if base != nil {
		l = *base
		l.CustomTLVs = append([]topology.LLDPTLV(nil), base.CustomTLVs...)
	}
	v, ok := at(tree, memLLDP, "config", "enabled").(bool)
	l.Disabled = ok && !v
	if base == nil && !l.Disabled {
		return nil
	}
	return &l
}

// ocLLDPCapability maps a capability onto openconfig-lldp-types.
var ocLLDPCapability = map[string]string{
	netsim.LLDPCapRouter:  "openconfig-lldp-types:ROUTER",
	netsim.LLDPCapBridge:  "openconfig-lldp-types:MAC_BRIDGE",
	netsim.LLDPCapStation: "openconfig-lldp-types:STATION_ONLY",
}

// addLLDP puts the LLDP agent's state and neighbours into an operational
// tree: /openconfig-lldp:lldp/interfaces/interface[name]/neighbors/
// neighbor[id] with the neighbour's chassis id as id.
func (d *Driver) addLLDP(tree map[string]any) {
	c := d.config()
	on := c.dev.LLDP == nil || !c.dev.LLDP.Disabled
	root, _ := tree[memLLDP].(map[string]any)
	if root == nil {
		root = obj{"config": obj{"enabled": on}}
	}
	st := obj{"enabled": on, "system-name": c.hostname}
	if desc := deviceDescription(c.dev); desc != "" {
		st["system-description"] = desc
	}
	if len(c.dev.Interfaces) > 0 {
		if s, err := d.lab.net.InterfaceState(d.name, c.dev.Interfaces[0].Name); err == nil {
			st["chassis-id"], st["chassis-id-type"] = s.MAC, "MAC_ADDRESS"
		}
	}
	root["state"] = st
	nbs, _ := d.lab.net.LLDPNeighbors(d.name)
	var ifs []any
	for _, it := range c.dev.Interfaces {
		if interfaceType(it) != "iana-if-type:ethernetCsmacd" {
			continue // LLDP runs on Ethernet ports
		}
		var ns []any
		for _, nb := range nbs {
			if nb.LocalInterface == it.Name {
				ns = append(ns, lldpNeighborTree(nb))
			}
		}
		e := obj{"name": it.Name, "config": obj{"name": it.Name, "enabled": on},
			"state": obj{"name": it.Name, "enabled": on}}
		if len(ns) > 0 {
			e["neighbors"] = obj{"neighbor": ns}
		}
		ifs = append(ifs, e)
	}
	if len(ifs) > 0 {
		root["interfaces"] = obj{"interface": ifs}
	}
	tree[memLLDP] = root
}

// lldpNeighborTree is one neighbour in openconfig-lldp.
func lldpNeighborTree(nb netsim.LLDPNeighbor) obj {
	st := obj{"id": nb.ChassisID, "system-name": nb.SystemName, "chassis-id": nb.ChassisID,
		"chassis-id-type": "MAC_ADDRESS", "port-id": nb.PortID, "port-id-type": "INTERFACE_NAME", "ttl": num(nb.TTL)}
	if nb.PortDescription != "" {
		st["port-description"] = nb.PortDescription
	}
	if nb.SystemDescription != "" {
		st["system-description"] = nb.SystemDescription
	}
	if a := nb.ManagementAddress; a.IsValid() {
		st["management-address"] = a.String()
		st["management-address-type"] = "ipV4"
		if a.Is6() && !a.Is4In6() {
			st["management-address-type"] = "ipV6"
		}
	}
	n := obj{"id": nb.ChassisID, "state": st}
	var caps []any
	for _, c := range nb.Capabilities {
		name := ocLLDPCapability[c]
		caps = append(caps, obj{"name": name, "state": obj{"name": name, "enabled": true}})
	}
	if len(caps) > 0 {
		n["capabilities"] = obj{"capability": caps}
	}
	var tlvs []any
	for _, t := range nb.CustomTLVs {
		oui, sub := t.OUIString(), strconv.Itoa(int(t.Subtype))
		tlvs = append(tlvs, obj{"type": num(127), "oui": oui, "oui-subtype": sub,
			"state": obj{"type": num(127), "oui": oui, "oui-subtype": sub, "value": base64.StdEncoding.EncodeToString(t.Value)}})
	}
	if len(tlvs) > 0 {
		n["custom-tlvs"] = obj{"tlv": tlvs}
	}
	return n
}

// deviceDescription is what the device says it is in LLDP.
func deviceDescription(d topology.Device) string {
	s := ""
	for _, p := range []string{d.Vendor, d.Platform, d.SoftwareVersion} {
		if p == "" {
			continue
		}
		if s != "" {
			s += " "
		}
		s += p
	}
	return s
}
