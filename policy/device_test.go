package policy

import (
	"errors"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/netproto"
)

// devicePolicy: a NOC role reads any device; a field role writes only
// site-a devices; an edge role reads devices tagged edge and r9*.
const devicePolicy = `
roles:
  noc: [tool:network.yang.get, tool:ask, "yang:*"]
  field: [tool:network.yang.edit, "yang-write:*", device:site=a]
  edge: [tool:network.yang.get, "yang:*", device:tag=edge, device:r9*]
identities:
  - {subject: noc, roles: [noc]}
  - {subject: tech, roles: [noc, field]}
  - {subject: edge, roles: [edge]}
`

func TestDeviceScopes(t *testing.T) {
	p, err := Parse([]byte(devicePolicy))
	if err != nil {
		t.Fatal(err)
	}
	r1 := Device{Name: "r1", Site: "a", Role: "router"}
	r2 := Device{Name: "r2", Site: "b", Tags: []string{"edge"}}
	r91 := Device{Name: "r91", Site: "b"}
	get := Action{Kind: CallTool, Tool: netproto.ToolYangGet}
	edit := Action{Kind: CallTool, Tool: netproto.ToolYangEdit}
	write := Action{Kind: WritePath, Path: "/openconfig-interfaces:interfaces"}
	tests := []struct {
		name   string
		id     Identity
		dev    Device
		action Action
		deny   string // "" allowed; else a word of the refusal
	}{
		{"noc reads any device", p.Resolve("noc", SourceMTLS, nil), r2, get, ""},
		{"noc may not edit", p.Resolve("noc", SourceMTLS, nil), r1, edit, "tool:network.yang.edit"},
		{"tech edits site a", p.Resolve("tech", SourceMTLS, nil), r1, edit, ""},
		{"tech writes a path at site a", p.Resolve("tech", SourceMTLS, nil), r1, write, ""},
		{"tech may not edit site b", p.Resolve("tech", SourceMTLS, nil), r2, edit, "role field is limited to device:site=a"},
		{"tech's noc role does not lend reach to its field role", p.Resolve("tech", SourceMTLS, nil), r91, write, "device r91"},
		{"tech reads site b through noc", p.Resolve("tech", SourceMTLS, nil), r2, get, ""},
		{"edge reads tagged device", p.Resolve("edge", SourceMTLS, nil), r2, get, ""},
		{"edge reads r9* by name", p.Resolve("edge", SourceMTLS, nil), r91, get, ""},
		{"edge may not read r1", p.Resolve("edge", SourceMTLS, nil), r1, get, "(site=a role=router)"},
		{"token limited to site a", p.Resolve("noc", SourceJWT, []string{"tool:*", "yang:*", "device:site=a"}), r2, get, "token scopes of jwt:noc do not reach device r2"},
		{"token reaching site a", p.Resolve("noc", SourceJWT, []string{"tool:*", "yang:*", "device:site=a"}), r1, get, ""},
		{"no role", p.Resolve("nobody", SourceMTLS, nil), r1, get, "has no role"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := p.DecideOn(tc.id, tc.dev, tc.action)
			if tc.deny == "" {
				if err != nil {
					t.Fatalf("denied: %v", err)
				}
				return
			}
			var ne *netproto.Error
			if !errors.As(err, &ne) || ne.Code != netproto.CodeAccessDenied {
				t.Fatalf("want -32083, got %v", err)
			}
			if !strings.Contains(ne.Detail, tc.deny) || !strings.Contains(ne.Detail, "on device "+tc.dev.Name) || !strings.Contains(ne.Detail, tc.id.String()) {
				t.Errorf("refusal %q does not name %q, the device and the identity", ne.Detail, tc.deny)
			}
		})
	}
	reach := []struct {
		subject string
		dev     Device
		want    bool
	}{
		{"noc", r1, true}, {"edge", r1, false}, {"edge", r2, true}, {"edge", r91, true}, {"nobody", r1, false},
	}
	for _, tc := range reach {
		if got := p.Reaches(p.Resolve(tc.subject, SourceMTLS, nil), tc.dev); got != tc.want {
			t.Errorf("%s reaches %s: %v, want %v", tc.subject, tc.dev.Name, got, tc.want)
		}
	}
}

func TestParseDeviceScope(t *testing.T) {
	for _, tc := range []struct {
		scope string
		ok    bool
	}{
		{"device:r1", true}, {"device:r*", true}, {"device:*", true},
		{"device:tag=edge", true}, {"device:site=paris", true}, {"device:role=core", true},
		{"device:*1", false}, {"device:vendor=x", false}, {"device:tag=", false}, {"device:site=p*", false}, {"device:", false},
	} {
		if _, err := ParseScope(tc.scope); (err == nil) != tc.ok {
			t.Errorf("%s: error %v, want ok=%v", tc.scope, err, tc.ok)
		}
	}
}
