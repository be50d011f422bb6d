package discover

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/d2d/tlv"
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
	ifcs := list(find(doc, "interfaces"), "interface")
	if ifcs == nil {
		ifcs = list(find(doc, "interface"), "interface")
	}
	for _, ifc := range ifcs {
		ifName := str(member(ifc, "name"))
		if ifName == "" {
			ifName = str(member(member(ifc, "state"), "name"))
		}
		for _, nb := range list(member(ifc, "neighbors"), "neighbor") {
			st := member(nb, "state")
			n := Neighbor{Name: str(member(st, "system-name")), LocalInterface: ifName,
				PortID: str(member(st, "port-id")), Address: str(member(st, "management-address"))}
			if n.Name == "" {
				n.Name = str(member(nb, "id"))
			}
			// lldpd sends a MAC as port id by default: the interface name
			// is then the port description.
			if t := str(member(st, "port-id-type")); strings.HasSuffix(t, "MAC_ADDRESS") {
				if d := str(member(st, "port-description")); d != "" {
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
	for _, t := range list(member(nb, "custom-tlvs"), "tlv") {
		st := member(t, "state")
		oui := str(member(t, "oui"))
		if oui == "" {
			oui = str(member(st, "oui"))
		}
		sub := str(member(t, "oui-subtype"))
		if sub == "" {
			sub = str(member(st, "oui-subtype"))
		}
		if normOUI(oui) == normOUI(tlv.OUI) && sub == strconv.Itoa(tlv.Subtype) {
			return str(member(st, "value")), true
		}
	}
	return "", false
}

func normOUI(s string) string {
	return strings.ToLower(strings.NewReplacer(":", "", "-", "", ",", "", " ", "").Replace(s))
}

// member returns obj's member name, matching a module-qualified name
// ("openconfig-lldp:interfaces") too.
func member(obj any, name string) any {
	m, ok := obj.(map[string]any)
	if !ok {
		return nil
	}
	if v, ok := m[name]; ok {
		return v
	}
	for k, v := range m {
		if _, local, ok := strings.Cut(k, ":"); ok && local == name {
			return v
		}
	}
	return nil
}

// find returns the first member name found in a depth-first walk of v
// (through "data" wrappers and the lldp container).
func find(v any, name string) any {
	if x := member(v, name); x != nil {
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

// list returns the entries of list name inside container c (or c itself
// when it is already the list).
func list(c any, name string) []any {
	if a, ok := c.([]any); ok {
		return a
	}
	if a, ok := member(c, name).([]any); ok {
		return a
	}
	return nil
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case json.Number:
		return x.String()
	}
	return ""
}
