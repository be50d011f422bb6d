package netconf

import (
	"context"
	"strings"

	"github.com/netmcp/netmcp/device"
	nyang "github.com/netmcp/netmcp/yang"
)

const (
	ocModule     = "openconfig-interfaces"
	ietfIfModule = "ietf-interfaces"
)

// ocView derives the openconfig-interfaces tree from a tree holding
// ietf-interfaces (RFC 8343/7223 interfaces and interfaces-state, with
// ietf-ip addresses), for devices that do not implement openconfig: names,
// type, description, enabled, MTU and IPv4/IPv6 addresses of
// subinterface 0 from the configuration, oper-status, admin-status and
// counters from interfaces-state. Nil when the tree has no interface.
func ocView(tree map[string]any) map[string]any {
	cfg := ietfList(tree["ietf-interfaces:interfaces"])
	state := ietfList(tree["ietf-interfaces:interfaces-state"])
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
		if sub := ocSubinterface(i); sub != nil {
			e["subinterfaces"] = map[string]any{"subinterface": []any{sub}}
		}
	}
	for _, i := range state {
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

func copyMembers(dst, src map[string]any, names ...string) {
	for _, n := range names {
		if v, ok := src[n]; ok {
			dst[n] = v
		}
	}
}

// ocSubinterface maps ietf-ip addresses to subinterface 0.
func ocSubinterface(i map[string]any) map[string]any {
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

// getOCView serves a path under /openconfig-interfaces:interfaces from the
// device's ietf-interfaces (and interfaces-state in the operational
// datastore).
func (d *Driver) getOCView(ctx context.Context, src string, p nyang.Path, s *schema) (any, error) {
	b := d.builder(s)
	f1, err := b.filter(nyang.Path{{Module: ietfIfModule, Name: "interfaces"}})
	if err != nil {
		return nil, err
	}
	filter := f1
	if src == "" {
		// One filter selecting both top-level containers.
		filter = strings.TrimSuffix(f1, "</filter>") + `<interfaces-state xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"/></filter>`
	}
	body, err := d.fetch(ctx, src, filter)
	if err != nil {
		return nil, err
	}
	tree, err := d.tree(body, s)
	if err != nil {
		return nil, err
	}
	view := ocView(tree)
	if view == nil {
		view = map[string]any{}
	}
	return getAt(map[string]any{ocModule + ":interfaces": view}, p, p.String())
}

var _ = device.ErrNotFound
