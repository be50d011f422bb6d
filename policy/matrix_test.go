package policy

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/netproto"
)

// matrixTools are all the tools the matrix checks.
var matrixTools = append(append([]string(nil), netproto.NetworkTools...),
	netproto.ToolPing, netproto.ToolTraceroute, netproto.ToolTracepath, netproto.ToolDNSLookup)

// matrixPaths are the YANG paths the matrix checks, by short name.
var matrixPaths = map[string]string{
	"if-eth0":   "/ietf-interfaces:interfaces/interface[name='eth0']",
	"if-eth1":   "/ietf-interfaces:interfaces/interface=eth1/enabled",
	"routing":   "/ietf-routing:routing/control-plane-protocols",
	"vlan100":   "/openconfig-vlan:vlans/vlan[vlan-id='100']/config/name",
	"hostname":  "/openconfig-system:system/config/hostname",
	"aaa-pw":    "/openconfig-system:system/aaa/authentication/users/user[username='admin']/config/password",
	"snmp-comm": "/ietf-snmp:snmp/community",
	"system":    "/openconfig-system:system",
	"root":      "/",
}

var (
	viewerTools   = []string{netproto.ToolYangGet, netproto.ToolCLIExec, netproto.ToolFilePull}
	operatorTools = append(slices.Clone(viewerTools), netproto.ToolPing, netproto.ToolTraceroute,
		netproto.ToolTracepath, netproto.ToolDNSLookup, netproto.ToolYangEdit, netproto.ToolCLIConfigure,
		netproto.ToolCommit, netproto.ToolRollback)
	nonSecretPaths = []string{"if-eth0", "if-eth1", "routing", "vlan100", "hostname"}
)

// TestAuthorizationMatrix checks every identity against every tool and path.
func TestAuthorizationMatrix(t *testing.T) {
	p := Default()
	all := func(m map[string]string) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		return out
	}
	tests := []struct {
		name        string
		id          Identity
		tools       []string // allowed tools; all others denied
		read, write []string // allowed paths by short name
	}{
		{"viewer", Identity{Subject: "v", Roles: []string{RoleViewer}, Source: SourceMTLS}, viewerTools,
			append(slices.Clone(nonSecretPaths), "system", "root"), nil},
		{"operator", Identity{Subject: "o", Roles: []string{RoleOperator}, Source: SourceMTLS}, operatorTools,
			append(slices.Clone(nonSecretPaths), "system", "root"), nonSecretPaths},
		{"admin", Identity{Subject: "a", Roles: []string{RoleAdmin}, Source: SourceMTLS}, matrixTools,
			all(matrixPaths), all(matrixPaths)},
		{"no role", Identity{Subject: "x", Source: SourceAnonymous}, nil, nil, nil},
		{"unknown role", Identity{Subject: "x", Roles: []string{"ghost"}, Source: SourceMTLS}, nil, nil, nil},
		{"viewer+operator", Identity{Subject: "vo", Roles: []string{RoleViewer, RoleOperator}, Source: SourceMTLS}, operatorTools,
			append(slices.Clone(nonSecretPaths), "system", "root"), nonSecretPaths},
		{"operator token: yang.get + interfaces subtree", Identity{Subject: "t1", Roles: []string{RoleOperator}, Source: SourceJWT,
			Scopes: []string{"tool:network.yang.get", "yang:/ietf-interfaces:interfaces", "openid"}},
			[]string{netproto.ToolYangGet}, []string{"if-eth0", "if-eth1"}, nil},
		{"operator token: one interface only", Identity{Subject: "t2", Roles: []string{RoleOperator}, Source: SourceJWT,
			Scopes: []string{"yang:/ietf-interfaces:interfaces/interface[name='eth0']"}},
			nil, []string{"if-eth0"}, nil},
		{"operator token: write vlan 100", Identity{Subject: "t3", Roles: []string{RoleOperator}, Source: SourceJWT,
			Scopes: []string{"tool:network.yang.*", "yang-write:/openconfig-vlan:vlans/vlan[vlan-id='100']"}},
			[]string{netproto.ToolYangGet, netproto.ToolYangEdit}, []string{"vlan100"}, []string{"vlan100"}},
		{"viewer token cannot widen: tool:* yang-write:* secrets", Identity{Subject: "t4", Roles: []string{RoleViewer}, Source: SourceJWT,
			Scopes: []string{"tool:*", "yang-write:*", "secrets"}},
			viewerTools, append(slices.Clone(nonSecretPaths), "system", "root"), nil},
		{"admin token without secrets", Identity{Subject: "t5", Roles: []string{RoleAdmin}, Source: SourceJWT,
			Scopes: []string{"tool:*", "yang-write:*"}},
			matrixTools, append(slices.Clone(nonSecretPaths), "system", "root"), nonSecretPaths},
		{"admin token with secrets", Identity{Subject: "t6", Roles: []string{RoleAdmin}, Source: SourceJWT,
			Scopes: []string{"tool:*", "yang-write:*", "secrets"}},
			matrixTools, all(matrixPaths), all(matrixPaths)},
		{"token with no netmcp scope", Identity{Subject: "t7", Roles: []string{RoleAdmin}, Source: SourceJWT,
			Scopes: []string{"openid", "email"}}, nil, nil, nil},
		{"token with empty scope", Identity{Subject: "t8", Roles: []string{RoleAdmin}, Source: SourceJWT,
			Scopes: []string{}}, nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, tool := range matrixTools {
				want := slices.Contains(tt.tools, tool)
				checkDecision(t, p.Decide(tt.id, Action{Kind: CallTool, Tool: tool}), want, "tool "+tool, tool)
				// The compatibility name decides the same way.
				checkDecision(t, p.Decide(tt.id, Action{Kind: CallTool, Tool: netproto.CompatName(tool)}), want,
					"tool "+netproto.CompatName(tool), tool)
			}
			for short, path := range matrixPaths {
				checkDecision(t, p.Decide(tt.id, Action{Kind: ReadPath, Path: path}), slices.Contains(tt.read, short), "read "+short, "")
				checkDecision(t, p.Decide(tt.id, Action{Kind: WritePath, Path: path}), slices.Contains(tt.write, short), "write "+short, "")
			}
			res := p.Decide(tt.id, Action{Kind: ReadResource, URI: netproto.URIInterfaces})
			checkDecision(t, res, len(tt.id.Roles) > 0 && tt.id.Roles[0] != "ghost" && tt.id.Scopes == nil, "resource", "")
		})
	}
}

func checkDecision(t *testing.T, err error, allowed bool, what, mention string) {
	t.Helper()
	if allowed {
		if err != nil {
			t.Errorf("%s: denied (%v), want allowed", what, err)
		}
		return
	}
	var ne *netproto.Error
	if !errors.As(err, &ne) || ne.Code != netproto.CodeAccessDenied {
		t.Errorf("%s: got %v, want -32083 Network.AccessDenied", what, err)
		return
	}
	if !strings.Contains(ne.Detail, "denied: ") || (mention != "" && !strings.Contains(ne.Detail, mention)) {
		t.Errorf("%s: detail %q does not say what was denied", what, ne.Detail)
	}
}

func TestDecideDetails(t *testing.T) {
	p := Default()
	op := Identity{Subject: "bob", Roles: []string{RoleOperator}, Source: SourceMTLS}
	tests := []struct {
		action Action
		id     Identity
		detail string
		path   string
	}{
		{Action{Kind: CallTool, Tool: "network.file.push"}, op,
			"calling tool network.file.push denied: the roles (operator) of mtls:bob do not include tool:network.file.push", ""},
		{Action{Kind: ReadPath, Path: "/openconfig-system:system/aaa"}, op,
			`reading /openconfig-system:system/aaa denied: /openconfig-system:system/aaa is inside secret subtree /openconfig-system:system/aaa; the roles (operator) of mtls:bob lack the "secrets" scope`,
			"/openconfig-system:system/aaa"},
		{Action{Kind: WritePath, Path: "/openconfig-system:system"}, op,
			`writing /openconfig-system:system denied: writing /openconfig-system:system could change secret subtree /openconfig-system:system/aaa; the roles (operator) of mtls:bob lack the "secrets" scope (write a narrower path)`,
			"/openconfig-system:system"},
		{Action{Kind: WritePath, Path: "/ietf-interfaces:interfaces"}, Identity{Subject: "amy", Roles: []string{RoleViewer}, Source: SourceJWT, Scopes: []string{"yang:*"}},
			"writing /ietf-interfaces:interfaces denied: the roles (viewer) of jwt:amy grant no yang-write: scope covering /ietf-interfaces:interfaces",
			"/ietf-interfaces:interfaces"},
		{Action{Kind: ReadPath, Path: "/ietf-routing:routing"}, Identity{Subject: "amy", Roles: []string{RoleViewer}, Source: SourceJWT, Scopes: []string{"yang:/ietf-interfaces:interfaces"}},
			"reading /ietf-routing:routing denied: the token scopes of jwt:amy grant no yang: or yang-write: scope covering /ietf-routing:routing",
			"/ietf-routing:routing"},
		{Action{Kind: ReadPath, Path: "no-module"}, op, `reading no-module denied: the path cannot be checked`, "no-module"},
		{Action{Kind: "delete-device"}, op, `unknown action kind "delete-device"`, ""},
		{Action{Kind: CallTool, Tool: "ping"}, Identity{Source: SourceAnonymous}, "calling tool ping denied: anonymous has no role", ""},
	}
	for _, tt := range tests {
		err := p.Decide(tt.id, tt.action)
		var ne *netproto.Error
		if !errors.As(err, &ne) || ne.Code != netproto.CodeAccessDenied {
			t.Errorf("%+v: %v", tt.action, err)
			continue
		}
		if !strings.HasPrefix(ne.Detail, tt.detail) && !strings.Contains(ne.Detail, tt.detail) {
			t.Errorf("%+v:\n got %q\nwant %q", tt.action, ne.Detail, tt.detail)
		}
		if ne.Path != tt.path {
			t.Errorf("%+v: path %q, want %q", tt.action, ne.Path, tt.path)
		}
		if ne.Message() != "Network.AccessDenied" {
			t.Errorf("message %q", ne.Message())
		}
	}
	// Package-level Decide uses the built-in roles.
	if err := Decide(op, Action{Kind: CallTool, Tool: "network.commit"}); err != nil {
		t.Errorf("Decide: %v", err)
	}
}

func TestMayReadSecrets(t *testing.T) {
	p := Default()
	for _, tt := range []struct {
		id   Identity
		want bool
	}{
		{Identity{Roles: []string{RoleAdmin}, Source: SourceMTLS}, true},
		{Identity{Roles: []string{RoleOperator}, Source: SourceMTLS}, false},
		{Identity{Roles: []string{RoleAdmin}, Source: SourceJWT, Scopes: []string{"tool:*"}}, false},
		{Identity{Roles: []string{RoleAdmin}, Source: SourceJWT, Scopes: []string{"secrets"}}, true},
		{Identity{Roles: []string{RoleViewer}, Source: SourceJWT, Scopes: []string{"secrets"}}, false},
	} {
		if got := p.MayReadSecrets(tt.id); got != tt.want {
			t.Errorf("%+v: %v", tt.id, got)
		}
	}
}
