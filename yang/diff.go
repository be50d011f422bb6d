package yang

import (
	"reflect"
	"sort"
)

// Change is one changed node between two trees.
type Change struct {
	// Op is "add", "delete" or "modify".
	Op string `json:"op"`
	// Path is the canonical instance path of the changed node.
	Path string `json:"path"`
	// Old is the value in the first tree (delete, modify).
	Old any `json:"old,omitempty"`
	// New is the value in the second tree (add, modify).
	New any `json:"new,omitempty"`
}

// Change operations.
const (
	ChangeAdd    = "add"
	ChangeDelete = "delete"
	ChangeModify = "modify"
)

// Diff returns the changes that turn a into b, in a deterministic order:
// members by name, list entries in a's order (then b's new entries in b's
// order). List entries are matched by their keys (from s when not nil, else
// by common key names); an added or deleted container or list entry is one
// change; leaf-lists and lists without keys are compared as whole values.
// Secret values (see Redact) appear only as redaction tags.
func Diff(a, b map[string]any, s *Schema) []Change {
	d := differ{s: s}
	d.maps(a, b, nil)
	return d.changes
}

type differ struct {
	s       *Schema
	changes []Change
}

func (d *differ) add(op string, p Path, old, new any) {
	// Each side is redacted as the value of its member: old and new may
	// differ in kind (a secret leaf replaced by a container), and a leaf
	// value must be a tag whatever the other side is.
	name := ""
	if len(p) > 0 {
		name = p[len(p)-1].Name
	}
	if old != nil {
		old, _ = maskMember(name, old)
	}
	if new != nil {
		new, _ = maskMember(name, new)
	}
	d.changes = append(d.changes, Change{Op: op, Path: p.String(), Old: old, New: new})
}

func (d *differ) maps(a, b map[string]any, p Path) {
	mod := ""
	if len(p) > 0 {
		mod = p.moduleAt(len(p) - 1)
	}
	names := make([]string, 0, len(a)+len(b))
	for k := range a {
		names = append(names, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		e, _ := elemOfMember(k, mod)
		va, inA := a[k]
		vb, inB := b[k]
		switch {
		case !inB:
			d.add(ChangeDelete, p.child(e), va, nil)
		case !inA:
			d.add(ChangeAdd, p.child(e), nil, vb)
		default:
			d.values(va, vb, p.child(e))
		}
	}
}

func (d *differ) values(a, b any, p Path) {
	if sameRef(a, b) {
		return // a subtree Apply left unchanged is shared, hence equal
	}
	switch x := a.(type) {
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			d.maps(x, y, p)
			return
		}
	case []any:
		if y, ok := b.([]any); ok && d.lists(x, y, p) {
			return
		}
	}
	if !reflect.DeepEqual(a, b) {
		d.add(ChangeModify, p, a, b)
	}
}

// lists diffs two keyed lists entry by entry; it returns false when the
// lists are not lists of keyed objects (compare them as values).
func (d *differ) lists(a, b []any, p Path) bool {
	if (len(a) > 0 && !isObjectList(a)) || (len(b) > 0 && !isObjectList(b)) || len(a)+len(b) == 0 {
		return false
	}
	names := listKeys(p, d.s, a, b)
	if names == nil {
		return false
	}
	keysOf := func(l []any) ([][]Key, bool) {
		out := make([][]Key, len(l))
		for i, v := range l {
			k, ok := entryKeys(v.(map[string]any), names)
			if !ok {
				return nil, false
			}
			out[i] = k
		}
		return out, true
	}
	ka, okA := keysOf(a)
	kb, okB := keysOf(b)
	if !okA || !okB {
		return false
	}
	index := make(map[string]int, len(b))
	for i, k := range kb {
		index[keyString(k)] = i
	}
	seen := make([]bool, len(b))
	for i, k := range ka {
		ep := p.withKeys(k)
		j, ok := index[keyString(k)]
		if !ok || seen[j] {
			d.add(ChangeDelete, ep, a[i], nil)
			continue
		}
		seen[j] = true
		d.maps(a[i].(map[string]any), b[j].(map[string]any), ep)
	}
	for j, k := range kb {
		if seen[j] {
			continue
		}
		d.add(ChangeAdd, p.withKeys(k), nil, b[j])
	}
	return true
}

// sameRef reports whether a and b are the same map or the same slice.
func sameRef(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		return ok && reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer()
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	}
	return false
}

func keyString(keys []Key) string {
	s := ""
	for _, k := range keys {
		s += k.Value + "\x00"
	}
	return s
}
