package yang

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// The accessors below read a decoded RFC 7951 tree (or any part of it)
// without a parsed Path: by member names, for code that knows the shape
// of the data it reads. They never fail: what is missing or of another
// type gives the zero value.

// Member returns the value reached from v through the object members
// names, in turn, or nil when a step is missing or not an object. A name
// matches the member of that name or else the one member with the same
// local name, whatever module qualifies either: "acl" finds
// "openconfig-acl:acl" and "openconfig-acl:acl" finds "acl" (RFC 7951
// qualifies a member only where its module changes). Several members
// with that local name and none of that exact name match nothing.
func Member(v any, names ...string) any {
	for _, name := range names {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		if v, ok = m[name]; ok {
			continue
		}
		v = nil
		local := localName(name)
		found := false
		for k, x := range m {
			if localName(k) == local {
				if found {
					return nil
				}
				v, found = x, true
			}
		}
		if !found {
			return nil
		}
	}
	return v
}

// localName returns a member name without its module prefix.
func localName(name string) string {
	if i := strings.IndexByte(name, ':'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// Object returns v as a JSON object, or nil.
func Object(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// List returns v as a JSON array, or nil.
func List(v any) []any {
	l, _ := v.([]any)
	return l
}

// String returns v when it is a string, else "".
func String(v any) string {
	s, _ := v.(string)
	return s
}

// Text returns a leaf's value as text: a string as it is, a number or a
// boolean as JSON writes it; "" for anything else.
func Text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

// Int returns a leaf's value as an integer: a JSON number without a
// fraction, or the decimal string RFC 7951 writes 64-bit integers as. ok
// is false for anything else.
func Int(v any) (n int64, ok bool) {
	switch x := v.(type) {
	case float64:
		if x != math.Trunc(x) || x < math.MinInt64 || x >= math.MaxInt64 {
			return 0, false
		}
		return int64(x), true
	case json.Number:
		n, err := x.Int64()
		if err != nil {
			return 0, false
		}
		return n, true
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			return 0, false
		}
		return n, true
	}
	return 0, false
}

// Number returns a leaf's value as a number: a JSON number, or the
// decimal string RFC 7951 writes 64-bit integers and decimal64 values as.
// ok is false for anything else.
func Number(v any) (f float64, ok bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	}
	return 0, false
}

// Identity returns an identityref's value without its module prefix:
// "openconfig-bgp-types:ESTABLISHED" gives "ESTABLISHED". A value of the
// form prefix:name, both YANG identifiers, loses its prefix; any other
// leaf (a bare identity, an IPv6 address) is given as Text gives it.
func Identity(v any) string {
	s := Text(v)
	i := strings.IndexByte(s, ':')
	if i < 0 || !isIdentifier(s[:i]) || !isIdentifier(s[i+1:]) {
		return s
	}
	return s[i+1:]
}

// isIdentifier reports whether s is a YANG identifier.
func isIdentifier(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentChar(s[i]) {
			return false
		}
	}
	return true
}

// Leaf returns the leaf name of an OpenConfig node v: the one in its
// state container, else the one in its config container, else v's own
// member, names matched as Member does. State comes first: it is what
// the device runs. It returns nil when none is there.
func Leaf(v any, name string) any {
	if x := Member(v, "state", name); x != nil {
		return x
	}
	if x := Member(v, "config", name); x != nil {
		return x
	}
	return Member(v, name)
}

// Entries returns the entries of the list named list, in v given as the
// list itself, as the object holding it, or as (the object holding) its
// container named container, names matched as Member does: so
// [...], {"interface": [...]}, {"interfaces": {"interface": [...]}} and
// {"openconfig-interfaces:interfaces": {"interface": [...]}} give the
// same entries. It returns nil when v holds no such list.
func Entries(v any, container, list string) []any {
	for {
		switch t := v.(type) {
		case []any:
			return t
		case map[string]any:
			if l, ok := Member(t, list).([]any); ok {
				return l
			}
			if c := Member(t, container); c != nil {
				v = c
				continue
			}
		}
		return nil
	}
}
