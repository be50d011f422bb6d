package console_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/console"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/lab/labtest"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/pki"
	"github.com/netmcp/netmcp/policy"
)

// The token issuer of the tests' policy.
const (
	testIssuer   = "https://idp.test"
	testResource = "https://console.test"
)

// gateLab is a served lab, a console in front of it (over HTTPS with the
// policy's identities when TLS is set), and hosts that write to its
// devices through the fleet as the controller's hosts do: a device's
// approval question about a host's write goes to the console's queue
// (Console.Gate), with the host's identity as its requester.
type gateLab struct {
	lab   *labtest.Lab
	fleet *client.Fleet
	c     *console.Console
	base  string
	audit string

	// With TLS: the CA's certificate, the clients' key pairs by name, and
	// the key that signs bearer tokens.
	caPEM []byte
	ca    *pki.CA
	jwk   ed25519.PrivateKey

	hosts sync.Map // correlation id -> the requesting host's identity
}

// gatePolicy is the policy of the TLS gate lab: alice and bob operate,
// victor views, carol may commit on r2 only; four-eyes when asked.
func gatePolicy(t testing.TB, pub ed25519.PublicKey, fourEyes bool) *policy.Policy {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	key := strings.ReplaceAll(strings.TrimSpace(string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))), "\n", "\n          ")
	yml := fmt.Sprintf(`
roles:
  r2-operator: [resource:*, yang:*, tool:network.commit, tool:network.yang.edit, yang-write:*, device:r2]
identities:
  - {subject: alice, roles: [operator]}
  - {subject: bob, roles: [operator]}
  - {subject: victor, roles: [viewer]}
  - {subject: carol, roles: [r2-operator]}
approval: {fourEyes: %v}
jwt:
  resource: %s
  issuers:
    - issuer: %s
      keys:
        - |
          %s
`, fourEyes, testResource, testIssuer, key)
	p, err := policy.Parse([]byte(yml))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// newGateLab starts the lab, with faults, and its console; with tls,
// over HTTPS with the policy of gatePolicy (four-eyes as given).
func newGateLab(t testing.TB, withTLS, fourEyes bool, faults ...string) *gateLab {
	t.Helper()
	g := &gateLab{lab: labtest.New(t, labtest.Options{Audit: true, Faults: faults})}
	inv := g.lab.Serve().Inventory()
	var web atomic.Pointer[console.Console]
	fleet, err := client.New(inv, client.Options{Name: "console-test", CallTimeout: time.Minute,
		Elicit: func(ctx context.Context, d *client.Device, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			corr, _ := p.GetMeta()[netproto.MetaCorrelationID].(string)
			if who, ok := g.hosts.Load(corr); ok {
				return web.Load().Gate(ctx, d, p, who.(string))
			}
			if res, ok := web.Load().Elicit(ctx, d, p); ok {
				return res, nil
			}
			return &mcp.ElicitResult{Action: "decline"}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fleet.Close() })
	g.fleet = fleet
	topo := g.lab.Topology()
	dir := t.TempDir()
	alog, err := audit.Open(dir+"/console-audit.jsonl", audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { alog.Close() })
	g.audit = alog.Path()
	eng := &engine{fleet: fleet, ctl: controller.Controller{Hosts: controller.HostsOf(topo), Domains: controller.DomainsOf(topo)},
		store: controller.Store{Dir: dir + "/reports"}}
	o := console.Options{Inventory: inv, Fleet: fleet, Topology: &topo, Interval: 200 * time.Millisecond,
		User: "alice", Engine: eng, Audit: alog}
	if withTLS {
		if g.ca, err = pki.NewCA("console test CA"); err != nil {
			t.Fatal(err)
		}
		g.caPEM = g.ca.CertPEM
		cert, key, err := g.ca.Issue("127.0.0.1", pki.KindServer, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if o.TLS, err = pki.ServerTLSConfig(cert, key, g.caPEM); err != nil {
			t.Fatal(err)
		}
		var pub ed25519.PublicKey
		pub, g.jwk, _ = ed25519.GenerateKey(rand.Reader)
		o.Policy = gatePolicy(t, pub, fourEyes)
		if o.Verifier, err = o.Policy.Verifier(); err != nil {
			t.Fatal(err)
		}
	}
	c, err := console.Listen("127.0.0.1:0", o)
	if err != nil {
		t.Fatal(err)
	}
	web.Store(c)
	t.Cleanup(func() { c.Close() })
	g.c = c
	g.base = strings.TrimSuffix(strings.SplitN(c.LoginURL(), "/login", 2)[0], "/")
	return g
}

// tlsClient is an HTTPS client trusting the lab's CA, with a cookie jar,
// presenting the client certificate of name (none when name is "").
func (g *gateLab) tlsClient(t testing.TB, name string) *http.Client {
	t.Helper()
	var cert, key []byte
	if name != "" {
		var err error
		if cert, key, err = g.ca.Issue(name, pki.KindClient, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := pki.ClientTLSConfig(g.caPEM, cert, key, "")
	if err != nil {
		t.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Transport: &http.Transport{TLSClientConfig: cfg},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// token signs a bearer token for subject, scoped to whatever its roles
// allow.
func (g *gateLab) token(t testing.TB, subject string) string {
	t.Helper()
	s, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.MapClaims{"iss": testIssuer, "aud": testResource, "sub": subject,
		"exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix(),
		"scope": "tool:* resource:* yang:* yang-write:*"}).SignedString(g.jwk)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// bearer is an HTTPS client that sends a bearer token with every request.
func (g *gateLab) bearer(t testing.TB, token string) *http.Client {
	hc := g.tlsClient(t, "")
	hc.Transport = bearerTransport{token: token, next: hc.Transport}
	return hc
}

type bearerTransport struct {
	token string
	next  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// as is a session of the console for client hc: its page's CSRF token
// read when it has one.
func (g *gateLab) as(t testing.TB, hc *http.Client) *session {
	t.Helper()
	s := &session{t: t, hc: hc, base: g.base}
	body := s.get("/", http.StatusOK)
	if m := regexp.MustCompile(`name="csrf-token" content="([^"]+)"`).FindStringSubmatch(body); m != nil {
		s.csrf = m[1]
	}
	return s
}

// write runs a host's write on dev as requester, as a controller's host
// request does: the device's questions about it carry its correlation id.
func (g *gateLab) write(ctx context.Context, requester, dev, tool string, args map[string]any) error {
	corr := client.NewCorrelationID()
	g.hosts.Store(corr, requester)
	defer g.hosts.Delete(corr)
	res, err := g.fleet.Device(dev).CallTool(client.WithCorrelationID(ctx, corr), tool, args)
	if err == nil && res.IsError {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		err = fmt.Errorf("%s: %s", tool, b.String())
	}
	return err
}

// describe is the edit that sets the description of r's first
// interface, which the lab's routers have.
func describe(text string) map[string]any {
	return map[string]any{"target": "candidate", "edit": []any{map[string]any{"operation": "merge",
		"path": "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/1']/config", "value": map[string]any{"description": text}}}}
}

// description reads the running description of dev's first interface.
func (g *gateLab) description(t testing.TB, dev string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := g.fleet.Device(dev).CallTool(ctx, netproto.ToolYangGet, map[string]any{
		"path": "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/1']/config/description"})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// applyAsHost runs, in the background, a host's change of dev's
// description as a confirmed commit (120 s): the edit, then the commit,
// each asking the device's gate. The returned channel gives its outcome.
func (g *gateLab) applyAsHost(requester, dev, text string) <-chan error {
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		err := g.write(ctx, requester, dev, netproto.ToolYangEdit, describe(text))
		if err == nil {
			err = g.write(ctx, requester, dev, netproto.ToolCommit, map[string]any{"confirmed": 120, "comment": "set by " + requester})
		}
		done <- err
	}()
	return done
}

// gateAction finds the form of the device question about tool on the
// approvals page: its action's path, "" when there is none.
func gateAction(page, tool, decision string) string {
	re := regexp.MustCompile(`(?s)<section class="approval gate" id="gate-([^"]+)"[^>]*>\s*<h3[^>]*>` + regexp.QuoteMeta(tool) + ` on `)
	m := re.FindStringSubmatch(page)
	if m == nil {
		return ""
	}
	path := "/gates/" + m[1] + "/" + decision
	if !strings.Contains(page, `action="`+path+`"`) {
		return ""
	}
	return path
}

// gateID is the id of the waiting device question about tool, "" when none.
func gateID(page, tool string) string {
	re := regexp.MustCompile(`(?s)<section class="approval gate" id="gate-([^"]+)"[^>]*>\s*<h3[^>]*>` + regexp.QuoteMeta(tool) + ` on `)
	if m := re.FindStringSubmatch(page); m != nil {
		return m[1]
	}
	return ""
}

// body reads a response's body.
func body(t testing.TB, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
