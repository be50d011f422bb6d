//go:build linux

package linux

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// LLDPSocket returns the lldpd control socket of a namespace: the one the
// real lab (package lab/real) gives its lldpd.
var LLDPSocket = func(netns string) string {
	if netns == "" {
		return "/run/lldpd.socket"
	}
	return "/run/lldpd-" + netns + ".socket"
}

// lldpValue is lldpcli's json0 {"value": ...} leaf.
type lldpValue struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// lldpNeighbor is one neighbour in lldpcli -f json0.
type lldpNeighbor struct {
	Name    string `json:"name"`
	RID     string `json:"rid"`
	Chassis []struct {
		ID         []lldpValue `json:"id"`
		Name       []lldpValue `json:"name"`
		Descr      []lldpValue `json:"descr"`
		MgmtIP     []lldpValue `json:"mgmt-ip"`
		Capability []struct {
			Type    string `json:"type"`
			Enabled bool   `json:"enabled"`
		} `json:"capability"`
	} `json:"chassis"`
	Port []struct {
		ID    []lldpValue `json:"id"`
		Descr []lldpValue `json:"descr"`
	} `json:"port"`
	UnknownTLVs []struct {
		TLV []struct {
			OUI     string `json:"oui"`
			Subtype string `json:"subtype"`
			Value   string `json:"value"`
		} `json:"unknown-tlv"`
	} `json:"unknown-tlvs"`
}

// readLLDP reads lldpd's neighbours; none when lldpd does not run there.
func (d *Driver) readLLDP(ctx context.Context) ([]lldpNeighbor, error) {
	sock := LLDPSocket(d.netns)
	if _, err := os.Stat(sock); err != nil {
		return nil, nil
	}
	out, err := d.run(ctx, []string{"lldpcli", "-u", sock, "-f", "json0", "show", "neighbors", "details"})
	if err != nil {
		return nil, err
	}
	var v struct {
		LLDP []struct {
			Interface []lldpNeighbor `json:"interface"`
		} `json:"lldp"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		return nil, fmt.Errorf("linux: lldpcli json0: %w", err)
	}
	var ns []lldpNeighbor
	for _, l := range v.LLDP {
		ns = append(ns, l.Interface...)
	}
	return ns, nil
}

// lldpChassisType maps lldpd's chassis id types to openconfig-lldp-types.
var lldpChassisType = map[string]string{"mac": "MAC_ADDRESS", "ip": "NETWORK_ADDRESS", "ifname": "INTERFACE_NAME", "local": "LOCAL"}

// lldpPortType maps lldpd's port id types to openconfig-lldp-types.
var lldpPortType = map[string]string{"mac": "MAC_ADDRESS", "ip": "NETWORK_ADDRESS", "ifname": "INTERFACE_NAME", "local": "LOCAL", "ifalias": "INTERFACE_ALIAS"}

// lldpTree renders the neighbours as openconfig-lldp; names maps Linux
// interface names to the names shown.
func lldpTree(ns []lldpNeighbor, names map[string]string) obj {
	byIf := map[string][]any{}
	var order []string
	for _, n := range ns {
		st := obj{}
		if len(n.Chassis) > 0 {
			c := n.Chassis[0]
			if len(c.ID) > 0 {
				st["chassis-id"], st["chassis-id-type"] = c.ID[0].Value, lldpChassisType[c.ID[0].Type]
			}
			if len(c.Name) > 0 {
				st["system-name"] = c.Name[0].Value
			}
			if len(c.Descr) > 0 {
				st["system-description"] = c.Descr[0].Value
			}
			if len(c.MgmtIP) > 0 {
				st["management-address"] = c.MgmtIP[0].Value
				st["management-address-type"] = "IPV4"
				if strings.Contains(c.MgmtIP[0].Value, ":") {
					st["management-address-type"] = "IPV6"
				}
			}
		}
		if len(n.Port) > 0 {
			p := n.Port[0]
			if len(p.ID) > 0 {
				st["port-id"], st["port-id-type"] = p.ID[0].Value, lldpPortType[p.ID[0].Type]
			}
			if len(p.Descr) > 0 {
				st["port-description"] = p.Descr[0].Value
			}
		}
		id := n.RID
		st["id"] = id
		nb := obj{"id": id, "state": st}
		if len(n.Chassis) > 0 && len(n.Chassis[0].Capability) > 0 {
			var caps []any
			for _, c := range n.Chassis[0].Capability {
				name := "openconfig-lldp-types:" + strings.ToUpper(c.Type)
				caps = append(caps, obj{"name": name, "state": obj{"name": name, "enabled": c.Enabled}})
			}
			nb["capabilities"] = obj{"capability": caps}
		}
		var tlvs []any
		for _, u := range n.UnknownTLVs {
			for _, t := range u.TLV {
				oui := strings.ToLower(strings.ReplaceAll(t.OUI, ",", ":"))
				sub, _ := strconv.Atoi(t.Subtype)
				val := strings.ToLower(strings.ReplaceAll(t.Value, ",", ":"))
				s := obj{"type": float64(127), "oui": oui, "oui-subtype": strconv.Itoa(sub), "value": val}
				tlvs = append(tlvs, obj{"type": float64(127), "oui": oui, "oui-subtype": strconv.Itoa(sub), "state": s})
			}
		}
		if len(tlvs) > 0 {
			nb["custom-tlvs"] = obj{"tlv": tlvs}
		}
		name := names[n.Name]
		if name == "" {
			name = n.Name
		}
		if _, seen := byIf[name]; !seen {
			order = append(order, name)
		}
		byIf[name] = append(byIf[name], nb)
	}
	var ifs []any
	for _, name := range order {
		ifs = append(ifs, obj{"name": name, "state": obj{"name": name}, "neighbors": obj{"neighbor": byIf[name]}})
	}
	return obj{"interfaces": obj{"interface": ifs}}
}
