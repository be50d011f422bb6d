package wire

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/yang"
)

// Leaf is one leaf (or leaf-list) of a tree with its full path.
type Leaf struct {
	Path  yang.Path
	Value any
}

// commonKeys are the key names tried, in order, for a list the schema does
// not know (state lists such as RIB routes); the first one every entry has
// is the key.
var commonKeys = []string{"name", "id", "index", "ip", "vlan-id", "sequence-id",
	"destination-prefix", "neighbor-address", "prefix", "set-name", "username", "identifier"}

// Flatten calls fn for every leaf of v, the value found at path p (nil:
// the root): a scalar is one leaf, a JSON array of scalars a leaf-list, a
// JSON array of objects a list whose entries are named by their keys (from
// schema where it knows the list, else the first of the common key names
// every entry has; a list without such keys is one leaf holding the
// array). fn's paths are fresh: it may keep them.
func Flatten(p yang.Path, v any, schema *yang.Schema, fn func(Leaf)) {
	f := flattener{schema: schema, fn: fn}
	f.walk(slices.Clip(p), Module(p), v)
}

type flattener struct {
	schema *yang.Schema
	fn     func(Leaf)
}

func (f *flattener) walk(p yang.Path, module string, v any) {
	switch x := v.(type) {
	case map[string]any:
		names := make([]string, 0, len(x))
		for k := range x {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			e, mod := elemOf(k, module)
			f.walk(append(p, e), mod, x[k])
		}
	case []any:
		keys := f.listKeys(p, x)
		if keys == nil {
			f.fn(Leaf{Path: slices.Clone(p), Value: v})
			return
		}
		for _, entry := range x {
			m := entry.(map[string]any)
			ep := slices.Clone(p)
			last := &ep[len(ep)-1]
			last.Keys = make([]yang.Key, len(keys))
			for i, k := range keys {
				s, _ := keyText(m[k])
				last.Keys[i] = yang.Key{Name: k, Value: s}
			}
			f.walk(slices.Clip(ep), module, m)
		}
	default:
		if len(p) > 0 {
			f.fn(Leaf{Path: slices.Clone(p), Value: v})
		}
	}
}

// listKeys returns the key names of the list l at p, or nil when l is not
// a list of objects that all have them.
func (f *flattener) listKeys(p yang.Path, l []any) []string {
	if len(l) == 0 || len(p) == 0 {
		return nil
	}
	for _, e := range l {
		if _, ok := e.(map[string]any); !ok {
			return nil
		}
	}
	has := func(names []string) bool {
		for _, e := range l {
			m := e.(map[string]any)
			for _, n := range names {
				if _, ok := keyText(m[n]); !ok {
					return false
				}
			}
		}
		return true
	}
	if f.schema != nil {
		if k := f.schema.ListKeys(p); k != nil && has(k) {
			return k
		}
	}
	for _, n := range commonKeys {
		if has([]string{n}) {
			return []string{n}
		}
	}
	return nil
}

// elemOf returns the path element of JSON member k below a node of
// module, and the member's module.
func elemOf(k, module string) (yang.PathElem, string) {
	if mod, name, ok := strings.Cut(k, ":"); ok {
		if mod == module {
			return yang.PathElem{Name: name}, mod
		}
		return yang.PathElem{Module: mod, Name: name}, mod
	}
	return yang.PathElem{Name: k}, module
}

// keyText returns a key leaf's value as a path writes it.
func keyText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) <= maxExact {
			return strconv.FormatInt(int64(x), 10), true
		}
		return strconv.FormatFloat(x, 'f', -1, 64), true
	}
	return "", false
}
