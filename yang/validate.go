package yang

import (
	"sort"
	"strings"

	"github.com/netmcp/netmcp/netproto"
)

// Validate checks a configuration tree against the schema and returns the
// first problem as a *netproto.Error with its Path set, or nil:
//
//   - a member the schema does not know: CodeConfigIncompatible, "node X is
//     not supported on this platform", at the member's schema path;
//   - a platform limit (a VLAN id out of 1..4094): CodeConfigIncompatible,
//     "VLAN 4095 > maximum 4094" at /openconfig-vlan:vlans/vlan/config/vlan-id,
//     as in MCP-NET section 7.2;
//   - everything else, CodeYangSyntaxError at the instance path: wrong JSON
//     type, a value outside its enumeration, identities, pattern, range or
//     length, a missing or duplicate list key, a key leaf that differs from
//     the entry's key, a missing mandatory leaf, and a leafref to an
//     interface or VLAN that is not configured.
//
// Members are visited in sorted order, so the first problem is stable.
func (s *Schema) Validate(tree map[string]any) error {
	v := validator{s: s, ifaces: map[string]bool{}, vlans: map[string]bool{}}
	if err := v.container(s.root, tree, nil); err != nil {
		return err
	}
	return v.checkRefs()
}

type validator struct {
	s      *Schema
	ifaces map[string]bool // configured interface names (and name.index subinterfaces)
	vlans  map[string]bool // configured VLAN ids
	refs   []pendingRef
}

// pendingRef is a leafref value checked once the whole tree is known.
type pendingRef struct {
	kind  refKind
	value any
	path  Path
}

func syntaxErr(p Path, format string, args ...any) *netproto.Error {
	return netproto.Errorf(netproto.CodeYangSyntaxError, format, args...).WithPath(p.String())
}

func unsupported(p Path) *netproto.Error {
	sp := p.SchemaString()
	return netproto.Errorf(netproto.CodeConfigIncompatible, "node %s is not supported on this platform", sp).WithPath(sp)
}

// container validates the members of object m against n's children.
func (v *validator) container(n *node, m map[string]any, p Path) error {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	present := make(map[*node]bool, len(names))
	for _, k := range names {
		c := n.childMember(k)
		cp := p.child(memberElem(k, n.module, c))
		if c == nil {
			return unsupported(cp)
		}
		present[c] = true
		if err := v.node(c, m[k], cp); err != nil {
			return err
		}
	}
	return v.mandatory(n, present, p)
}

// memberElem is the PathElem of member k of a node of parentModule.
func memberElem(k, parentModule string, c *node) PathElem {
	if c != nil {
		e := PathElem{Name: c.name}
		if c.module != parentModule {
			e.Module = c.module
		}
		return e
	}
	e, _ := elemOfMember(k, parentModule)
	return e
}

// mandatory reports a mandatory leaf missing below an object of node n
// whose present children are given, looking through absent non-presence
// containers.
func (v *validator) mandatory(n *node, present map[*node]bool, p Path) error {
	for _, c := range n.children {
		if present[c] {
			continue
		}
		switch c.kind {
		case kindLeaf:
			if c.mandatory {
				return syntaxErr(p.child(memberElem("", n.module, c)), "mandatory leaf %s is missing", c.name)
			}
		case kindContainer:
			if err := v.mandatory(c, nil, p.child(memberElem("", n.module, c))); err != nil {
				return err
			}
		}
	}
	return nil
}

func (v *validator) node(n *node, val any, p Path) error {
	switch n.kind {
	case kindContainer:
		m, ok := val.(map[string]any)
		if !ok {
			return syntaxErr(p, "%s is a container: want a JSON object, got %s %s", n.name, jsonKind(val), jsonText(val))
		}
		return v.container(n, m, p)
	case kindList:
		return v.list(n, val, p)
	case kindLeafList:
		l, ok := val.([]any)
		if !ok {
			return syntaxErr(p, "%s is a leaf-list: want a JSON array, got %s %s", n.name, jsonKind(val), jsonText(val))
		}
		seen := map[string]bool{}
		for _, x := range l {
			if err := v.leaf(n, x, p); err != nil {
				return err
			}
			t := jsonText(x)
			if seen[t] {
				return syntaxErr(p, "leaf-list %s has the value %s twice", n.name, t)
			}
			seen[t] = true
		}
		return nil
	}
	return v.leaf(n, val, p)
}

func (v *validator) leaf(n *node, val any, p Path) error {
	if err := n.typ.check(val); err != nil {
		if n.limit != "" && (err.above || err.below) {
			e := netproto.Errorf(netproto.CodeConfigIncompatible, "%s %s > maximum %d", n.limit, jsonText(val), n.typ.uhi)
			if err.below {
				e = netproto.Errorf(netproto.CodeConfigIncompatible, "%s %s < minimum %d", n.limit, jsonText(val), n.typ.ulo)
			}
			return e.WithPath(n.limitPath)
		}
		return syntaxErr(p, "%s: %s", n.name, err.msg)
	}
	if n.ref != refNone {
		v.refs = append(v.refs, pendingRef{kind: n.ref, value: val, path: p})
	}
	return nil
}

func (v *validator) list(n *node, val any, p Path) error {
	l, ok := val.([]any)
	if !ok {
		return syntaxErr(p, "%s is a list: want a JSON array, got %s %s", n.name, jsonKind(val), jsonText(val))
	}
	seen := map[string]bool{}
	for i, x := range l {
		entry, ok := x.(map[string]any)
		if !ok {
			return syntaxErr(p, "entry %d of list %s: want a JSON object, got %s %s", i, n.name, jsonKind(x), jsonText(x))
		}
		keys := make([]Key, 0, len(n.keys))
		for _, k := range n.keys {
			kv, ok := entry[k]
			if !ok {
				return syntaxErr(p, "entry %d of list %s is missing its key %s", i, n.name, k)
			}
			s, ok := scalarString(kv)
			if !ok {
				return syntaxErr(p, "entry %d of list %s: key %s is %s, not a scalar", i, n.name, k, jsonText(kv))
			}
			keys = append(keys, Key{Name: k, Value: s})
		}
		ep := p.withKeys(keys)
		ks := keyString(keys)
		if seen[ks] {
			return syntaxErr(ep, "list %s has two entries with the key %s", n.name, keyText(keys))
		}
		seen[ks] = true
		if cfg, ok := entry["config"].(map[string]any); ok {
			for _, k := range keys {
				if cv, ok := cfg[k.Name]; ok {
					if s, _ := scalarString(cv); s != k.Value || jsonKind(cv) != jsonKind(entry[k.Name]) {
						return syntaxErr(ep.child(PathElem{Name: "config"}).child(PathElem{Name: k.Name}),
							"key leaf config/%s is %s but the entry's key %s is %s", k.Name, jsonText(cv), k.Name, jsonText(entry[k.Name]))
					}
				}
			}
		}
		if err := v.container(n, entry, ep); err != nil {
			return err
		}
		v.record(n, entry, keys, ep)
	}
	return nil
}

func keyText(keys []Key) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k.Name + "=" + k.Value
	}
	return strings.Join(parts, ",")
}

// record notes the interfaces and VLANs that leafrefs may point at.
func (v *validator) record(n *node, entry map[string]any, keys []Key, p Path) {
	switch p.SchemaString() {
	case "/openconfig-interfaces:interfaces/interface", "/ietf-interfaces:interfaces/interface":
		v.ifaces[keys[0].Value] = true
	case "/openconfig-interfaces:interfaces/interface/subinterfaces/subinterface":
		if keys[0].Value != "0" {
			v.ifaces[p[1].Keys[0].Value+"."+keys[0].Value] = true
		}
	case "/openconfig-vlan:vlans/vlan":
		v.vlans[keys[0].Value] = true
	}
}

// checkRefs checks the leafrefs once every interface and VLAN is known.
func (v *validator) checkRefs() error {
	for _, r := range v.refs {
		switch r.kind {
		case refInterface:
			if s, _ := r.value.(string); !v.ifaces[s] {
				return syntaxErr(r.path, "leafref: interface %s does not exist (%s must name a configured interface)", jsonText(r.value), r.path.Last().Name)
			}
		case refVLAN:
			if _, isNum := r.value.(float64); isNum {
				if s, _ := scalarString(r.value); !v.vlans[s] {
					return syntaxErr(r.path, "leafref: VLAN %s does not exist (%s must name a VLAN of /openconfig-vlan:vlans)", s, r.path.Last().Name)
				}
			} else if s, _ := r.value.(string); !v.ifaces[s] {
				return syntaxErr(r.path, "leafref: interface %s does not exist (%s must name a configured interface)", jsonText(r.value), r.path.Last().Name)
			}
		}
	}
	return nil
}
