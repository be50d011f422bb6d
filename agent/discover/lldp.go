package discover

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/d2d/tlv"
	"github.com/netmcp/netmcp/yang"
)

// LLDPPath is the openconfig-lldp subtree LLDP reads.
const LLDPPath = "/openconfig-lldp:lldp/interfaces"

// YangGetter reads a YANG subtree of the operational datastore, as the
// device's network.yang.get does: RFC 7951 JSON, possibly wrapped in
// {"data": ...}.
type YangGetter func(ctx context.Context, path string) (json.RawMessage, error)

// LLDP discovers neighbours from the device's openconfig-lldp state:
// /openconfig-lldp:lldp/interfaces/interface[name]/neighbors/neighbor[id]
// with state/{system-name,port-id,management-address} (port-description
// when port-id-type is MAC_ADDRESS, as lldpd sends) and the custom TLV
// custom-tlvs/tlv[type=127][oui=00:00:5e][oui-subtype=2]/state/value
// (base64, as RFC 7951 encodes the YANG binary, or hex).
// Neighbours without that TLV, or with one that does not decode, are not
// agents and are left out (Skipped says why).
type LLDP struct {
	Get YangGetter
	// Skipped receives, when set, each neighbour left out and why.
	Skipped func(name, reason string)
}

// Neighbors reads and parses the LLDP state.
func (l LLDP) Neighbors(ctx context.Context) ([]Neighbor, error) {
	raw, err := l.Get(ctx, LLDPPath)
	if err != nil {
		return nil, fmt.Errorf("discover: reading %s: %w", LLDPPath, err)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("discover: LLDP state is not JSON: %w", err)
	}
	var out []Neighbor
	// A server returns the interfaces container itself, or (as the
	// simulator's network.yang.get of that path) its content.
	ifcs := yang.Entries(find(doc, "interfaces"), "interfaces", "interface")
	if ifcs == nil {
		ifcs = yang.Entries(find(doc, "interface"), "interfaces", "interface")
	}
	for _, ifc := range ifcs {
		ifName := yang.Text(yang.Member(ifc, "name"))
		if ifName == "" {
			ifName = yang.Text(yang.Member(ifc, "state", "name"))
		}
		for _, nb := range yang.Entries(ifc, "neighbors", "neighbor") {
			st := yang.Member(nb, "state")
			n := Neighbor{Name: yang.Text(yang.Member(st, "system-name")), LocalInterface: ifName,
				PortID: yang.Text(yang.Member(st, "port-id")), Address: yang.Text(yang.Member(st, "management-address"))}
			if n.Name == "" {
				n.Name = yang.Text(yang.Member(nb, "id"))
			}
			// lldpd sends a MAC as port id by default: the interface name
			// is then the port description.
			if t := yang.Text(yang.Member(st, "port-id-type")); strings.HasSuffix(t, "MAC_ADDRESS") {
				if d := yang.Text(yang.Member(st, "port-description")); d != "" {
					n.PortID = d
				}
			}
			value, found := d2dValue(nb)
			if !found {
				l.skip(n.Name, "no netmcp D2D TLV (OUI "+tlv.OUI+" subtype "+strconv.Itoa(tlv.Subtype)+")")
				continue
			}
			a, err := tlv.DecodeValue(value)
			if err != nil {
				l.skip(n.Name, err.Error())
				continue
			}
			n.Advert = a
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].LocalInterface < out[j].LocalInterface
	})
	return out, nil
}

func (l LLDP) skip(name, why string) {
	if l.Skipped != nil {
		l.Skipped(name, why)
	}
}

// d2dValue returns the value of the neighbour's D2D custom TLV.
func d2dValue(nb any) (string, bool) {
	for _, t := range yang.Entries(nb, "custom-tlvs", "tlv") {
		st := yang.Member(t, "state")
		oui := yang.Text(yang.Member(t, "oui"))
		if oui == "" {
			oui = yang.Text(yang.Member(st, "oui"))
		}
		sub := yang.Text(yang.Member(t, "oui-subtype"))
		if sub == "" {
			sub = yang.Text(yang.Member(st, "oui-subtype"))
		}
		if normOUI(oui) == normOUI(tlv.OUI) && sub == strconv.Itoa(tlv.Subtype) {
			return yang.Text(yang.Member(st, "value")), true
		}
	}
	return "", false
}

func normOUI(s string) string {
	return strings.ToLower(strings.NewReplacer(":", "", "-", "", ",", "", " ", "").Replace(s))
}

// find returns the first member name found in a depth-first walk of v
// (through "data" wrappers and the lldp container).
func find(v any, name string) any {
	if x := yang.Member(v, name); x != nil {
		return x
	}
	if m, ok := v.(map[string]any); ok {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if x := find(m[k], name); x != nil {
				return x
			}
		}
	}
	return nil
}
