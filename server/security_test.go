package server_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/internal/syncbuf"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/pki"
	"github.com/netmcp/netmcp/policy"
	"github.com/netmcp/netmcp/redact"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/transport"
	"github.com/netmcp/netmcp/transport/tlsstream"
)

// r1Secrets are the secrets planted in r1 of the default topology.
var r1Secrets = []string{"Huawei@123", "N3tOps!2025", "s3cr3t-ro"}

const (
	testIssuer   = "https://idp.test"
	testResource = "https://r1.test/mcp"
)

// secEnv is r1 of the simulated lab served over HTTP (or HTTPS) through
// Server.Secure, with a JWT issuer, a captured log and an audit log.
type secEnv struct {
	t         testing.TB
	srv       *server.Server
	sec       *server.Security
	url       string
	logs      *syncbuf.Buffer
	auditPath string
	key       ed25519.PrivateKey
	red       *redact.Redactor
}

// envConfig changes what newSecEnv builds.
type envConfig struct {
	file   policy.File // jwt is filled in with the test issuer
	noJWT  bool
	tls    *tls.Config
	modify func(*server.SecurityOptions)
	// server, when set, changes the server's options (limits).
	server func(*server.Options)
	fsync  audit.SyncPolicy
	sinks  []audit.Sink // audit exports (a syslog collector)
}

func newSecEnv(t testing.TB, cfg envConfig) *secEnv {
	t.Helper()
	drv := simR1(t)
	pub, key, _ := ed25519.GenerateKey(rand.Reader)
	der, _ := x509.MarshalPKIXPublicKey(pub)
	f := cfg.file
	if !cfg.noJWT {
		f.JWT = &policy.JWTConfig{Resource: testResource, AuthorizationServers: []string{testIssuer},
			Issuers: []policy.IssuerConfig{{Issuer: testIssuer, Keys: []string{string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))}}}}
	}
	pol, err := policy.New(f)
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncbuf.Buffer{}
	red := redact.New(redact.Options{})
	logger := slog.New(server.RedactingLogHandler(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}), red, ""))
	sopts := server.Options{Logger: logger, User: "tester"}
	if cfg.server != nil {
		cfg.server(&sopts)
	}
	srv, err := server.New(drv, sopts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	auditPath := t.TempDir() + "/" + audit.FileName
	alog, err := audit.Open(auditPath, audit.Options{Sync: cfg.fsync, Sinks: cfg.sinks})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { alog.Close() })
	opts := server.SecurityOptions{Policy: pol, Audit: alog, Redactor: red, LocalUser: "tester"}
	if !cfg.noJWT {
		if opts.Verifier, err = pol.Verifier(); err != nil {
			t.Fatal(err)
		}
	}
	if cfg.modify != nil {
		cfg.modify(&opts)
	}
	sec, err := srv.Secure(opts)
	if err != nil {
		t.Fatal(err)
	}
	h := sec.HTTPHandler(transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() },
		transport.HTTPOptions{Logger: logger}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	scheme := "http"
	if cfg.tls != nil {
		ln, scheme = transport.TLSListener(ln, cfg.tls), "https"
	}
	// The production server (its connection context tells local users
	// apart), not a bare http.Server.
	hs := transport.NewHTTPServer(h, transport.ServerTimeouts{})
	hs.ErrorLog = slog.NewLogLogger(logger.Handler(), slog.LevelDebug)
	go hs.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(ctx)
	})
	return &secEnv{t: t, srv: srv, sec: sec, url: scheme + "://" + ln.Addr().String() + transport.Path,
		logs: logs, auditPath: auditPath, key: key, red: red}
}

// fullScopes let the subject's roles decide alone (a token without any
// netmcp scope grants nothing).
const fullScopes = "tool:* resource:* yang-write:* secrets"

// token returns a signed JWT for sub with the given scopes ("" = fullScopes).
func (e *secEnv) token(sub, scope string, ttl time.Duration) string {
	claims := jwt.MapClaims{"iss": testIssuer, "aud": testResource, "sub": sub,
		"iat": time.Now().Unix(), "exp": time.Now().Add(ttl).Unix()}
	if scope == "" {
		scope = fullScopes
	}
	claims["scope"] = scope
	s, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims).SignedString(e.key)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// bearerRT adds "Authorization: Bearer" with the current token.
type bearerRT struct {
	token atomic.Value // string
	base  http.RoundTripper
}

func (b *bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	if tok, _ := b.token.Load().(string); tok != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+tok)
	}
	return b.base.RoundTrip(r)
}

// session opens an MCP session over HTTP with token ("" = none) and
// client TLS configuration tc (nil = none).
func (e *secEnv) session(token string, tc *tls.Config) (*mcp.ClientSession, *bearerRT) {
	e.t.Helper()
	cs, rt, err := e.trySession(token, tc)
	if err != nil {
		e.t.Fatal(err)
	}
	return cs, rt
}

func (e *secEnv) trySession(token string, tc *tls.Config) (*mcp.ClientSession, *bearerRT, error) {
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.TLSClientConfig = tc
	rt := &bearerRT{base: base}
	rt.token.Store(token)
	ct := &mcp.StreamableClientTransport{Endpoint: e.url, HTTPClient: &http.Client{Transport: rt}, MaxRetries: -1, DisableStandaloneSSE: true}
	// A 2025-11-25 session: these tests check what binds to one.
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "sec-test", Version: "1"}, nil).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		base.CloseIdleConnections()
		return nil, nil, err
	}
	e.t.Cleanup(func() { cs.Close(); base.CloseIdleConnections() })
	return cs, rt, nil
}

// errText is the message and data of a JSON-RPC error (the detail of a
// -32083 is in its data), or the error's text.
func errText(err error) string {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je.Message + " " + string(je.Data)
	}
	return fmt.Sprint(err)
}

// callTool calls a tool and returns its result text (structured content
// and content) and the JSON-RPC error, if any.
func callTool(cs *mcp.ClientSession, name string, args any) (string, error) {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", err
	}
	b, _ := json.Marshal(res)
	return string(b), nil
}

func readResource(cs *mcp.ClientSession, uri string, consent bool) (string, error) {
	p := &mcp.ReadResourceParams{URI: uri}
	if consent {
		p.Meta = mcp.Meta{server.MetaPrivacyConsent: true}
	}
	res, err := cs.ReadResource(context.Background(), p)
	if err != nil {
		return "", err
	}
	b, _ := json.Marshal(res)
	return string(b), nil
}

// matrixPolicy maps one JWT subject to each role.
var matrixPolicy = policy.File{Identities: []policy.IdentityMapping{
	{Subject: "vera", Source: policy.SourceJWT, Roles: []string{policy.RoleViewer}},
	{Subject: "otto", Source: policy.SourceJWT, Roles: []string{policy.RoleOperator}},
	{Subject: "ada", Source: policy.SourceJWT, Roles: []string{policy.RoleAdmin}},
	{Subject: "ifbot", Source: policy.SourceJWT, Roles: []string{policy.RoleOperator}},
}}

// ifbotScopes narrow an operator to the ietf-interfaces subtree.
const ifbotScopes = "yang-write:/ietf-interfaces:interfaces tool:network.yang.get tool:network.yang.edit resource:*"

// TestAuthorizationMatrix runs every tool, a set of YANG paths and the
// resources for each role (and a token scoped to /ietf-interfaces:interfaces)
// through real MCP sessions over HTTP with bearer tokens, and checks
// which calls are refused with -32083 and which pass the policy.
func TestAuthorizationMatrix(t *testing.T) {
	env := newSecEnv(t, envConfig{file: matrixPolicy})
	callers := []struct{ name, sub, scope string }{
		{"viewer", "vera", ""}, {"operator", "otto", ""}, {"admin", "ada", ""}, {"ifbot", "ifbot", ifbotScopes},
	}
	sessions := map[string]*mcp.ClientSession{}
	for _, c := range callers {
		sessions[c.name], _ = env.session(env.token(c.sub, c.scope, time.Hour), nil)
	}
	type cell struct {
		what    string
		do      func(*mcp.ClientSession) (string, error)
		allowed string // callers allowed, e.g. "viewer operator admin"
	}
	tool := func(name string, args any, allowed string) cell {
		return cell{what: name, allowed: allowed, do: func(cs *mcp.ClientSession) (string, error) { return callTool(cs, name, args) }}
	}
	get := func(path, allowed string) cell {
		return cell{what: "get " + path, allowed: allowed, do: func(cs *mcp.ClientSession) (string, error) {
			return callTool(cs, netproto.ToolYangGet, map[string]any{"path": path, "datastore": "running"})
		}}
	}
	edit := func(path, allowed string) cell {
		return cell{what: "edit " + path, allowed: allowed, do: func(cs *mcp.ClientSession) (string, error) {
			return callTool(cs, netproto.ToolYangEdit, map[string]any{"edit": []any{map[string]any{"path": path, "operation": "delete"}}})
		}}
	}
	set := func(path string, value any, allowed string) cell {
		return cell{what: fmt.Sprintf("set %s", path), allowed: allowed, do: func(cs *mcp.ClientSession) (string, error) {
			return callTool(cs, netproto.ToolYangEdit, map[string]any{"edit": []any{map[string]any{"path": path, "value": value}}})
		}}
	}
	cli := func(allowed string, lines ...string) cell {
		return cell{what: "cli " + strings.Join(lines, "; "), allowed: allowed, do: func(cs *mcp.ClientSession) (string, error) {
			return callTool(cs, netproto.ToolCLIConfigure, map[string]any{"commands": lines})
		}}
	}
	read := func(uri string, consent bool, allowed string) cell {
		return cell{what: fmt.Sprintf("read %s consent=%v", uri, consent), allowed: allowed, do: func(cs *mcp.ClientSession) (string, error) {
			return readResource(cs, uri, consent)
		}}
	}
	const all, vOA, oA, aOnly = "viewer operator admin ifbot", "viewer operator admin", "operator admin", "admin"
	cells := []cell{
		// Tools (diagnostics with empty arguments: allowed ones fail schema validation with -32602).
		tool(netproto.ToolCLIExec, map[string]any{"cmd": "display version"}, vOA),
		tool(netproto.ToolCLIConfigure, map[string]any{"commands": []string{"vlan 200"}}, oA),
		tool(netproto.ToolYangGet, map[string]any{"path": "/ietf-interfaces:interfaces"}, all),
		tool(netproto.ToolYangEdit, map[string]any{"edit": []any{map[string]any{"path": "/ietf-interfaces:interfaces/interface[name='LoopBack0']/description", "value": "x"}}}, "operator admin ifbot"),
		tool(netproto.ToolCommit, map[string]any{}, oA),
		tool(netproto.ToolRollback, map[string]any{}, oA),
		tool(netproto.ToolFilePull, map[string]any{"name": "running-config"}, vOA),
		tool(netproto.ToolFilePush, map[string]any{"name": "candidate-config", "content": "sysname r1\n"}, aOnly),
		tool(netproto.ToolPing, map[string]any{}, oA),
		tool(netproto.ToolTraceroute, map[string]any{}, oA),
		tool(netproto.ToolTracepath, map[string]any{}, oA),
		tool(netproto.ToolDNSLookup, map[string]any{}, oA),
		// YANG paths, read and write.
		get("/ietf-interfaces:interfaces", all),
		get("/ietf-interfaces:interfaces/interface[name='LoopBack0']", all),
		get("/ietf-routing:routing", vOA),
		get("/openconfig-system:system", vOA),
		get("/openconfig-system:system/aaa", aOnly),
		get("/ietf-snmp:snmp/community", aOnly),
		get("/", vOA),
		edit("/ietf-interfaces:interfaces/interface[name='LoopBack9']", "operator admin ifbot"),
		edit("/ietf-routing:routing/control-plane-protocols", oA),
		edit("/openconfig-system:system", aOnly),
		edit("/openconfig-system:system/aaa", aOnly),
		edit("/openconfig-system:system/snmp", aOnly),
		// Writes are decided by the leaves they change, whatever the tool:
		// secret leaves (passwords, SNMP communities) need the secrets scope.
		set("/openconfig-system:system/snmp/communities/community[name='community1']/config/community-string", "n3w-c0mm", aOnly),
		set("/openconfig-system:system/snmp", map[string]any{"communities": map[string]any{"community": []any{map[string]any{"name": "c9", "config": map[string]any{"name": "c9", "community-string": "n3w-c0mm"}}}}}, aOnly),
		set("/openconfig-system:system/config/hostname", "r1", oA),
		cli(aOnly, "aaa", "local-user admin password irreversible-cipher N3wAdm1n!"),
		cli(aOnly, "snmp-agent community read cipher n3w-c0mm"),
		cli(oA, "sysname r1-new"),
		// Resources.
		read(netproto.URIInterfaces, false, vOA), // OpenConfig interfaces: outside ifbot's ietf-interfaces scope
		read(netproto.URIIPv4RouteTable, false, vOA),
		read(netproto.URIRunningConfig, false, vOA),
		read("network:///log/syslog/last5", false, all),
		read(netproto.URICPU, false, all),
		read("network:///file/0%2F0%2FCPU0/crashinfo", true, aOnly),
		read("network:///file/0%2F0%2FCPU0/crashinfo", false, ""),
	}
	for _, c := range cells {
		for _, who := range callers {
			t.Run(who.name+"/"+c.what, func(t *testing.T) {
				out, err := c.do(sessions[who.name])
				want := strings.Contains(" "+c.allowed+" ", " "+who.name+" ")
				code := rpcCode(err)
				if want && code == netproto.CodeAccessDenied {
					t.Fatalf("refused, want allowed: %s", errText(err))
				}
				if !want && code != netproto.CodeAccessDenied {
					t.Fatalf("got %q (err %v), want -32083", trunc(out), err)
				}
				if !want && !strings.Contains(errText(err), "denied") {
					t.Fatalf("denial without detail: %v", err)
				}
			})
		}
	}
	t.Run("lists", func(t *testing.T) {
		want := map[string]int{"viewer": 4, "operator": 13, "admin": 14, "ifbot": 2} // capture reads; clear-counters is an operator's
		for _, who := range callers {
			res, err := sessions[who.name].ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range res.Tools {
				names = append(names, tl.Name)
			}
			if len(res.Tools) != want[who.name] {
				t.Errorf("%s sees %d tools %v, want %d", who.name, len(res.Tools), names, want[who.name])
			}
			pr, err := sessions[who.name].ListPrompts(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if (who.name == "ifbot") != (len(pr.Prompts) == 0) {
				t.Errorf("%s sees %d prompts", who.name, len(pr.Prompts))
			}
			rl, err := sessions[who.name].ListResources(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rl.Resources {
				lvl, ok := r.Meta[server.MetaPrivacyLevel].(float64)
				if !ok || lvl < 1 || lvl > 3 {
					t.Errorf("%s: resource %s has privacyLevel %v", who.name, r.URI, r.Meta[server.MetaPrivacyLevel])
				}
				if who.name == "ifbot" && r.URI == netproto.URIRunningConfig {
					t.Errorf("ifbot sees %s", r.URI)
				}
			}
			tl, err := sessions[who.name].ListResourceTemplates(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			crash := false
			for _, r := range tl.ResourceTemplates {
				crash = crash || r.URITemplate == netproto.URICrashinfoTemplate
			}
			if crash != (who.name == "admin") {
				t.Errorf("%s: crashinfo template listed = %v", who.name, crash)
			}
		}
	})
}

func trunc(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// TestHTTPAuthentication checks the 401 challenge, the RFC 9728
// metadata, invalid and expired tokens, and the binding of a session to
// the identity that opened it.
func TestHTTPAuthentication(t *testing.T) {
	env := newSecEnv(t, envConfig{file: matrixPolicy})
	post := func(auth string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, env.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	base := strings.TrimSuffix(env.url, transport.Path)
	for _, tc := range []struct{ name, auth, errPart string }{
		{"no token", "", ""},
		{"not bearer", "Basic dXNlcjpwdw==", `error="invalid_token"`},
		{"garbage", "Bearer abc.def.ghi", `error="invalid_token"`},
		{"expired", "Bearer " + env.token("vera", "", -time.Hour), `error="invalid_token"`},
	} {
		resp := post(tc.auth)
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("%s: status %d, want 401", tc.name, resp.StatusCode)
		}
		wa := resp.Header.Get("WWW-Authenticate")
		if !strings.Contains(wa, `resource_metadata="`+base+policy.WellKnownPath+`"`) || !strings.Contains(wa, tc.errPart) {
			t.Fatalf("%s: WWW-Authenticate %q", tc.name, wa)
		}
	}
	if resp := post("Bearer " + env.token("vera", "", time.Hour)); resp.StatusCode != http.StatusOK {
		t.Fatalf("valid token: status %d", resp.StatusCode)
	}
	resp, err := http.Get(base + policy.WellKnownPath)
	if err != nil {
		t.Fatal(err)
	}
	var md policy.ResourceMetadata
	if err := json.NewDecoder(resp.Body).Decode(&md); err != nil || md.Resource != testResource || len(md.AuthorizationServers) != 1 {
		t.Fatalf("metadata %+v %v", md, err)
	}
	resp.Body.Close()

	// A session opened by vera refuses a request carrying otto's token.
	cs, rt := env.session(env.token("vera", "", time.Hour), nil)
	if _, err := callTool(cs, netproto.ToolYangGet, map[string]any{"path": "/ietf-interfaces:interfaces"}); err != nil {
		t.Fatal(err)
	}
	rt.token.Store(env.token("otto", "", time.Hour))
	_, err = callTool(cs, netproto.ToolYangGet, map[string]any{"path": "/ietf-interfaces:interfaces"})
	if err == nil || !strings.Contains(errText(err), "Forbidden") {
		t.Fatalf("another identity on vera's session: %v, want 403 Forbidden", err)
	}
}

// TestSessionBindingMiddleware checks the binding inside MCP: a session
// whose first request came from one identity refuses another with -32083.
func TestSessionBindingMiddleware(t *testing.T) {
	env := newSecEnv(t, envConfig{noJWT: true})
	cs, _ := env.session("", nil) // anonymous on loopback: the local role (viewer)
	if _, err := callTool(cs, netproto.ToolYangGet, map[string]any{"path": "/ietf-interfaces:interfaces"}); err != nil {
		t.Fatal(err)
	}
	if _, err := callTool(cs, netproto.ToolCommit, map[string]any{}); rpcCode(err) != netproto.CodeAccessDenied ||
		!strings.Contains(errText(err), "(viewer) of anonymous") {
		t.Fatalf("commit as anonymous viewer: %v", err)
	}
}

// pkiFiles is a lab CA with a server certificate and client certificates.
type pkiFiles struct {
	ca                   *pki.CA
	caPEM                []byte
	serverCert, serverKy []byte
}

func newPKI(t *testing.T) *pkiFiles {
	t.Helper()
	ca, err := pki.NewCA("test-ca")
	if err != nil {
		t.Fatal(err)
	}
	c, k, err := ca.Issue("r1", pki.KindServer, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return &pkiFiles{ca: ca, caPEM: ca.CertPEM, serverCert: c, serverKy: k}
}

func (p *pkiFiles) client(t *testing.T, ca *pki.CA, name string, notBefore, notAfter time.Time) *tls.Config {
	t.Helper()
	c, k, err := ca.IssueWindow(name, pki.KindClient, notBefore, notAfter)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := pki.ClientTLSConfig(p.caPEM, c, k, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestMutualTLSHTTP serves Streamable HTTP over mutual TLS and checks the
// refusals at the TLS level (another CA, expired certificate, none) and
// that a verified certificate's CN is the caller.
func TestMutualTLSHTTP(t *testing.T) {
	p := newPKI(t)
	scfg, err := pki.ServerTLSConfig(p.serverCert, p.serverKy, p.caPEM)
	if err != nil {
		t.Fatal(err)
	}
	env := newSecEnv(t, envConfig{noJWT: true, tls: scfg, file: policy.File{
		Identities:   []policy.IdentityMapping{{Subject: "alice", Source: policy.SourceMTLS, Roles: []string{policy.RoleOperator}}},
		DefaultRoles: map[string][]string{policy.SourceMTLS: {policy.RoleViewer}},
	}})
	other, err := pki.NewCA("other-ca")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	noCert, _ := pki.ClientTLSConfig(p.caPEM, nil, nil, "127.0.0.1")
	for _, tc := range []struct {
		name string
		cfg  *tls.Config
	}{
		{"another CA", p.client(t, other, "mallory", now.Add(-time.Minute), now.Add(time.Hour))},
		{"expired", p.client(t, p.ca, "alice", now.Add(-2*time.Hour), now.Add(-time.Hour))},
		{"no client certificate", noCert},
	} {
		if _, _, err := env.trySession("", tc.cfg); err == nil {
			t.Errorf("%s: session opened, want a TLS refusal", tc.name)
		}
	}
	alice, _ := env.session("", p.client(t, p.ca, "alice", now.Add(-time.Minute), now.Add(time.Hour)))
	if _, err := callTool(alice, netproto.ToolFilePush, map[string]any{"name": "candidate-config", "content": "x"}); rpcCode(err) != netproto.CodeAccessDenied ||
		!strings.Contains(errText(err), "(operator) of mtls:alice") {
		t.Fatalf("file.push as alice: %v", err)
	}
	bob, _ := env.session("", p.client(t, p.ca, "bob", now.Add(-time.Minute), now.Add(time.Hour)))
	if _, err := callTool(bob, netproto.ToolCommit, map[string]any{}); !strings.Contains(errText(err), "(viewer) of mtls:bob") {
		t.Fatalf("commit as bob (default mtls role viewer): %v", err)
	}
	// TLS 1.2 is refused.
	old := p.client(t, p.ca, "alice", now.Add(-time.Minute), now.Add(time.Hour))
	old.MinVersion, old.MaxVersion = tls.VersionTLS12, tls.VersionTLS12
	if _, _, err := env.trySession("", old); err == nil {
		t.Error("TLS 1.2 session opened")
	}
}

// TestTLSStreamServe serves the MCP-NET TLS stream with mutual TLS: the
// client certificate names the caller; a client offering another ALPN
// protocol, none, or no certificate is refused.
func TestTLSStreamServe(t *testing.T) {
	p := newPKI(t)
	scfg, err := pki.ServerTLSConfig(p.serverCert, p.serverKy, p.caPEM)
	if err != nil {
		t.Fatal(err)
	}
	env := newSecEnv(t, envConfig{noJWT: true, file: policy.File{
		Identities: []policy.IdentityMapping{{Subject: "alice", Source: policy.SourceMTLS, Roles: []string{policy.RoleViewer}}}}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var refused atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- transport.ServeTLSStream(ctx, ln, scfg, env.srv.MCP(), transport.TLSStreamOptions{
			Connected: func(sid string, st tls.ConnectionState) (func(), error) {
				return env.sec.BindConn(sid, env.sec.Policy().IdentityFromTLS(st)), nil
			},
			OnRefused: func(net.Addr, error) { refused.Add(1) },
		})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	now := time.Now()
	ccfg := p.client(t, p.ca, "alice", now.Add(-time.Minute), now.Add(time.Hour))
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "ts", Version: "1"}, nil).Connect(context.Background(),
		tlsstream.ClientTransport{Addr: ln.Addr().String(), Config: ccfg}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := callTool(cs, netproto.ToolYangGet, map[string]any{"path": "/ietf-interfaces:interfaces"}); err != nil {
		t.Fatal(err)
	}
	if _, err := callTool(cs, netproto.ToolCommit, map[string]any{}); !strings.Contains(errText(err), "(viewer) of mtls:alice") {
		t.Fatalf("commit over the TLS stream: %v", err)
	}
	for _, tc := range []struct {
		name  string
		alpn  []string
		certs bool
	}{{"wrong ALPN", []string{"h2"}, true}, {"no ALPN", nil, true}, {"no client certificate", []string{"mcp"}, false}} {
		c := ccfg.Clone()
		c.NextProtos = tc.alpn
		if !tc.certs {
			c.Certificates = nil
		}
		conn, err := tls.Dial("tcp", ln.Addr().String(), c)
		if err == nil {
			// TLS 1.3 client certificates are checked after the client's
			// Finished: the refusal shows on the first read.
			conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			_, err = conn.Read(make([]byte, 1))
			conn.Close()
		}
		if err == nil {
			t.Errorf("%s: connection accepted", tc.name)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for refused.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := refused.Load(); n != 3 {
		t.Errorf("OnRefused called %d times, want 3", n)
	}
}

// TestSecretsNeverLeak plants nothing new: r1 of the default topology has
// user passwords and an SNMP community. A viewer calls every tool and
// reads every resource and prompt; none of the secrets appears in a
// result, in the audit log or in the server's log, while an admin does
// see them (so the check can fail).
func TestSecretsNeverLeak(t *testing.T) {
	env := newSecEnv(t, envConfig{file: matrixPolicy})
	viewer, _ := env.session(env.token("vera", "", time.Hour), nil)
	operator, _ := env.session(env.token("otto", "", time.Hour), nil)
	admin, _ := env.session(env.token("ada", "", time.Hour), nil)
	var outputs []string
	collect := func(s string, err error) {
		outputs = append(outputs, s)
		if err != nil {
			outputs = append(outputs, errText(err))
		}
	}
	cmds := []string{"display current-configuration", "display saved-configuration", "display snmp-agent community", "display local-user", "show running-config"}
	for _, c := range cmds {
		collect(callTool(viewer, netproto.ToolCLIExec, map[string]any{"cmd": c}))
	}
	for _, p := range []string{"/", "/openconfig-system:system", "/ietf-snmp:snmp", "/openconfig-system:system/aaa"} {
		for _, ds := range []string{"running", "candidate", "operational"} {
			collect(callTool(viewer, netproto.ToolYangGet, map[string]any{"path": p, "datastore": ds}))
		}
	}
	for _, f := range []string{"running-config", "startup-config", "candidate-config"} {
		collect(callTool(viewer, netproto.ToolFilePull, map[string]any{"name": f}))
	}
	// Secrets in arguments: refused for the viewer, approval-required for
	// the operator (the summary echoes the lines), recorded in the audit log.
	lines := []string{"snmp-agent community read N3w-C0mm", "aaa", "local-user netops password irreversible-cipher N3w-Pass!99"}
	collect(callTool(viewer, netproto.ToolCLIConfigure, map[string]any{"commands": lines}))
	// The operator may not change secret leaves: the
	// lines are refused before any approval, and the refusal shows no secret.
	opOut, opErr := callTool(operator, netproto.ToolCLIConfigure, map[string]any{"commands": lines})
	if rpcCode(opErr) != int64(netproto.CodeAccessDenied) {
		t.Errorf("operator's configure of secret leaves: %v %s, want -32083", opErr, trunc(opOut))
	}
	collect(opOut, opErr)
	rl, err := viewer.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	uris := []string{"network:///interface/GigabitEthernet0%2F0%2F0", "network:///log/syslog/last100", "network:///file/0%2F0%2FCPU0/crashinfo"}
	for _, r := range rl.Resources {
		uris = append(uris, r.URI)
	}
	for _, u := range uris {
		collect(readResource(viewer, u, true))
	}
	pl, err := viewer.ListPrompts(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pl.Prompts {
		args := map[string]string{}
		for _, a := range p.Arguments {
			args[a.Name] = map[string]string{"src": "10.1.0.1", "dst": "10.3.0.2", "vlan_id": "200", "name": "v200", "profile": "detailed"}[a.Name]
		}
		res, err := viewer.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: p.Name, Arguments: args})
		b, _ := json.Marshal(res)
		collect(string(b), err)
	}
	all := strings.Join(outputs, "\n")
	if !strings.Contains(all, redact.Mask) {
		t.Fatal("nothing was masked: the calls did not reach the secrets")
	}
	auditLog, err := os.ReadFile(env.auditPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append([]string{"N3w-C0mm", "N3w-Pass!99"}, r1Secrets...) {
		if strings.Contains(all, s) {
			i := strings.Index(all, s)
			t.Errorf("secret %q in a viewer's output: ...%s...", s, all[max(0, i-200):min(len(all), i+50)])
		}
		if strings.Contains(string(auditLog), s) {
			t.Errorf("secret %q in the audit log", s)
		}
		if strings.Contains(env.logs.String(), s) {
			t.Errorf("secret %q in the server's log", s)
		}
	}
	// The admin may read secrets.
	out, err := callTool(admin, netproto.ToolCLIExec, map[string]any{"cmd": "display current-configuration"})
	if err != nil || !strings.Contains(out, "s3cr3t-ro") {
		t.Errorf("admin output lacks the community: %v %s", err, trunc(out))
	}
	if _, err := audit.Verify(env.auditPath); err != nil {
		t.Fatalf("audit log: %v", err)
	}
}

// TestAuditRecords checks that a denied call, an allowed call and a
// notification are in the audit trail with identity, session, tool,
// outcome and error code.
func TestAuditRecords(t *testing.T) {
	env := newSecEnv(t, envConfig{file: matrixPolicy})
	cs, _ := env.session(env.token("vera", "", time.Hour), nil)
	if _, err := callTool(cs, netproto.ToolYangGet, map[string]any{"path": "/ietf-interfaces:interfaces"}); err != nil {
		t.Fatal(err)
	}
	callTool(cs, netproto.ToolCommit, map[string]any{"comment": "x"})
	recs, err := audit.ReadFile(env.auditPath)
	if err != nil {
		t.Fatal(err)
	}
	find := func(kind, tool string) *audit.Record {
		for i := range recs {
			if recs[i].Kind == kind && recs[i].Tool == tool {
				return &recs[i]
			}
		}
		return nil
	}
	if r := find(audit.KindResponse, netproto.ToolCommit); r == nil || r.Outcome != audit.OutcomeError || r.ErrorCode != netproto.CodeAccessDenied || r.Identity != "jwt:vera" || r.Session == "" {
		t.Fatalf("denied commit: %+v", r)
	}
	if r := find(audit.KindRequest, netproto.ToolYangGet); r == nil || !strings.Contains(string(r.Arguments), "ietf-interfaces") || r.ID == "" {
		t.Fatalf("yang.get request: %+v", r)
	}
	if r := find(audit.KindResponse, netproto.ToolYangGet); r == nil || r.Outcome != audit.OutcomeOK || r.DurationMS <= 0 {
		t.Fatalf("yang.get response: %+v", r)
	}
	if r := find(audit.KindNotification, ""); r == nil || r.Method != "notifications/initialized" {
		t.Fatalf("initialized notification: %+v", r)
	}
}

// TestPrivacyConsent checks level-3 data: refused without consent, read
// with _meta.privacyConsent, contents tagged with their level.
func TestPrivacyConsent(t *testing.T) {
	env := newSecEnv(t, envConfig{file: matrixPolicy})
	admin, _ := env.session(env.token("ada", "", time.Hour), nil)
	uri := "network:///file/0%2F0%2FCPU0/crashinfo"
	if _, err := readResource(admin, uri, false); rpcCode(err) != netproto.CodeAccessDenied || !strings.Contains(errText(err), server.MetaPrivacyConsent) {
		t.Fatalf("without consent: %v", err)
	}
	res, err := admin.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri, Meta: mcp.Meta{server.MetaPrivacyConsent: true}})
	if err != nil {
		t.Fatal(err)
	}
	if lvl := res.Contents[0].Meta[server.MetaPrivacyLevel]; lvl != float64(3) {
		t.Fatalf("privacyLevel %v", lvl)
	}
	res, err = admin.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: netproto.URIRunningConfig})
	if err != nil || res.Contents[0].Meta[server.MetaPrivacyLevel] != float64(2) {
		t.Fatalf("running-config: %v %v", err, res)
	}
}

// TestLimits checks the rate limit per identity and the limit of calls
// in progress per session: each a retryable -32083 that says so.
func TestLimits(t *testing.T) {
	env := newSecEnv(t, envConfig{noJWT: true, modify: func(o *server.SecurityOptions) {
		o.RateLimiter = policy.NewRateLimiter(0.001, 3)
	}})
	cs, _ := env.session("", nil)
	var err error
	for i := 0; i < 4 && err == nil; i++ {
		_, err = callTool(cs, netproto.ToolYangGet, map[string]any{"path": "/ietf-interfaces:interfaces"})
	}
	if rpcCode(err) != netproto.CodeAccessDenied || !strings.Contains(errText(err), "rate limit exceeded for anonymous") {
		t.Fatalf("4th call: %v", err)
	}
	var je *jsonrpc.Error
	errors.As(err, &je)
	if !strings.Contains(string(je.Data), `"retryPossible":true`) {
		t.Fatalf("not retryable: %s", je.Data)
	}

	env2 := newSecEnv(t, envConfig{noJWT: true, modify: func(o *server.SecurityOptions) {
		o.SessionLimiter = policy.NewSessionLimiter(1)
		o.LocalRole = policy.RoleOperator
	}})
	// A write waiting for the operator's approval (elicitation) holds the
	// session's only slot.
	asked, answer := make(chan struct{}), make(chan struct{})
	client := mcp.NewClient(&mcp.Implementation{Name: "limits", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			close(asked)
			<-answer
			return &mcp.ElicitResult{Action: "decline"}, nil
		}})
	cs2, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: env2.url, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs2.Close()
	slow := make(chan error, 1)
	go func() {
		_, err := callTool(cs2, netproto.ToolCLIConfigure, map[string]any{"commands": []string{"vlan 300"}})
		slow <- err
	}()
	<-asked
	_, err = callTool(cs2, netproto.ToolYangGet, map[string]any{"path": "/ietf-interfaces:interfaces"})
	if rpcCode(err) != netproto.CodeAccessDenied || !strings.Contains(errText(err), "calls in progress (limit 1 per session)") {
		t.Errorf("second concurrent call: %v", err)
	}
	close(answer)
	<-slow
	if _, err := callTool(cs2, netproto.ToolYangGet, map[string]any{"path": "/ietf-interfaces:interfaces"}); err != nil {
		t.Errorf("after the first call ended: %v", err)
	}
}
