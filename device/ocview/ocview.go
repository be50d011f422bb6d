// Package ocview derives the openconfig-interfaces tree from an
// ietf-interfaces one, for drivers whose device models its interfaces in
// ietf-interfaces (RFC 8343, or RFC 7223 with interfaces-state) and
// ietf-ip (RFC 8344) but not in openconfig: the NETCONF driver for a
// device without openconfig-interfaces, and the ssh:// driver, which
// parses show output into ietf-interfaces.
//
// Both trees are RFC 7951 JSON as decoded by encoding/json (objects are
// map[string]any, lists []any, numbers float64). The view is read-only:
// it is computed on every read and never edited.
//
// What is carried over, per interface:
//
//	ietf-interfaces                   openconfig-interfaces
//	name                              name, config/name, state/name
//	type, description, enabled        config/..., and state/... (type from the state entry)
//	ietf-ip:ipv4/mtu                  config/mtu, state/mtu
//	ietf-ip:ipv4|ipv6/address         subinterfaces/subinterface[index=0]/openconfig-if-ip:ipv4|ipv6/addresses
//	oper-status, admin-status         state/oper-status, state/admin-status (upper case, "-" as "_")
//	statistics (but discontinuity-time)  state/counters
//
// State comes from the interface's interfaces-state entry (RFC 7223);
// without one, from the state leaves of its interfaces entry itself
// (RFC 8343's NMDA shape: oper-status, admin-status, statistics in the one
// list), if it has any.
package ocview

import "strings"

// Names of the modules and top-level members the view reads and writes.
const (
	// Module is the module of the view.
	Module = "openconfig-interfaces"
	// Member is the view's top-level member in an RFC 7951 tree.
	Member = Module + ":interfaces"
	// IETFModule is the module the view is derived from.
	IETFModule = "ietf-interfaces"
	// IETFMember and IETFStateMember are the top-level members read: the
	// interfaces list (configuration, and state under NMDA) and the
	// pre-NMDA interfaces-state list.
	IETFMember      = IETFModule + ":interfaces"
	IETFStateMember = IETFModule + ":interfaces-state"
)

// stateLeaves are the members that make an interfaces entry carry state
// (the NMDA shape).
var stateLeaves = []string{"oper-status", "admin-status", "statistics"}

// FromIETF returns the content of /openconfig-interfaces:interfaces (an
// object holding the "interface" list) derived from tree's
// ietf-interfaces:interfaces and ietf-interfaces:interfaces-state, in the
// order the interfaces first appear there. It is nil when tree holds no
// interface. tree is not modified, and the view shares no map with it,
// but leaf values (strings, numbers) are the same values.
func FromIETF(tree map[string]any) map[string]any {
	cfg := ietfList(tree[IETFMember])
	state := ietfList(tree[IETFStateMember])
	if len(cfg) == 0 && len(state) == 0 {
		return nil
	}
	byName := map[string]map[string]any{}
	var order []string
	entry := func(name string) map[string]any {
		e := byName[name]
		if e == nil {
			e = map[string]any{"name": name, "config": map[string]any{"name": name}}
			byName[name] = e
			order = append(order, name)
		}
		return e
	}
	hasState := map[string]bool{}
	for _, i := range state {
		if name, _ := i["name"].(string); name != "" {
			hasState[name] = true
		}
	}
	var nmda []map[string]any // interfaces entries that carry their own state
	for _, i := range cfg {
		name, _ := i["name"].(string)
		if name == "" {
			continue
		}
		e := entry(name)
		c := e["config"].(map[string]any)
		copyMembers(c, i, "type", "description", "enabled")
		if v, ok := i["ietf-ip:ipv4"].(map[string]any); ok {
			if mtu, ok := v["mtu"]; ok {
				c["mtu"] = mtu
			}
		}
		if sub := subinterface(i); sub != nil {
			e["subinterfaces"] = map[string]any{"subinterface": []any{sub}}
		}
		if !hasState[name] && hasAny(i, stateLeaves...) {
			nmda = append(nmda, i)
		}
	}
	for _, i := range append(state, nmda...) {
		name, _ := i["name"].(string)
		if name == "" {
			continue
		}
		e := entry(name)
		st := map[string]any{"name": name}
		copyMembers(st, i, "type")
		for _, k := range []string{"oper-status", "admin-status"} {
			if s, ok := i[k].(string); ok {
				st[k] = strings.ToUpper(strings.ReplaceAll(s, "-", "_"))
			}
		}
		if c, ok := e["config"].(map[string]any); ok {
			copyMembers(st, c, "description", "enabled", "mtu")
		}
		if stats, ok := i["statistics"].(map[string]any); ok {
			counters := map[string]any{}
			for k, v := range stats {
				if k != "discontinuity-time" {
					counters[k] = v
				}
			}
			st["counters"] = counters
		}
		e["state"] = st
	}
	list := make([]any, 0, len(order))
	for _, n := range order {
		list = append(list, byName[n])
	}
	return map[string]any{"interface": list}
}

// Add sets tree's openconfig-interfaces:interfaces member to the view of
// its ietf-interfaces members, and reports whether there was an interface
// to view (tree is left unchanged when there was none).
func Add(tree map[string]any) bool {
	v := FromIETF(tree)
	if v == nil {
		return false
	}
	tree[Member] = v
	return true
}

func ietfList(v any) []map[string]any {
	m, _ := v.(map[string]any)
	l, _ := m["interface"].([]any)
	out := make([]map[string]any, 0, len(l))
	for _, e := range l {
		if em, ok := e.(map[string]any); ok {
			out = append(out, em)
		}
	}
	return out
}

func hasAny(m map[string]any, names ...string) bool {
	for _, n := range names {
		if _, ok := m[n]; ok {
			return true
		}
	}
	return false
}

func copyMembers(dst, src map[string]any, names ...string) {
	for _, n := range names {
		if v, ok := src[n]; ok {
			dst[n] = v
		}
	}
}

// subinterface maps ietf-ip addresses to subinterface 0; nil without any.
func subinterface(i map[string]any) map[string]any {
	sub := map[string]any{"index": float64(0), "config": map[string]any{"index": float64(0)}}
	found := false
	for _, fam := range []string{"ipv4", "ipv6"} {
		v, ok := i["ietf-ip:"+fam].(map[string]any)
		if !ok {
			continue
		}
		addrs, _ := v["address"].([]any)
		var out []any
		for _, a := range addrs {
			am, _ := a.(map[string]any)
			ip, _ := am["ip"].(string)
			if ip == "" {
				continue
			}
			c := map[string]any{"ip": ip}
			copyMembers(c, am, "prefix-length")
			out = append(out, map[string]any{"ip": ip, "config": c})
		}
		if len(out) > 0 {
			sub["openconfig-if-ip:"+fam] = map[string]any{"addresses": map[string]any{"address": out}}
			found = true
		}
	}
	if !found {
		return nil
	}
	return sub
}
