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
