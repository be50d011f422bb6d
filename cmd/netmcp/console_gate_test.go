package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/internal/syncbuf"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/pki"
)

// TestControllerServeWebGate runs `controller serve --lab --listen --web
// --tls-cert --tls-key --client-ca --policy` with approval.fourEyes: the
// console serves HTTPS and its users log in with their client
// certificates as the policy's identities. A host's write through
// call_device_tool reaches r1, whose approval gate asks; with four-eyes
// the question goes to the console's queue, not back to the host (which
// could answer it). The requester may not approve it there; another
// operator does, the write goes through, and the controller's audit log
// records that approver. The confirmed commit that follows is then
// rolled back from the console.
func TestControllerServeWebGate(t *testing.T) {
	dir := t.TempDir()
	ca, cert, key, caFile, write := serverPKI(t, dir)
	o := controllerServeOptions{lab: labBuiltin, listen: "127.0.0.1:0", web: "127.0.0.1:0", reportsDir: filepath.Join(dir, "reports"),
		tlsCert: cert, tlsKey: key, clientCA: caFile,
		audit: filepath.Join(dir, "audit.jsonl"),
		policy: write("policy.yaml", []byte("identities:\n  - {subject: ops, source: mtls, roles: [operator]}\n"+
			"  - {subject: alice, source: mtls, roles: [operator]}\napproval: {fourEyes: true}\n"))}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stderr syncbuf.Buffer
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("controller serve's log:\n%s", stderr.String())
		}
	})
	done := make(chan error, 1)
	go func() { done <- runControllerServe(ctx, o, strings.NewReader(""), &syncbuf.Buffer{}, &stderr) }()
	var mcpURL, web string
	eventually(t, 30*time.Second, "controller serve announces MCP and the console", func() bool {
		if m := regexp.MustCompile(`MCP at (https://[0-9.:]+/mcp)`).FindStringSubmatch(stderr.String()); m != nil {
			mcpURL = m[1]
		}
		if m := regexp.MustCompile(`console at (https://[0-9.:]+)/login`).FindStringSubmatch(stderr.String()); m != nil {
			web = m[1]
		}
		return mcpURL != "" && web != ""
	})
	tlsFor := func(name string) *http.Client {
		cc, ck, err := ca.Issue(name, pki.KindClient, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := pki.ClientTLSConfig(ca.CertPEM, cc, ck, "controller")
		if err != nil {
			t.Fatal(err)
		}
		jar, _ := cookiejar.New(nil)
		return &http.Client{Jar: jar, Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: 30 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	// The host ops can be asked; four-eyes must not ask it.
	var askedHost atomic.Int32
	host, err := mcp.NewClient(&mcp.Implementation{Name: "ops"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			askedHost.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		}}).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: mcpURL, HTTPClient: tlsFor("ops")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	call := func(tool string, args map[string]any) <-chan error {
		out := make(chan error, 1)
		go func() {
			res, err := host.CallTool(ctx, &mcp.CallToolParams{Name: "call_device_tool", Arguments: map[string]any{"device": "r1", "tool": tool, "arguments": args}})
			if err == nil && res.IsError {
				err = fmt.Errorf("%s: %v", tool, res.Content)
			}
			out <- err
		}()
		return out
	}
	alice := &webSession{t: t, hc: tlsFor("alice"), base: web}
	ops := &webSession{t: t, hc: tlsFor("ops"), base: web}
	for _, s := range []*webSession{alice, ops} {
		_, home, _ := s.do(http.MethodGet, web+"/", nil)
		m := regexp.MustCompile(`name="csrf-token" content="([^"]+)"`).FindStringSubmatch(home)
		if m == nil {
			t.Fatalf("no console session for a client certificate:\n%.600s", home)
		}
		s.csrf = m[1]
	}
	approve := func(tool string, res <-chan error) {
		t.Helper()
		var page, id string
		eventually(t, 20*time.Second, tool+" waits in the console", func() bool {
			if askedHost.Load() > 0 {
				t.Fatal("the requesting host was asked to approve its own change")
			}
			select {
			case err := <-res:
				var je *jsonrpc.Error
				if errors.As(err, &je) {
					t.Fatalf("the host's %s ended before any approval: %v %s", tool, je, je.Data)
				}
				t.Fatalf("the host's %s ended before any approval: %v", tool, err)
			default:
			}
			_, page, _ = alice.do(http.MethodGet, web+"/approvals", nil)
			m := regexp.MustCompile(`id="gate-([^"]+)"[^>]*>\s*<h3[^>]*>` + regexp.QuoteMeta(tool) + ` on r1`).FindStringSubmatch(page)
			if m != nil {
				id = m[1]
			}
			return m != nil
		})
		if !strings.Contains(page, "mtls:ops") {
			t.Errorf("the question does not name the requesting host:\n%.2000s", page)
		}
		if code, _, _ := ops.do(http.MethodPost, web+"/gates/"+id+"/approve", map[string][]string{}); code != http.StatusForbidden {
			t.Errorf("%s: the requester's approval: %d, want 403", tool, code)
		}
		if code, _, _ := alice.do(http.MethodPost, web+"/gates/"+id+"/approve", map[string][]string{}); code != http.StatusSeeOther {
			t.Fatalf("%s: alice's approval: %d", tool, code)
		}
		if err := <-res; err != nil {
			t.Fatalf("the host's %s: %v", tool, err)
		}
	}
	approve(netproto.ToolYangEdit, call(netproto.ToolYangEdit, map[string]any{"target": "candidate", "edit": []any{map[string]any{"operation": "merge",
		"path": "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/1']/config", "value": map[string]any{"description": "four eyes"}}}}))
	approve(netproto.ToolCommit, call(netproto.ToolCommit, map[string]any{"confirmed": 120}))
	if n := askedHost.Load(); n != 0 {
		t.Errorf("the requesting host was asked %d times to approve its own change", n)
	}
	eventually(t, 30*time.Second, "the confirmed commit counts down in the console", func() bool {
		_, page, _ := alice.do(http.MethodGet, web+"/approvals", nil)
		return strings.Contains(page, `action="/commits/r1/cancel"`)
	})
	if code, _, _ := alice.do(http.MethodPost, web+"/commits/r1/cancel", map[string][]string{}); code != http.StatusSeeOther {
		t.Fatalf("roll back now: %d", code)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("controller serve: %v", err)
	}
	recs, err := audit.ReadFile(o.audit)
	if err != nil {
		t.Fatal(err)
	}
	var approvals, rollbacks int
	for _, r := range recs {
		if r.Method == "console/approval" && r.Identity == "mtls:alice" && strings.Contains(string(r.Arguments), `"requester":"mtls:ops"`) {
			approvals++
		}
		if r.Method == "console/commit-cancel" && r.Identity == "mtls:alice" {
			rollbacks++
		}
	}
	if approvals != 2 || rollbacks != 1 {
		t.Errorf("the controller's audit log has %d approvals and %d roll backs by mtls:alice, want 2 and 1", approvals, rollbacks)
	}
}
