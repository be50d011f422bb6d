package policy

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/approval"
	"github.com/netmcp/netmcp/netproto"
)

func TestLoadPolicyFile(t *testing.T) {
	p, err := Load("testdata/policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.RoleNames(), ","); got != "admin,noc,operator,viewer" {
		t.Errorf("roles %s", got)
	}
	tests := []struct {
		subject, source string
		roles           string
	}{
		{"alice", SourceMTLS, "operator"},
		{"alice", SourceJWT, ""}, // mapping is mtls-only; jwt default is none
		{"root-ops", SourceJWT, "admin"},
		{"root-ops", SourceMTLS, "admin"},
		{"svc-monitor", SourceJWT, "noc"},
		{"carol", SourceMTLS, "viewer"},
		{"", SourceAnonymous, ""},
	}
	for _, tt := range tests {
		if id := p.Resolve(tt.subject, tt.source, nil); strings.Join(id.Roles, ",") != tt.roles {
			t.Errorf("%s/%s: roles %v, want %s", tt.source, tt.subject, id.Roles, tt.roles)
		}
	}
	noc := p.Resolve("svc-monitor", SourceJWT, []string{"tool:*", "yang:*"})
	if err := p.Decide(noc, Action{Kind: CallTool, Tool: "ping"}); err != nil {
		t.Errorf("noc ping: %v", err)
	}
	if err := p.Decide(noc, Action{Kind: CallTool, Tool: "network.commit"}); err == nil {
		t.Error("noc may commit")
	}
	approvals := []struct {
		tool string
		mode approval.Mode
		need bool
	}{
		{"network.yang.get", approval.Never, false},
		{"network.cli.exec", approval.Always, true},
		{"network.commit", approval.Always, true},
		{"network_commit", approval.Always, true},
		{"network.rollback", approval.Never, false},
		{"network.yang.edit", approval.Writes, true},
		{"network.file.push", approval.Writes, true},
		{"ping", approval.Writes, false},
	}
	// The policy's modes as the server's gate applies them: asked with the
	// dotted name, whatever name the client used.
	opts := p.Approval()
	gate := approval.New(opts)
	for _, a := range approvals {
		tool := netproto.CanonicalName(a.tool)
		if m, need := gate.Mode(tool), gate.Needs(tool, IsWriteTool(tool)); m != a.mode || need != a.need {
			t.Errorf("%s: mode %s need %v; want %s %v", a.tool, m, need, a.mode, a.need)
		}
	}
	if opts.Default != approval.Writes || len(opts.Modes) != 4 {
		t.Errorf("approval options: default %s, modes %v", opts.Default, opts.Modes)
	}
	f := p.File()
	if f.RateLimit.PerSecond != 5 || f.RateLimit.Burst != 10 || f.MaxConcurrentPerSession != 4 {
		t.Errorf("limits %+v %d", f.RateLimit, f.MaxConcurrentPerSession)
	}
}

// TestFourEyes: approval.fourEyes is off unless the file turns it on, and
// a value that is not a boolean is refused.
func TestFourEyes(t *testing.T) {
	for _, c := range []struct {
		yaml string
		want bool
	}{{"", false}, {"approval: {fourEyes: false}", false}, {"approval: {default: writes, fourEyes: true}", true}} {
		p, err := Parse([]byte(c.yaml))
		if err != nil {
			t.Fatalf("%q: %v", c.yaml, err)
		}
		if p.FourEyes() != c.want {
			t.Errorf("%q: FourEyes %v, want %v", c.yaml, p.FourEyes(), c.want)
		}
	}
	if _, err := Parse([]byte("approval: {fourEyes: twice}")); err == nil {
		t.Error("fourEyes: twice was taken")
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ yaml, want string }{
		{"identities: [{subject: a, roles: [superuser]}]", `unknown role "superuser"`},
		{"identities: [{subject: a, source: ssh, roles: [admin]}]", `source "ssh"`},
		{"identities: [{roles: [admin]}]", "empty subject"},
		{"approval: {default: sometimes}", `approval.default "sometimes"`},
		{"approval: {tools: {ping: maybe}}", `approval.tools.ping: "maybe"`},
		{"roles: {x: [tool:a*b]}", "'*' may only end"},
		{"roles: {x: [yang:no-module]}", "no module prefix"},
		{"roles: {x: [disk:/]}", `unknown kind "disk"`},
		{"defaultRoles: {ssh: [viewer]}", `unknown source "ssh"`},
		{"secretPaths: [bad]", "secretPaths"},
		{"rateLimit: {perSecond: 0, burst: 1}", "perSecond > 0"},
		{"maxConcurrentPerSession: -1", "negative"},
		{"rolez: {}", "field rolez not found"},
	}
	for _, tt := range tests {
		if _, err := Parse([]byte(tt.yaml)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.yaml, err, tt.want)
		}
	}
	if p, err := Parse(nil); err != nil || approval.New(p.Approval()).Mode("x") != approval.Writes {
		t.Errorf("empty policy: %v", err)
	}
}

func TestIdentityFromTLS(t *testing.T) {
	p, err := Parse([]byte("identities: [{subject: alice, roles: [operator]}]\ndefaultRoles: {anonymous: [viewer]}"))
	if err != nil {
		t.Fatal(err)
	}
	cert := &x509.Certificate{Subject: pkix.Name{CommonName: "alice"}}
	id := p.IdentityFromTLS(tls.ConnectionState{PeerCertificates: []*x509.Certificate{cert}, VerifiedChains: [][]*x509.Certificate{{cert}}})
	if id.Subject != "alice" || id.Source != SourceMTLS || strings.Join(id.Roles, ",") != "operator" || id.String() != "mtls:alice" {
		t.Errorf("verified peer: %+v", id)
	}
	// An unverified certificate (no chain) is not an identity.
	id = p.IdentityFromTLS(tls.ConnectionState{PeerCertificates: []*x509.Certificate{cert}})
	if id.Source != SourceAnonymous || id.Subject != "" || strings.Join(id.Roles, ",") != "viewer" || id.String() != "anonymous" {
		t.Errorf("unverified peer: %+v", id)
	}
}

func TestScopes(t *testing.T) {
	tests := []struct {
		scope, path string
		covers      bool
	}{
		{"yang:/ietf-interfaces:interfaces", "/ietf-interfaces:interfaces/interface[name='eth0']/enabled", true},
		{"yang:/ietf-interfaces:interfaces", "/ietf-interfaces:interfaces", true},
		{"yang:/ietf-interfaces:interfaces/interface", "/ietf-interfaces:interfaces/interface=eth0", true},
		{"yang:/ietf-interfaces:interfaces/interface[name='eth0']", "/ietf-interfaces:interfaces/interface[name='eth0']/mtu", true},
		{"yang:/ietf-interfaces:interfaces/interface[name='eth0']", "/ietf-interfaces:interfaces/interface[name='eth1']/mtu", false},
		{"yang:/ietf-interfaces:interfaces/interface[name='eth0']", "/ietf-interfaces:interfaces/interface", false},
		{"yang:/ietf-interfaces:interfaces/interface[name='eth0']", "/ietf-interfaces:interfaces/interface=eth0", true},
		{"yang:/ietf-interfaces:interfaces", "/ietf-interfaces:interfaces-state", false},
		{"yang:/ietf-interfaces:interfaces", "/openconfig-interfaces:interfaces", false},
		{"yang:/ietf-interfaces:interfaces/interface", "/ietf-interfaces:interfaces", false},
		{"yang:/ietf-routing:routing", "/ietf-routing:routing/ribs/rib[name='ipv4-master']", true},
		{"yang:*", "/", true},
		{"yang:/", "/anything:x", true},
	}
	for _, tt := range tests {
		sc, err := ParseScope(tt.scope)
		if err != nil {
			t.Fatal(err)
		}
		p := Default()
		id := Identity{Subject: "s", Roles: []string{RoleViewer}, Source: SourceJWT, Scopes: []string{tt.scope}}
		err = p.Decide(id, Action{Kind: ReadPath, Path: tt.path})
		if (err == nil) != tt.covers {
			t.Errorf("%s over %s: %v, want covers=%v", sc, tt.path, err, tt.covers)
		}
	}
	for _, tt := range []struct {
		pattern, name string
		want          bool
	}{{"network.yang.*", "network.yang.get", true}, {"network.yang.*", "network.cli.exec", false},
		{"*", "anything", true}, {"ping", "ping", true}, {"ping", "pingx", false}} {
		if matchPattern(tt.pattern, tt.name) != tt.want {
			t.Errorf("matchPattern(%s, %s)", tt.pattern, tt.name)
		}
	}
	if _, err := ParseScope("tool:"); err == nil {
		t.Error("empty tool scope accepted")
	}
}

func TestIsWriteTool(t *testing.T) {
	for name, want := range map[string]bool{
		"network.commit": true, "network_commit": true, "network.cli.configure": true,
		"network_file_push": true, "network.cli.exec": false, "network_yang_get": false, "ping": false,
	} {
		if got := IsWriteTool(name); got != want {
			t.Errorf("IsWriteTool(%q) = %v, want %v", name, got, want)
		}
	}
}
