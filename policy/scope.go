package policy

import (
	"fmt"
	"strings"

	"github.com/netmcp/netmcp/yang"
)

// Scope kinds (the part before the first colon).
const (
	ScopeTool      = "tool"
	ScopeResource  = "resource"
	ScopeYANG      = "yang"
	ScopeYANGWrite = "yang-write"
	// ScopeSecrets grants access to secret subtrees and unredacted values.
	ScopeSecrets = "secrets"
)

// Scope is a parsed scope string.
type Scope struct {
	// Kind is tool, resource, yang, yang-write, device or secrets.
	Kind string
	// Pattern is the tool name, URI or device name, with an optional
	// trailing "*", or a device attribute (tag=T, site=S, role=R).
	Pattern string
	// Path is the subtree of a yang or yang-write scope (nil: every path).
	Path yang.Path
	// All is set for a yang/yang-write scope of "*" or "/".
	All bool
	raw string
}

// String returns the scope as written.
func (s Scope) String() string { return s.raw }

// ParseScope parses one scope string.
func ParseScope(s string) (Scope, error) {
	if s == ScopeSecrets {
		return Scope{Kind: ScopeSecrets, raw: s}, nil
	}
	kind, rest, ok := strings.Cut(s, ":")
	if !ok || rest == "" {
		return Scope{}, fmt.Errorf("policy: scope %q: want tool:NAME, resource:URI, yang:PATH, yang-write:PATH, device:NAME|tag=T|site=S|role=R or secrets", s)
	}
	sc := Scope{Kind: kind, raw: s}
	switch kind {
	case ScopeTool, ScopeResource:
		if i := strings.IndexByte(rest, '*'); i >= 0 && i != len(rest)-1 {
			return Scope{}, fmt.Errorf("policy: scope %q: '*' may only end the pattern", s)
		}
		sc.Pattern = rest
	case ScopeDevice:
		if err := parseDevicePattern(s, rest); err != nil {
			return Scope{}, err
		}
		sc.Pattern = rest
	case ScopeYANG, ScopeYANGWrite:
		if rest == "*" || rest == "/" {
			sc.All = true
			break
		}
		p, err := yang.ParsePath(rest)
		if err != nil {
			return Scope{}, fmt.Errorf("policy: scope %q: %w", s, err)
		}
		sc.Path = p
	default:
		return Scope{}, fmt.Errorf("policy: scope %q: unknown kind %q", s, kind)
	}
	return sc, nil
}

// ParseScopes parses a list of scope strings.
func ParseScopes(list []string) ([]Scope, error) {
	out := make([]Scope, 0, len(list))
	for _, s := range list {
		sc, err := ParseScope(s)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, nil
}

// matchPattern matches a name against NAME, PREFIX* or *.
func matchPattern(pattern, name string) bool {
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(name, p)
	}
	return pattern == name
}

// covers reports whether the subtree scope covers path p.
func (s Scope) covers(p yang.Path) bool {
	return s.All || IsPrefix(s.Path, p)
}

// IsPrefix reports whether p names q or an ancestor of q. Module names are
// compared after canonicalisation; an element of p without keys matches
// any keys in q; one with keys needs the same key values in q (keys
// without names, from RESTCONF paths, compare by position).
func IsPrefix(p, q yang.Path) bool {
	if len(p) > len(q) {
		return false
	}
	pm, qm := "", ""
	for i := range p {
		a, b := p[i], q[i]
		if a.Module != "" {
			pm = a.Module
		}
		if b.Module != "" {
			qm = b.Module
		}
		if pm != qm || a.Name != b.Name {
			return false
		}
		if len(a.Keys) == 0 {
			continue
		}
		if !keysMatch(a.Keys, b.Keys) {
			return false
		}
	}
	return true
}

func keysMatch(want, have []yang.Key) bool {
	for i, k := range want {
		found := false
		for j, h := range have {
			if (k.Name == "" || h.Name == "") && i == j && k.Value == h.Value {
				found = true
			}
			if k.Name != "" && k.Name == h.Name && k.Value == h.Value {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}
