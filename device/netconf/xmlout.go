package netconf

import (
	"encoding/xml"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/openconfig/goyang/pkg/yang"

	"github.com/netmcp/netmcp/netproto"
	nyang "github.com/netmcp/netmcp/yang"
)

// xmlBuilder writes NETCONF XML for YANG paths and RFC 7951 values.
type xmlBuilder struct {
	b strings.Builder
	s *schema
	// ns maps module name to namespace (hello, then schema).
	ns func(module string) (string, bool)
}

func (x *xmlBuilder) text(s string) { xml.EscapeText(&x.b, []byte(s)) }

// open writes <name xmlns="ns"> (the xmlns only where the module changes)
// with extra attributes, and returns the module of the element.
func (x *xmlBuilder) open(mod, parentMod, name, attrs string) error {
	x.b.WriteString("<" + name)
	if mod != parentMod {
		ns, ok := x.ns(mod)
		if !ok {
			return netproto.Errorf(netproto.CodeConfigIncompatible, "module %s is not supported by this device (not in its <hello> capabilities)", mod)
		}
		x.b.WriteString(` xmlns="`)
		x.text(ns)
		x.b.WriteString(`"`)
	}
	x.b.WriteString(attrs + ">")
	return nil
}

func (x *xmlBuilder) close(name string) { x.b.WriteString("</" + name + ">") }

// pathEntries resolves the schema entry of every element of p (nil where
// unknown).
func (x *xmlBuilder) pathEntries(p nyang.Path) []*yang.Entry {
	es := make([]*yang.Entry, len(p))
	var cur *yang.Entry
	mod := ""
	for i, el := range p {
		if el.Module != "" {
			mod = el.Module
		}
		if i == 0 {
			cur = x.s.topEntry(mod, el.Name)
		} else {
			cur = dataChild(cur, el.Name)
		}
		es[i] = cur
	}
	return es
}

// filter returns the subtree filter selecting p: the path's containers,
// with the list keys as content-match nodes, ending in a selection node.
func (x *xmlBuilder) filter(p nyang.Path) (string, error) {
	x.b.Reset()
	x.b.WriteString(`<filter type="subtree">`)
	if err := x.walk(p, func(last *yang.Entry, mod string) error { return nil }, ""); err != nil {
		return "", err
	}
	x.b.WriteString(`</filter>`)
	return x.b.String(), nil
}

// walk writes the elements of p (keys inside list entries), calls inner
// inside the last one, and closes them. lastAttrs go on the last element.
func (x *xmlBuilder) walk(p nyang.Path, inner func(last *yang.Entry, mod string) error, lastAttrs string) error {
	es := x.pathEntries(p)
	mod, parentMod := "", ""
	for i, el := range p {
		if el.Module != "" {
			mod = el.Module
		}
		attrs := ""
		if i == len(p)-1 {
			attrs = lastAttrs
		}
		if err := x.open(mod, parentMod, el.Name, attrs); err != nil {
			return err
		}
		for _, k := range el.Keys {
			if k.Name == "" {
				return netproto.Errorf(netproto.CodeYangSyntaxError, "list %s: key values without key names (RESTCONF form) need the list's keys: write [name='value']", el.Name)
			}
			if k.Name == "." {
				x.text(k.Value)
				continue
			}
			x.b.WriteString("<" + k.Name + ">")
			x.keyText(es[i], k)
			x.close(k.Name)
		}
		if i == len(p)-1 {
			if err := inner(es[i], mod); err != nil {
				return err
			}
		}
		parentMod = mod
	}
	for i := len(p) - 1; i >= 0; i-- {
		x.close(p[i].Name)
	}
	return nil
}

// keyText writes a key value; an identityref key "mod:x" gets its prefix.
func (x *xmlBuilder) keyText(list *yang.Entry, k nyang.Key) {
	x.text(k.Value)
}

// edit returns the <config> of one edit: the path's elements with the
// operation on the last one, holding value.
func (x *xmlBuilder) edit(p nyang.Path, op string, value any) error {
	opAttr := ` xmlns:nc="` + nsBase + `" nc:operation="` + op + `"`
	if len(p) == 0 {
		m, ok := value.(map[string]any)
		if !ok {
			return netproto.Errorf(netproto.CodeYangSyntaxError, "value at / must be an object of module-qualified members")
		}
		return x.members(m, nil, "", opAttr)
	}
	last := p[len(p)-1]
	// A whole list or leaf-list written as an array: one element per item.
	if arr, ok := value.([]any); ok && len(last.Keys) == 0 && (op == "merge" || op == "replace" || op == "create") {
		parent := p[:len(p)-1]
		mod := ""
		for _, el := range p {
			if el.Module != "" {
				mod = el.Module
			}
		}
		es := x.pathEntries(p)
		e := es[len(es)-1]
		if e == nil || e.IsList() || e.IsLeafList() {
			write := func(_ *yang.Entry, parentMod string) error {
				for _, item := range arr {
					if err := x.element(last.Name, mod, parentMod, item, e, opAttr); err != nil {
						return err
					}
				}
				return nil
			}
			if len(parent) == 0 {
				return write(nil, "")
			}
			return x.walk(parent, write, "")
		}
	}
	return x.walk(p, func(e *yang.Entry, mod string) error {
		if op == "delete" || op == "remove" {
			return nil
		}
		return x.content(value, e, mod, last.Keys)
	}, opAttr)
}

// content writes value inside an element of schema e (module mod);
// keys already written are skipped.
func (x *xmlBuilder) content(value any, e *yang.Entry, mod string, written []nyang.Key) error {
	switch v := value.(type) {
	case map[string]any:
		skip := map[string]bool{}
		for _, k := range written {
			if kv, ok := v[k.Name]; ok {
				if s, _ := scalarText(kv); s != k.Value {
					return netproto.Errorf(netproto.CodeYangSyntaxError, "key %s is %v in the value but %q in the path", k.Name, kv, k.Value)
				}
			}
			skip[k.Name] = true
		}
		rest := make(map[string]any, len(v))
		for k, m := range v {
			if !skip[k] {
				rest[k] = m
			}
		}
		return x.members(rest, e, mod, "")
	case []any:
		if len(v) == 1 && v[0] == nil {
			return nil // empty
		}
		return netproto.Errorf(netproto.CodeYangSyntaxError, "an array value needs a path to a list or leaf-list without keys")
	case nil:
		return nil
	default:
		return x.scalar(v, e)
	}
}

// members writes the members of an object under schema e of module mod;
// list keys (from the schema) come first, the rest sorted.
func (x *xmlBuilder) members(m map[string]any, e *yang.Entry, mod, attrs string) error {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	keys := listKeys(e)
	slices.SortFunc(names, func(a, b string) int {
		ia, ib := slices.Index(keys, a), slices.Index(keys, b)
		switch {
		case ia >= 0 && ib >= 0:
			return ia - ib
		case ia >= 0:
			return -1
		case ib >= 0:
			return 1
		}
		return strings.Compare(a, b)
	})
	for _, k := range names {
		cmod, name := mod, k
		if p, l, ok := strings.Cut(k, ":"); ok {
			cmod, name = p, l
		} else if mod == "" {
			return netproto.Errorf(netproto.CodeYangSyntaxError, "top-level member %q is not module-qualified (RFC 7951)", k)
		}
		var ce *yang.Entry
		if e == nil && mod == "" {
			ce = x.s.topEntry(cmod, name)
		} else {
			ce = dataChild(e, name)
		}
		v := m[k]
		if arr, ok := v.([]any); ok && !(len(arr) == 1 && arr[0] == nil) {
			for _, item := range arr {
				if err := x.element(name, cmod, mod, item, ce, attrs); err != nil {
					return err
				}
			}
			continue
		}
		if err := x.element(name, cmod, mod, v, ce, attrs); err != nil {
			return err
		}
	}
	return nil
}

// element writes <name>value</name>.
func (x *xmlBuilder) element(name, mod, parentMod string, value any, e *yang.Entry, attrs string) error {
	if s, ok := value.(string); ok && x.isIdentity(e, s) {
		pfx, _, _ := strings.Cut(s, ":")
		ns, _ := x.ns(pfx)
		attrs += ` xmlns:` + pfx + `="` + escAttr(ns) + `"`
	}
	if err := x.open(mod, parentMod, name, attrs); err != nil {
		return err
	}
	if err := x.content(value, e, mod, nil); err != nil {
		return err
	}
	x.close(name)
	return nil
}

// isIdentity reports whether s is a module-qualified identity for leaf e:
// the schema says identityref (or a union with one), or, without schema,
// s starts with the name of a module the device has.
func (x *xmlBuilder) isIdentity(e *yang.Entry, s string) bool {
	pfx, _, ok := strings.Cut(s, ":")
	if !ok {
		return false
	}
	if _, known := x.ns(pfx); !known {
		return false
	}
	if e == nil || e.Type == nil {
		return true
	}
	return hasIdentityref(leafType(e))
}

func hasIdentityref(t *yang.YangType) bool {
	if t == nil {
		return false
	}
	if t.Kind == yang.Yidentityref {
		return true
	}
	for _, m := range t.Type {
		if hasIdentityref(m) {
			return true
		}
	}
	return false
}

func (x *xmlBuilder) scalar(v any, e *yang.Entry) error {
	s, ok := scalarText(v)
	if !ok {
		return netproto.Errorf(netproto.CodeYangSyntaxError, "value %v (%T) is not a JSON scalar", v, v)
	}
	x.text(s)
	return nil
}

// scalarText renders a JSON scalar as XML text.
func scalarText(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(t), true
	case int:
		return strconv.Itoa(t), true
	case int64:
		return strconv.FormatInt(t, 10), true
	}
	return fmt.Sprint(v), false
}

func escAttr(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}
