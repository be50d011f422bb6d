package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/netmcp/netmcp/approval"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
	"gopkg.in/yaml.v3"
)

// Built-in role names.
const (
	RoleViewer   = "viewer"
	RoleOperator = "operator"
	RoleAdmin    = "admin"
)

// readTools are the tools that only read device state.
var readTools = []string{netproto.ToolYangGet, netproto.ToolCLIExec, netproto.ToolFilePull, netproto.ToolCapture}

// ControllerToolAsk is the controller's ask tool (the same name as
// controller.ToolAsk; policy cannot import the controller).
const ControllerToolAsk = "ask"

// DiagnosticTools are the troubleshooting draft's and MCP-Diag's tools.
var DiagnosticTools = []string{netproto.ToolPing, netproto.ToolTraceroute, netproto.ToolTracepath, netproto.ToolDNSLookup}

// writeTools change device state.
var writeTools = map[string]bool{
	netproto.ToolCLIConfigure: true, netproto.ToolYangEdit: true, netproto.ToolCommit: true,
	netproto.ToolRollback: true, netproto.ToolFilePush: true, netproto.ToolClearCounters: true,
}

// IsWriteTool reports whether the tool changes device state; compat names
// (network_cli_configure) count as their dotted form.
func IsWriteTool(name string) bool { return writeTools[netproto.CanonicalName(name)] }

// BuiltinRoles are the roles every policy starts with; a policy file may
// redefine them or add others.
func BuiltinRoles() map[string][]string {
	// tool:ask: the controller's diagnosis (`netmcp controller serve`),
	// which reads and probes but never changes a device.
	viewer := []string{"resource:*", "yang:*", "tool:" + ControllerToolAsk}
	for _, t := range readTools {
		viewer = append(viewer, "tool:"+t)
	}
	operator := slices.Clone(viewer)
	for _, t := range DiagnosticTools {
		operator = append(operator, "tool:"+t)
	}
	operator = append(operator, "tool:"+netproto.ToolYangEdit, "tool:"+netproto.ToolCLIConfigure,
		"tool:"+netproto.ToolCommit, "tool:"+netproto.ToolRollback, "tool:"+netproto.ToolClearCounters, "yang-write:*")
	return map[string][]string{
		RoleViewer:   viewer,
		RoleOperator: operator,
		RoleAdmin:    {"tool:*", "resource:*", "yang-write:*", "secrets"},
	}
}

// DefaultSecretPaths are the subtrees only the secrets scope reaches.
var DefaultSecretPaths = []string{
	"/openconfig-system:system/aaa",
	"/ietf-system:system/authentication",
	"/ietf-snmp:snmp/community",
	"/ietf-snmp:snmp/usm",
	"/ietf-keystore:keystore",
	"/ietf-key-chain:key-chains",
}

// File is the YAML policy file.
type File struct {
	// Roles map role names to scope strings (added to, or replacing, the built-in roles).
	Roles map[string][]string `yaml:"roles"`
	// Identities map subjects to roles.
	Identities []IdentityMapping `yaml:"identities"`
	// DefaultRoles are given, per source (mtls, jwt, anonymous), to subjects not listed.
	DefaultRoles map[string][]string `yaml:"defaultRoles"`
	// SecretPaths replace DefaultSecretPaths when set.
	SecretPaths []string `yaml:"secretPaths"`
	// Approval holds the approval modes.
	Approval ApprovalConfig `yaml:"approval"`
	// JWT configures bearer-token verification.
	JWT *JWTConfig `yaml:"jwt"`
	// RateLimit limits calls per identity.
	RateLimit *RateLimitConfig `yaml:"rateLimit"`
	// MaxConcurrentPerSession limits calls in progress per session (0: no limit).
	MaxConcurrentPerSession int `yaml:"maxConcurrentPerSession"`
	// TrustedKeys are the approvers' Ed25519 public keys (base64) by key id,
	// for the approval gate (see Policy.Approval).
	TrustedKeys map[string]string `yaml:"trustedKeys"`
}

// IdentityMapping gives roles to one subject.
type IdentityMapping struct {
	// Subject is an mTLS subject CN or a JWT subject.
	Subject string `yaml:"subject"`
	// Source restricts the mapping to mtls or jwt ("" = both).
	Source string `yaml:"source"`
	// Roles are role names.
	Roles []string `yaml:"roles"`
}

// RateLimitConfig is a token bucket per identity.
type RateLimitConfig struct {
	// PerSecond is the sustained rate of calls.
	PerSecond float64 `yaml:"perSecond"`
	// Burst is the bucket size.
	Burst int `yaml:"burst"`
}

// Policy is a loaded, checked policy. It is immutable and safe for
// concurrent use.
type Policy struct {
	file         File
	roles        map[string][]Scope
	identities   []IdentityMapping
	defaultRoles map[string][]string
	secrets      []yang.Path
	approval     approval.Options
}

// Default returns the policy of the built-in roles, no identity mapping,
// default secret paths, and approval for writes.
func Default() *Policy {
	p, err := New(File{})
	if err != nil {
		panic(err) // built-in definitions are valid
	}
	return p
}

// Load reads a YAML policy file.
func Load(path string) (*Policy, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	p, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// Parse parses a YAML policy; unknown fields are errors.
func Parse(data []byte) (*Policy, error) {
	var f File
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) { // io.EOF: an empty file
		return nil, fmt.Errorf("policy: %w", err)
	}
	return New(f)
}

// New checks f and builds a Policy.
func New(f File) (*Policy, error) {
	p := &Policy{file: f, roles: map[string][]Scope{}, defaultRoles: map[string][]string{}}
	defs := BuiltinRoles()
	for name, scopes := range f.Roles {
		defs[name] = scopes
	}
	for name, list := range defs {
		sc, err := ParseScopes(list)
		if err != nil {
			return nil, fmt.Errorf("role %q: %w", name, err)
		}
		p.roles[name] = sc
	}
	for i, m := range f.Identities {
		if m.Subject == "" {
			return nil, fmt.Errorf("policy: identities[%d]: empty subject", i)
		}
		if m.Source != "" && m.Source != SourceMTLS && m.Source != SourceJWT {
			return nil, fmt.Errorf("policy: identities[%d] (%s): source %q (want mtls, jwt or empty)", i, m.Subject, m.Source)
		}
		if err := p.checkRoles(m.Roles); err != nil {
			return nil, fmt.Errorf("identities[%d] (%s): %w", i, m.Subject, err)
		}
	}
	p.identities = f.Identities
	for src, roles := range f.DefaultRoles {
		if src != SourceMTLS && src != SourceJWT && src != SourceAnonymous {
			return nil, fmt.Errorf("policy: defaultRoles: unknown source %q (want mtls, jwt or anonymous)", src)
		}
		if err := p.checkRoles(roles); err != nil {
			return nil, fmt.Errorf("defaultRoles.%s: %w", src, err)
		}
		p.defaultRoles[src] = roles
	}
	secretList := f.SecretPaths
	if secretList == nil {
		secretList = DefaultSecretPaths
	}
	for _, s := range secretList {
		sp, err := yang.ParsePath(s)
		if err != nil {
			return nil, fmt.Errorf("policy: secretPaths: %w", err)
		}
		p.secrets = append(p.secrets, sp)
	}
	ap, err := newApprovalOptions(f.Approval, f.TrustedKeys)
	if err != nil {
		return nil, err
	}
	p.approval = ap
	if f.RateLimit != nil && (f.RateLimit.PerSecond <= 0 || f.RateLimit.Burst <= 0) {
		return nil, fmt.Errorf("policy: rateLimit needs perSecond > 0 and burst > 0")
	}
	if f.MaxConcurrentPerSession < 0 {
		return nil, fmt.Errorf("policy: maxConcurrentPerSession must not be negative")
	}
	return p, nil
}

func (p *Policy) checkRoles(roles []string) error {
	for _, r := range roles {
		if _, ok := p.roles[r]; !ok {
			return fmt.Errorf("policy: unknown role %q (known: %s)", r, strings.Join(p.RoleNames(), ", "))
		}
	}
	return nil
}

// File returns the policy as parsed (for the server's rate and session limits).
func (p *Policy) File() File { return p.file }

// RoleNames lists the roles, sorted.
func (p *Policy) RoleNames() []string {
	names := make([]string, 0, len(p.roles))
	for n := range p.roles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// RoleScopes returns a role's scopes ("" for an unknown role).
func (p *Policy) RoleScopes(role string) []string {
	var out []string
	for _, s := range p.roles[role] {
		out = append(out, s.String())
	}
	return out
}

// SecretPaths returns the secret subtrees in canonical form.
func (p *Policy) SecretPaths() []string {
	out := make([]string, len(p.secrets))
	for i, s := range p.secrets {
		out[i] = s.String()
	}
	return out
}
