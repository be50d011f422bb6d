package policy

import (
	"fmt"
	"strings"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// ActionKind is what a caller tries to do.
type ActionKind string

// Action kinds.
const (
	CallTool     ActionKind = "call-tool"
	ReadResource ActionKind = "read-resource"
	ReadPath     ActionKind = "read-path"
	WritePath    ActionKind = "write-path"
)

// Action is one thing to authorise. A tools/call of network.yang.edit is
// two actions: CallTool of the tool, then WritePath of its path.
type Action struct {
	Kind ActionKind
	// Tool is the tool name (dotted or compatibility form) for CallTool.
	Tool string
	// URI is the resource URI for ReadResource.
	URI string
	// Path is the YANG instance path (XPath or RESTCONF form) for ReadPath and WritePath.
	Path string
	// Device names the device the action is on, for the words of a
	// refusal ("" on a device's own server; DecideOn sets it).
	Device string
}

// describe returns the action in words, for error details.
func (a Action) describe() string {
	if a.Device != "" {
		b := a
		b.Device = ""
		return b.describe() + " on device " + a.Device
	}
	switch a.Kind {
	case CallTool:
		return "calling tool " + a.Tool
	case ReadResource:
		return "reading resource " + a.URI
	case ReadPath:
		return "reading " + a.Path
	case WritePath:
		return "writing " + a.Path
	}
	return string(a.Kind)
}

// Decide authorises action for id with the default policy (built-in roles).
func Decide(id Identity, action Action) error { return Default().Decide(id, action) }

// Decide returns nil when id may perform action, else a *netproto.Error
// with code -32083 (Network.AccessDenied) whose detail names what was
// denied and why (and whose path is set for path actions).
func (p *Policy) Decide(id Identity, a Action) error {
	var path yang.Path
	switch a.Kind {
	case CallTool:
		if a.Tool == "" {
			return deny(a, "no tool named")
		}
		a.Tool = netproto.CanonicalName(a.Tool)
	case ReadResource:
		if a.URI == "" {
			return deny(a, "no resource URI")
		}
	case ReadPath, WritePath:
		pp, err := yang.ParsePath(a.Path)
		if err != nil {
			return deny(a, "the path cannot be checked: "+err.Error())
		}
		path = pp
		a.Path = pp.String()
	default:
		return deny(a, fmt.Sprintf("unknown action kind %q", a.Kind))
	}
	if len(id.Roles) == 0 {
		return deny(a, fmt.Sprintf("%s has no role", id))
	}
	roleScopes := p.roleScopes(id)
	who := fmt.Sprintf("the roles (%s) of %s", strings.Join(id.Roles, ","), id)
	if err := p.check(roleScopes, a, path, who); err != nil {
		return err
	}
	if id.Scopes == nil {
		return nil
	}
	tokenScopes := tokenScopes(id.Scopes)
	if len(tokenScopes) == 0 {
		return deny(a, fmt.Sprintf("the token of %s carries no netmcp scope", id))
	}
	return p.check(tokenScopes, a, path, "the token scopes of "+id.String())
}

// check tests a against one set of scopes, then the secret subtrees.
func (p *Policy) check(scopes []Scope, a Action, path yang.Path, who string) error {
	if !grants(scopes, a, path) {
		return deny(a, who+" "+missing(a))
	}
	if (a.Kind != ReadPath && a.Kind != WritePath) || hasSecrets(scopes) {
		return nil
	}
	for _, s := range p.secrets {
		if IsPrefix(s, path) {
			return deny(a, fmt.Sprintf("%s is inside secret subtree %s; %s lack the %q scope", path, s, who, ScopeSecrets))
		}
		if a.Kind == WritePath && IsPrefix(path, s) {
			return deny(a, fmt.Sprintf("writing %s could change secret subtree %s; %s lack the %q scope (write a narrower path)", path, s, who, ScopeSecrets))
		}
	}
	return nil
}

// missing says which scope would have allowed a.
func missing(a Action) string {
	switch a.Kind {
	case CallTool:
		return "do not include tool:" + a.Tool
	case ReadResource:
		return "do not include resource:" + a.URI
	case ReadPath:
		return "grant no yang: or yang-write: scope covering " + a.Path
	}
	return "grant no yang-write: scope covering " + a.Path
}

// grants reports whether any scope allows a.
func grants(scopes []Scope, a Action, path yang.Path) bool {
	for _, s := range scopes {
		switch {
		case a.Kind == CallTool && s.Kind == ScopeTool && matchPattern(s.Pattern, a.Tool):
			return true
		case a.Kind == ReadResource && s.Kind == ScopeResource && matchPattern(s.Pattern, a.URI):
			return true
		case a.Kind == ReadPath && (s.Kind == ScopeYANG || s.Kind == ScopeYANGWrite) && s.covers(path):
			return true
		case a.Kind == WritePath && s.Kind == ScopeYANGWrite && s.covers(path):
			return true
		}
	}
	return false
}

func hasSecrets(scopes []Scope) bool {
	for _, s := range scopes {
		if s.Kind == ScopeSecrets {
			return true
		}
	}
	return false
}

// tokenScopes parses a token's scopes, ignoring those that are not
// netmcp's (openid, email...).
func tokenScopes(list []string) []Scope {
	var out []Scope
	for _, s := range list {
		if sc, err := ParseScope(s); err == nil {
			out = append(out, sc)
		}
	}
	return out
}

// MayReadSecrets reports whether id may see secret values unredacted:
// its roles and, for a token, its scopes include "secrets".
func (p *Policy) MayReadSecrets(id Identity) bool {
	if !hasSecrets(p.roleScopes(id)) {
		return false
	}
	return id.Scopes == nil || hasSecrets(tokenScopes(id.Scopes))
}

// roleScopes returns the scopes granted by all of id's roles.
func (p *Policy) roleScopes(id Identity) []Scope {
	var out []Scope
	for _, r := range id.Roles {
		out = append(out, p.roles[r]...)
	}
	return out
}

func deny(a Action, why string) *netproto.Error {
	e := netproto.Errorf(netproto.CodeAccessDenied, "%s denied: %s", a.describe(), why)
	if a.Kind == ReadPath || a.Kind == WritePath {
		e.Path = a.Path
	}
	return e
}
