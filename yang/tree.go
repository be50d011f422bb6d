package yang

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/netmcp/netmcp/netproto"
)

// ErrExists reports a "create" of a node that already has data.
var ErrExists = errors.New("yang: data already exists")

// Edit operations accepted by Apply (NETCONF semantics, RFC 6241 7.2).
const (
	OpMerge   = "merge"
	OpReplace = "replace"
	OpCreate  = "create"
	OpDelete  = "delete"
	OpRemove  = "remove"
)

// Get returns the value at p in tree, or ErrNotFound. A path element naming
// a list without keys selects every entry: the result is the list itself
// when it is the last element; otherwise each entry is reduced to its key
// members and the rest of the path (entries without that data are left out),
// so /openconfig-interfaces:interfaces/interface/config/mtu gives
// [{"name": "eth0", "config": {"mtu": 1500}}, ...].
// The result shares data with tree: do not modify it (Clone it first).
func Get(tree any, p Path) (any, error) {
	return get(tree, p, "")
}

func get(tree any, p Path, parentModule string) (any, error) {
	cur := tree
	for i, e := range p {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, ErrNotFound
		}
		_, v, ok := lookupMember(m, e, parentModule)
		if !ok {
			return nil, ErrNotFound
		}
		parentModule = effectiveModule(e, parentModule)
		if len(e.Keys) > 0 {
			l, ok := v.([]any)
			if !ok {
				return nil, ErrNotFound
			}
			j := findEntry(l, e.Keys)
			if j < 0 {
				return nil, ErrNotFound
			}
			cur = l[j]
			continue
		}
		if l, ok := v.([]any); ok && i < len(p)-1 {
			return project(l, p[i+1:], parentModule)
		}
		cur = v
	}
	return cur, nil
}

// project reduces each entry of l to its keys and the subtree at rest.
func project(l []any, rest Path, parentModule string) (any, error) {
	out := []any{}
	for _, v := range l {
		entry, ok := v.(map[string]any)
		if !ok {
			continue
		}
		sub, err := get(entry, rest, parentModule)
		if err != nil {
			continue
		}
		pruned := map[string]any{}
		for _, k := range commonKeys {
			if x, ok := entry[k]; ok {
				pruned[k] = x
			}
		}
		if err := applyAt(pruned, parentModule, rest, 0, OpMerge, sub, nil, nil); err != nil {
			return nil, err
		}
		out = append(out, pruned)
	}
	if len(out) == 0 {
		return nil, ErrNotFound
	}
	return out, nil
}

// Apply returns a new tree: tree with op applied at p with value. op is
// "merge" (the default for ""), "replace", "create" (ErrExists if the node
// has data), "delete" (ErrNotFound if it has none) or "remove" (no error
// when missing). Intermediate containers and list entries are created for
// merge, replace and create; containers and lists left empty by a delete are
// removed. At a list entry path, value is the entry object: its key members
// (and those of its "config" container) are filled in from the path, and a
// contradicting key is an error. Merging merges list entries by their keys
// (from s when not nil, else by common key names such as name or index).
//
// The input tree and value are never modified; the result shares unchanged
// subtrees with the input, so treat trees as immutable values.
func Apply(tree map[string]any, op string, p Path, value any, s *Schema) (map[string]any, error) {
	switch op {
	case "":
		op = OpMerge
	case OpMerge, OpReplace, OpCreate, OpDelete, OpRemove:
	default:
		return nil, fmt.Errorf("yang: unknown edit operation %q (want merge, replace, create, delete or remove)", op)
	}
	if op != OpDelete && op != OpRemove {
		v, err := Normalize(value)
		if err != nil {
			return nil, err
		}
		value = v
	} else {
		value = nil
	}
	if len(p) == 0 {
		return applyRoot(tree, op, value, s)
	}
	out := copyMap(tree)
	if err := applyAt(out, "", p, 0, op, value, s, p); err != nil {
		return nil, err
	}
	return out, nil
}

func applyRoot(tree map[string]any, op string, value any, s *Schema) (map[string]any, error) {
	switch op {
	case OpDelete:
		if len(tree) == 0 {
			return nil, fmt.Errorf("yang: delete /: %w", ErrNotFound)
		}
		return map[string]any{}, nil
	case OpRemove:
		return map[string]any{}, nil
	}
	m, ok := value.(map[string]any)
	if !ok {
		return nil, netproto.Errorf(netproto.CodeYangSyntaxError, "value at / must be an object, got %s", jsonKind(value)).WithPath("/")
	}
	switch op {
	case OpCreate:
		if len(tree) > 0 {
			return nil, fmt.Errorf("yang: create /: %w", ErrExists)
		}
		return m, nil
	case OpReplace:
		return m, nil
	}
	out := copyMap(tree)
	mergeMaps(out, m, nil, s)
	return out, nil
}

// applyAt applies op at p[i:] below m, which is a private copy the caller
// owns. full is the whole path for messages (nil: p).
func applyAt(m map[string]any, parentModule string, p Path, i int, op string, value any, s *Schema, full Path) error {
	if full == nil {
		full = p
	}
	e := p[i]
	name, v, found := lookupMember(m, e, parentModule)
	if !found {
		name = memberName(e, parentModule)
	}
	mod := effectiveModule(e, parentModule)
	last := i == len(p)-1
	here := full[:len(full)-len(p)+i+1]

	if len(e.Keys) > 0 {
		var l []any
		if found {
			var ok bool
			if l, ok = v.([]any); !ok {
				return netproto.Errorf(netproto.CodeYangSyntaxError, "%s is not a list in the data", here.SchemaString()).WithPath(here.String())
			}
		}
		keys := e.Keys
		if keys[0].Name == "" && s != nil {
			if names := s.ListKeys(here); len(names) == len(keys) {
				keys = make([]Key, len(names))
				for j, n := range names {
					keys[j] = Key{Name: n, Value: e.Keys[j].Value}
				}
			}
		}
		j := findEntry(l, keys)
		if j < 0 && (op == OpDelete || op == OpRemove) {
			if op == OpDelete {
				return fmt.Errorf("yang: delete %s: %w", here, ErrNotFound)
			}
			return nil
		}
		if last {
			nl := make([]any, 0, len(l)+1)
			switch op {
			case OpDelete, OpRemove:
				nl = append(append(nl, l[:j]...), l[j+1:]...)
				if len(nl) == 0 {
					delete(m, name)
				} else {
					m[name] = nl
				}
				return nil
			case OpCreate:
				if j >= 0 {
					return fmt.Errorf("yang: create %s: %w", here, ErrExists)
				}
			}
			entry, err := entryValue(value, keys, here, s, l)
			if err != nil {
				return err
			}
			nl = append(nl, l...)
			switch {
			case j < 0:
				nl = append(nl, entry)
			case op == OpMerge:
				if em, ok := entry.(map[string]any); ok {
					if old, ok := l[j].(map[string]any); ok {
						dst := copyMap(old)
						mergeMaps(dst, em, here, s)
						entry = dst
					}
				}
				nl[j] = entry
			default:
				nl[j] = entry
			}
			m[name] = nl
			return nil
		}
		var child map[string]any
		if j >= 0 {
			old, ok := l[j].(map[string]any)
			if !ok {
				return netproto.Errorf(netproto.CodeYangSyntaxError, "entry %s is not an object", here).WithPath(here.String())
			}
			child = copyMap(old)
		} else {
			if keys[0].Name == "" {
				return netproto.Errorf(netproto.CodeYangSyntaxError, "cannot create an entry of list %s: its key names are unknown", here.SchemaString()).WithPath(here.String())
			}
			child = map[string]any{}
			fillKeys(child, keys, here, s)
		}
		if err := applyAt(child, mod, p, i+1, op, value, s, full); err != nil {
			return err
		}
		nl := make([]any, len(l), len(l)+1)
		copy(nl, l)
		if j >= 0 {
			nl[j] = child
		} else {
			nl = append(nl, child)
		}
		m[name] = nl
		return nil
	}

	if last {
		switch op {
		case OpDelete:
			if !found {
				return fmt.Errorf("yang: delete %s: %w", here, ErrNotFound)
			}
			delete(m, name)
		case OpRemove:
			delete(m, name)
		case OpCreate:
			if found {
				return fmt.Errorf("yang: create %s: %w", here, ErrExists)
			}
			m[name] = value
		case OpReplace:
			m[name] = value
		default:
			if found {
				m[name] = mergeValues(v, value, here, s)
			} else {
				m[name] = value
			}
		}
		return nil
	}
	var child map[string]any
	if !found {
		if op == OpDelete {
			return fmt.Errorf("yang: delete %s: %w", full, ErrNotFound)
		}
		if op == OpRemove {
			return nil
		}
		child = map[string]any{}
	} else {
		old, ok := v.(map[string]any)
		if !ok {
			if _, isList := v.([]any); isList {
				return netproto.Errorf(netproto.CodeYangSyntaxError, "path goes through list %s without keys", here.SchemaString()).WithPath(here.String())
			}
			return netproto.Errorf(netproto.CodeYangSyntaxError, "%s is a leaf, not a container", here.SchemaString()).WithPath(here.String())
		}
		child = copyMap(old)
	}
	if err := applyAt(child, mod, p, i+1, op, value, s, full); err != nil {
		return err
	}
	if len(child) == 0 && (op == OpDelete || op == OpRemove) {
		delete(m, name)
	} else {
		m[name] = child
	}
	return nil
}

// entryValue checks a list entry value against the path keys and returns
// it with the keys filled in.
func entryValue(value any, keys []Key, here Path, s *Schema, list []any) (any, error) {
	if keys[0].Name == "." { // leaf-list instance: the value is the key
		v := any(keys[0].Value)
		numeric := false
		if n := s.find(here); n != nil && n.typ != nil {
			numeric = n.typ.isJSONNumber() || (n.typ.base == baseUnion && n.typ.union[0].isJSONNumber())
		} else {
			for _, x := range list {
				_, numeric = x.(float64)
			}
		}
		if f, err := strconv.ParseFloat(keys[0].Value, 64); numeric && err == nil {
			v = f
		}
		if value != nil {
			if sv, ok := scalarString(value); !ok || sv != keys[0].Value {
				return nil, netproto.Errorf(netproto.CodeYangSyntaxError, "leaf-list value %s differs from the path's %q", jsonText(value), keys[0].Value).WithPath(here.String())
			}
			return value, nil
		}
		return v, nil
	}
	var em map[string]any
	switch x := value.(type) {
	case nil:
		em = map[string]any{}
	case map[string]any:
		em = x // value is Apply's private normalized copy
	default:
		return nil, netproto.Errorf(netproto.CodeYangSyntaxError, "value of list entry %s must be an object, got %s", here, jsonKind(value)).WithPath(here.String())
	}
	if keys[0].Name == "" {
		return nil, netproto.Errorf(netproto.CodeYangSyntaxError, "cannot write list %s: its key names are unknown", here.SchemaString()).WithPath(here.String())
	}
	for _, k := range keys {
		for _, where := range []map[string]any{em, subMap(em, "config")} {
			if x, ok := where[k.Name]; ok {
				if sv, ok := scalarString(x); !ok || sv != k.Value {
					return nil, netproto.Errorf(netproto.CodeYangSyntaxError, "key %s is %s in the value but %q in the path", k.Name, jsonText(x), k.Value).WithPath(here.String())
				}
			}
		}
	}
	fillKeys(em, keys, here, s)
	return em, nil
}

// fillKeys sets the key members of entry (and of its config container, when
// it has one) from the path keys, typed as the schema or common usage says.
func fillKeys(entry map[string]any, keys []Key, here Path, s *Schema) {
	cfg := subMap(entry, "config")
	for _, k := range keys {
		v := keyValue(k, here, s)
		if _, ok := entry[k.Name]; !ok {
			entry[k.Name] = v
		}
		if cfg != nil {
			if _, ok := cfg[k.Name]; !ok && (s == nil || s.hasLeaf(here, "config", k.Name)) {
				cc := copyMap(cfg)
				cc[k.Name] = v
				entry["config"] = cc
				cfg = cc
			}
		}
	}
}

// keyValue returns the JSON value of a path key: a number for numeric key
// leaves (int8..uint32 per the schema, or common numeric keys without one).
func keyValue(k Key, here Path, s *Schema) any {
	numeric := numericKeys[k.Name]
	if s != nil {
		if n, ok := s.keyIsNumber(here, k.Name); ok {
			numeric = n
		}
	}
	if numeric {
		if f, err := strconv.ParseFloat(k.Value, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f
		}
	}
	return k.Value
}

func subMap(m map[string]any, name string) map[string]any {
	c, _ := m[name].(map[string]any)
	return c
}

func copyMap(m map[string]any) map[string]any {
	c := make(map[string]any, len(m)+1)
	for k, v := range m {
		c[k] = v
	}
	return c
}

// mergeValues merges src into dst (neither is modified) and returns the result.
func mergeValues(dst, src any, p Path, s *Schema) any {
	switch d := dst.(type) {
	case map[string]any:
		if sm, ok := src.(map[string]any); ok {
			out := copyMap(d)
			mergeMaps(out, sm, p, s)
			return out
		}
	case []any:
		if sl, ok := src.([]any); ok {
			return mergeLists(d, sl, p, s)
		}
	}
	return src
}

// mergeMaps merges src into dst, a private copy.
func mergeMaps(dst, src map[string]any, p Path, s *Schema) {
	mod := ""
	if len(p) > 0 {
		mod = p.moduleAt(len(p) - 1)
	}
	for k, v := range src {
		old, ok := dst[k]
		if !ok {
			dst[k] = v
			continue
		}
		switch old.(type) {
		case map[string]any, []any:
			e, _ := elemOfMember(k, mod)
			dst[k] = mergeValues(old, v, p.child(e), s)
		default:
			dst[k] = v
		}
	}
}

// mergeLists merges list src into dst: entries with the same keys are
// merged, new ones appended; leaf-list values are united.
func mergeLists(dst, src []any, p Path, s *Schema) []any {
	out := make([]any, len(dst), len(dst)+len(src))
	copy(out, dst)
	if isObjectList(src) && (len(dst) == 0 || isObjectList(dst)) {
		names := listKeys(p, s, dst, src)
		if names == nil {
			return src
		}
		for _, v := range src {
			em := v.(map[string]any)
			keys, ok := entryKeys(em, names)
			j := -1
			if ok {
				j = findEntry(out, keys)
			}
			if j < 0 {
				out = append(out, v)
				continue
			}
			merged := copyMap(out[j].(map[string]any))
			mergeMaps(merged, em, p, s)
			out[j] = merged
		}
		return out
	}
	for _, v := range src {
		dup := false
		for _, x := range out {
			if reflect.DeepEqual(x, v) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, v)
		}
	}
	return out
}

// Clone returns a deep copy of a generic JSON value (maps and slices are
// copied; scalars are shared).
func Clone(v any) any {
	return mapLeaves(v, func(leaf any) any { return leaf })
}

// mapLeaves returns a deep copy of a generic JSON value with every scalar
// replaced by leaf(scalar).
func mapLeaves(v any, leaf func(any) any) any {
	switch x := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, e := range x {
			c[k] = mapLeaves(e, leaf)
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = mapLeaves(e, leaf)
		}
		return c
	}
	return leaf(v)
}

// Normalize returns a fresh generic JSON copy of any Go value, as
// encoding/json would decode it into an any: map[string]any, []any,
// string, float64, bool or nil. Values that are not JSON-encodable give
// an error.
func Normalize(v any) (any, error) {
	switch x := v.(type) {
	case nil, string, bool:
		return x, nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, fmt.Errorf("yang: value %v is not a JSON number", x)
		}
		return x, nil
	case int:
		return float64(x), nil
	case int32:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case uint32:
		return float64(x), nil
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, e := range x {
			n, err := Normalize(e)
			if err != nil {
				return nil, err
			}
			c[k] = n
		}
		return c, nil
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			n, err := Normalize(e)
			if err != nil {
				return nil, err
			}
			c[i] = n
		}
		return c, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("yang: value is not JSON: %w", err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("yang: value is not JSON: %w", err)
	}
	return out, nil
}

// jsonKind names the JSON type of a generic value.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// jsonText renders a value as compact JSON for messages.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
