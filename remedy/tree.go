package remedy

import (
	"encoding/json"
	"strconv"
	"strings"
)

// dig walks a decoded JSON tree through object members; a member name
// also matches a member qualified by a module ("openconfig-acl:acl" for
// "acl"). It returns nil when a step is missing.
func dig(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		next, ok := m[p]
		if !ok {
			for k, x := range m {
				if _, local, found := strings.Cut(k, ":"); found && local == p {
					next, ok = x, true
					break
				}
			}
		}
		if !ok {
			return nil
		}
		v = next
	}
	return v
}

// list returns v as a list ([] for anything else).
func list(v any) []any {
	l, _ := v.([]any)
	return l
}

// obj returns v as an object (nil for anything else).
func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// str returns a leaf as a string (numbers formatted, "" when absent).
func str(v any) string {
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

// integer returns a leaf as an integer (uint64 counters are strings in
// RFC 7951); 0 when absent or not a number.
func integer(v any) int64 {
	switch x := v.(type) {
	case float64:
		return int64(x)
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		if err == nil {
			return n
		}
		f, err := strconv.ParseFloat(x, 64)
		if err == nil {
			return int64(f)
		}
	case json.Number:
		n, _ := x.Int64()
		return n
	}
	return 0
}

// identity strips the module prefix of an identityref value
// ("openconfig-bgp-types:ESTABLISHED" -> "ESTABLISHED").
func identity(v any) string {
	s := str(v)
	if i := strings.LastIndexByte(s, ':'); i >= 0 && !strings.Contains(s[i+1:], ".") {
		return s[i+1:]
	}
	return s
}

// leaf returns the first of config/state's member key present in node
// (state preferred: what the device runs).
func leaf(node map[string]any, key string) any {
	if v := dig(node, "state", key); v != nil {
		return v
	}
	if v := dig(node, "config", key); v != nil {
		return v
	}
	return node[key]
}
