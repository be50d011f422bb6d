package yang

import (
	"math"
	"strconv"
	"strings"
)

// unqualifiedAugments are modules whose nodes the data model writes without
// a module prefix even where the module changes (docs/datamodel.md: ipv4 and
// ipv6 of openconfig-if-ip under a subinterface).
var unqualifiedAugments = map[string]bool{"openconfig-if-ip": true}

// commonKeys are the key names used to match list entries when no schema
// says which leaves are a list's keys.
var commonKeys = []string{"name", "id", "index", "ip", "vlan-id", "sequence-id",
	"destination-prefix", "set-name", "username"}

// numericKeys are key leaves whose values are numbers when no schema is at hand.
var numericKeys = map[string]bool{"index": true, "vlan-id": true, "sequence-id": true}

// memberName returns the JSON member name of e below a node of parentModule
// (RFC 7951 section 4: qualified where the module changes).
func memberName(e PathElem, parentModule string) string {
	m := e.Module
	if m == "" || m == parentModule || (parentModule != "" && unqualifiedAugments[m]) {
		return e.Name
	}
	return m + ":" + e.Name
}

// effectiveModule returns e's module given its parent's.
func effectiveModule(e PathElem, parentModule string) string {
	if e.Module != "" {
		return e.Module
	}
	return parentModule
}

// lookupMember finds e's member in m, accepting the qualified and the bare
// spelling and, failing both when the path gave no module below the top, a
// unique member with the same local name under another prefix
// (openconfig-if-ip:ipv4 or openconfig-vlan:switched-vlan for a bare name).
func lookupMember(m map[string]any, e PathElem, parentModule string) (string, any, bool) {
	name := memberName(e, parentModule)
	if v, ok := m[name]; ok {
		return name, v, true
	}
	if name != e.Name {
		if v, ok := m[e.Name]; ok {
			return e.Name, v, true
		}
	} else if em := effectiveModule(e, parentModule); em != "" {
		if v, ok := m[em+":"+e.Name]; ok {
			return em + ":" + e.Name, v, true
		}
	}
	if e.Module != "" || parentModule == "" {
		return "", nil, false
	}
	found := ""
	for k := range m {
		if i := strings.IndexByte(k, ':'); i >= 0 && k[i+1:] == e.Name {
			if found != "" {
				return "", nil, false
			}
			found = k
		}
	}
	if found != "" {
		return found, m[found], true
	}
	return "", nil, false
}

// elemOfMember returns the PathElem of JSON member k below a node of
// parentModule, and the member's effective module.
func elemOfMember(k, parentModule string) (PathElem, string) {
	if i := strings.IndexByte(k, ':'); i >= 0 {
		mod, name := k[:i], k[i+1:]
		if mod == parentModule {
			return PathElem{Name: name}, mod
		}
		return PathElem{Module: mod, Name: name}, mod
	}
	return PathElem{Name: k}, parentModule
}

// scalarString returns the text of a JSON scalar as it appears in a path key.
func scalarString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return strconv.FormatInt(int64(x), 10), true
		}
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	}
	return "", false
}

// entryMatches reports whether list entry v has the given keys. Unnamed keys
// (RESTCONF paths of unknown lists) match the entry's common key members in
// order.
func entryMatches(v any, keys []Key) bool {
	m, ok := v.(map[string]any)
	if !ok {
		if len(keys) == 1 && keys[0].Name == "." { // leaf-list instance
			s, ok := scalarString(v)
			return ok && s == keys[0].Value
		}
		return false
	}
	if keys[0].Name == "" {
		i := 0
		for _, name := range commonKeys {
			if i == len(keys) {
				break
			}
			if x, ok := m[name]; ok {
				s, ok := scalarString(x)
				if !ok || s != keys[i].Value {
					return false
				}
				i++
			}
		}
		return i == len(keys)
	}
	for _, k := range keys {
		s, ok := scalarString(m[k.Name])
		if !ok || s != k.Value {
			return false
		}
	}
	return true
}

// findEntry returns the index of the entry of list with keys, or -1.
func findEntry(list []any, keys []Key) int {
	for i, v := range list {
		if entryMatches(v, keys) {
			return i
		}
	}
	return -1
}

// entryKeys returns the keys of entry under the key names, or false if a
// key is missing or not a scalar.
func entryKeys(entry map[string]any, names []string) ([]Key, bool) {
	keys := make([]Key, len(names))
	for i, n := range names {
		s, ok := scalarString(entry[n])
		if !ok {
			return nil, false
		}
		keys[i] = Key{Name: n, Value: s}
	}
	return keys, true
}

// guessKeys returns the first common key name present in every entry of the
// lists, or nil.
func guessKeys(lists ...[]any) []string {
	for _, name := range commonKeys {
		all, some := true, false
		for _, l := range lists {
			for _, v := range l {
				some = true
				m, ok := v.(map[string]any)
				if !ok {
					return nil
				}
				if _, ok := m[name]; !ok {
					all = false
					break
				}
			}
			if !all {
				break
			}
		}
		if all && some {
			return []string{name}
		}
	}
	return nil
}

// listKeys returns the key names of the list at p: from s when it knows
// the list, otherwise guessed from the entries.
func listKeys(p Path, s *Schema, lists ...[]any) []string {
	if s != nil {
		if k := s.ListKeys(p); k != nil {
			return k
		}
	}
	return guessKeys(lists...)
}

// isObjectList reports whether v is a non-empty JSON array of objects.
func isObjectList(v any) bool {
	l, ok := v.([]any)
	if !ok || len(l) == 0 {
		return false
	}
	for _, e := range l {
		if _, ok := e.(map[string]any); !ok {
			return false
		}
	}
	return true
}
