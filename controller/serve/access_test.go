package serve_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/controller/serve"
	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/pki"
	"github.com/netmcp/netmcp/policy"
	"github.com/netmcp/netmcp/transport"
)

// hostPolicy is the controller's policy of the tests: the NOC host may
// read and ask, on site a only; the ops host is an admin.
const hostPolicy = `
roles:
  noc-readonly:
    - tool:network.yang.get
    - tool:network.cli.exec
    - tool:ping
    - tool:ask
    - resource:mcp://*
    - yang:*
    - device:site=a
identities:
  - {subject: noc, source: mtls, roles: [noc-readonly]}
  - {subject: ops, source: mtls, roles: [admin]}
`

// policyServer is the controller's MCP server over HTTPS with mutual TLS
// in front of the test lab, with a policy and an audit log.
type policyServer struct {
	srv       *serve.Server
	url       string
	ca        *pki.CA
	auditPath string
}

// newPolicyServer serves the lab's fleet (r1 and r2 at site a, the rest
// at site b) through the controller with pol (nil: no policy file) over
// HTTPS; mtls requires client certificates.
func newPolicyServer(t *testing.T, l *testLab, pol *policy.Policy, mtls bool) *policyServer {
	t.Helper()
	return servePolicy(t, sited(l.inv), l.ctl.Hosts, pol, mtls)
}

// sited returns a copy of inv with r1 and r2 at site a, the rest at site b.
func sited(inv *inventory.Inventory) *inventory.Inventory {
	out := &inventory.Inventory{Name: "policy"}
	for _, d := range inv.Devices {
		d.Site = "b"
		if d.Name == "r1" || d.Name == "r2" {
			d.Site = "a"
		}
		out.Devices = append(out.Devices, d)
	}
	return out
}

// servePolicy serves the fleet of inv through the controller with pol
// (nil: no policy file) over HTTPS, with an audit log; mtls requires
// client certificates. The devices' elicitations go through Server.Elicit.
func servePolicy(t *testing.T, inv *inventory.Inventory, hosts []controller.Host, pol *policy.Policy, mtls bool) *policyServer {
	t.Helper()
	var srv *serve.Server
	fleet, err := client.New(inv, client.Options{CallTimeout: time.Minute, Elicit: func(ctx context.Context, d *client.Device, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return srv.Elicit(ctx, d, p)
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fleet.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := fleet.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ps := &policyServer{auditPath: filepath.Join(dir, serve.AuditFile)}
	log, err := audit.Open(ps.auditPath, audit.Options{Sync: audit.SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	srv = serve.New(&controller.Controller{Fleet: fleet, Hosts: hosts}, controller.Store{Dir: dir}, "test")
	ps.srv = srv
	srv.SetAccess(serve.AccessOptions{Policy: pol, Audit: log})
	if ps.ca, err = pki.NewCA("test-ca"); err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := ps.ca.Issue("controller", pki.KindServer, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	var clientCA []byte
	if mtls {
		clientCA = ps.ca.CertPEM
	}
	cfg, err := pki.ServerTLSConfig(certPEM, keyPEM, clientCA)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv.HTTPHandler(transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, transport.HTTPOptions{}))}
	go func() { _ = hs.Serve(transport.TLSListener(ln, cfg)) }()
	t.Cleanup(func() { _ = hs.Close() })
	ps.url = "https://" + ln.Addr().String() + transport.Path
	return ps
}

// connect opens a host session with a client certificate of cn ("": none)
// that approves every elicitation the devices send.
func (ps *policyServer) connect(t *testing.T, ctx context.Context, cn string) *mcp.ClientSession {
	t.Helper()
	return ps.connectWith(t, ctx, cn, func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	})
}

// connectWith opens a host session with a client certificate of cn ("":
// none) whose elicitations elicit answers.
func (ps *policyServer) connectWith(t *testing.T, ctx context.Context, cn string, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	t.Helper()
	cfg := ps.clientTLS(t, cn)
	host := mcp.NewClient(&mcp.Implementation{Name: "host-" + cn}, &mcp.ClientOptions{ElicitationHandler: elicit})
	cs, err := host.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ps.url, HTTPClient: &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// clientTLS is the TLS configuration of a host with a client certificate
// of cn ("": none).
func (ps *policyServer) clientTLS(t *testing.T, cn string) *tls.Config {
	t.Helper()
	var certPEM, keyPEM []byte
	if cn != "" {
		var err error
		if certPEM, keyPEM, err = ps.ca.Issue(cn, pki.KindClient, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := pki.ClientTLSConfig(ps.ca.CertPEM, certPEM, keyPEM, "controller")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// records reads the audit log.
func (ps *policyServer) records(t *testing.T) []audit.Record {
	t.Helper()
	recs, err := audit.ReadFile(ps.auditPath)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

const hostnamePathTest = "/openconfig-system:system/config/hostname"

// editArgs is a candidate edit of r's interface description.
func editArgs(device string) map[string]any {
	return map[string]any{"device": device, "tool": netproto.ToolYangEdit, "arguments": map[string]any{"target": "candidate", "edit": []any{
		map[string]any{"operation": "merge", "path": "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/1']/config", "value": map[string]any{"description": "policy test"}}}}}
}

// TestControllerServePolicy: two hosts over HTTPS with mutual TLS, told
// apart by their client certificates. The NOC host (read-only, site a)
// sees only r1 and r2, reads them, is refused a configuration write, a
// device of site b and a resource of one, its ask runs over r1 and r2
// only, and its report says it may not apply the fix; the ops host (admin) sees every device and its write
// succeeds. Each refusal is a -32083 error naming the identity, the device
// and the missing scope, and is in the audit log with its correlation id.
func TestControllerServePolicy(t *testing.T) {
	l := newTestLab(t, "icmp_acl_block r2:GigabitEthernet0/0/0/0")
	pol, err := policy.Parse([]byte(hostPolicy))
	if err != nil {
		t.Fatal(err)
	}
	ps := newPolicyServer(t, l, pol, true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	hosts := map[string]*mcp.ClientSession{"noc": ps.connect(t, ctx, "noc"), "ops": ps.connect(t, ctx, "ops")}

	t.Run("list_devices", func(t *testing.T) {
		for _, tc := range []struct {
			host string
			want []string
		}{
			{"noc", []string{"r1", "r2"}},
			{"ops", []string{"h1", "h2", "r1", "r2", "r3"}},
		} {
			res, err := hosts[tc.host].CallTool(ctx, &mcp.CallToolParams{Name: serve.ToolListDevices, Arguments: map[string]any{}})
			if err != nil || res.IsError {
				t.Fatalf("%s: list_devices: %v %+v", tc.host, err, res)
			}
			var out serve.ListDevicesOut
			remarshal(t, res.StructuredContent, &out)
			var names []string
			for _, d := range out.Devices {
				names = append(names, d.Name)
			}
			slices.Sort(names)
			if len(tc.want) == 2 && !slices.Equal(names, tc.want) || len(tc.want) > 2 && len(names) != len(l.inv.Devices) {
				t.Errorf("%s sees %v, want %v", tc.host, names, tc.want)
			}
		}
	})

	calls := []struct {
		name, host string
		tool       string // controller tool, or a resource URI
		args       map[string]any
		// denied: the refusal's detail holds these; none: the call succeeds.
		denied []string
	}{
		{"noc reads r2", "noc", serve.ToolCallDeviceTool, map[string]any{"device": "r2", "tool": netproto.ToolYangGet, "arguments": map[string]any{"path": hostnamePathTest}}, nil},
		{"noc configures r2", "noc", serve.ToolCallDeviceTool, map[string]any{"device": "r2", "tool": netproto.ToolCLIConfigure, "arguments": map[string]any{"commands": []any{"hostname x"}}},
			[]string{"mtls:noc", "noc-readonly", "device r2", "tool:network.cli.configure"}},
		{"noc edits r1", "noc", serve.ToolCallDeviceTool, editArgs("r1"), []string{"mtls:noc", "device r1", "tool:network.yang.edit"}},
		{"noc reads r3 of site b", "noc", serve.ToolCallDeviceTool, map[string]any{"device": "r3", "tool": netproto.ToolYangGet, "arguments": map[string]any{"path": hostnamePathTest}},
			[]string{"mtls:noc", "device r3", "site=b", "device:site=a"}},
		{"noc reads resource of r1", "noc", "mcp://r1" + hostnamePathTest, nil, nil},
		{"noc reads resource of r3", "noc", "mcp://r3" + hostnamePathTest, nil, []string{"mtls:noc", "device r3", "device:site=a"}},
		{"noc asks about r3", "noc", serve.ToolAsk, map[string]any{"intent": `{"kind":"reachability","source":"r3","destination":"h1"}`}, []string{"mtls:noc", "r3", "site=b"}},
		{"noc submits a report", "noc", serve.ToolSubmitReport, map[string]any{"report": map[string]any{}}, []string{"mtls:noc", "tool:submit_report"}},
		{"ops edits r3", "ops", serve.ToolCallDeviceTool, editArgs("r3"), nil},
		{"ops reads resource of r3", "ops", "mcp://r3" + hostnamePathTest, nil, nil},
	}
	for i, tc := range calls {
		t.Run(tc.name, func(t *testing.T) {
			corr := "policy-test-" + string(rune('a'+i))
			meta := mcp.Meta{netproto.MetaCorrelationID: corr}
			var err error
			if strings.HasPrefix(tc.tool, "mcp://") {
				_, err = hosts[tc.host].ReadResource(ctx, &mcp.ReadResourceParams{URI: tc.tool, Meta: meta})
			} else {
				var res *mcp.CallToolResult
				res, err = hosts[tc.host].CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args, Meta: meta})
				if err == nil && res.IsError {
					err = errors.New(textOf(res))
				}
			}
			if tc.denied == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != netproto.CodeAccessDenied {
				t.Fatalf("want a -32083 error, got %v", err)
			}
			var data netproto.ErrorData
			_ = json.Unmarshal(je.Data, &data)
			t.Logf("refused: %s", je.Message)
			for _, w := range tc.denied {
				if !strings.Contains(data.Detail, w) || !strings.Contains(je.Message, w) {
					t.Errorf("refusal %q (message %q) does not name %q", data.Detail, je.Message, w)
				}
			}
			var found bool
			for _, r := range ps.records(t) {
				if r.Kind == audit.KindResponse && r.Correlation == corr && r.Identity == "mtls:"+tc.host && r.ErrorCode == netproto.CodeAccessDenied &&
					strings.Contains(string(r.Arguments), tc.denied[len(tc.denied)-1]) {
					found = true
				}
			}
			if !found {
				t.Errorf("refusal not in the audit log with correlation id %s", corr)
			}
		})
	}

	// The NOC host's certificate on the ops host's session: 403, nothing
	// runs with the admin's rights.
	t.Run("session of another host", func(t *testing.T) {
		certPEM, keyPEM, err := ps.ca.Issue("noc", pki.KindClient, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := pki.ClientTLSConfig(ps.ca.CertPEM, certPEM, keyPEM, "controller")
		if err != nil {
			t.Fatal(err)
		}
		body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"call_device_tool","arguments":{"device":"r3","tool":"network.cli.configure","arguments":{"commands":["hostname x"]}}}}`
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, ps.url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", hosts["ops"].ID())
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		resp, err := (&http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("noc on ops's session: HTTP %d, want 403", resp.StatusCode)
		}
	})

	t.Run("ask", func(t *testing.T) {
		for _, tc := range []struct {
			host        string
			wantConsent string // "": no remediation note
		}{
			{"noc", "denied"},
			{"ops", ""},
		} {
			res, err := hosts[tc.host].CallTool(ctx, &mcp.CallToolParams{Name: serve.ToolAsk, Arguments: map[string]any{"intent": "what is wrong with the network?"}})
			if err != nil || res.IsError {
				t.Fatalf("%s: ask: %v %+v", tc.host, err, res)
			}
			var rep controller.Report
			remarshal(t, res.StructuredContent, &rep)
			if !slices.Equal(rep.RootCauseName, []string{"icmp_acl_block"}) || !slices.Equal(rep.FaultyDevices, []string{"r2"}) || len(rep.ProposedChanges) == 0 {
				t.Fatalf("%s: ask: %v at %v, %d changes", tc.host, rep.RootCauseName, rep.FaultyDevices, len(rep.ProposedChanges))
			}
			got := ""
			if rep.Remediation != nil {
				got = rep.Remediation.Consent
				if !strings.Contains(rep.Remediation.Result, "mtls:"+tc.host) || !strings.Contains(rep.Remediation.Result, "r2") {
					t.Errorf("%s: remediation note %q names neither the host nor r2", tc.host, rep.Remediation.Result)
				}
			}
			// The NOC host's ask ran over its own devices only: no call
			// went to site b's r3, and the report says what was examined.
			var onR3 int
			for _, c := range rep.Calls {
				if c.Device == "r3" {
					onR3++
				}
			}
			scoped := strings.Contains(rep.Diagnosis, "Only the devices mtls:noc reaches were examined: r1, r2")
			switch {
			case tc.host == "noc" && (onR3 > 0 || !scoped):
				t.Errorf("noc: %d calls to r3, diagnosis %q: want none, and the scope stated", onR3, rep.Diagnosis)
			case tc.host == "ops" && (onR3 == 0 || strings.Contains(rep.Diagnosis, "Only the devices")):
				t.Errorf("ops: %d calls to r3, diagnosis %q: want the whole fleet examined", onR3, rep.Diagnosis)
			}
			if got != tc.wantConsent {
				t.Errorf("%s: remediation consent %q, want %q", tc.host, got, tc.wantConsent)
			}
		}
	})
}

// TestControllerServeDefaultAccess: without a policy file an HTTP host
// (here with no client certificate) may read and ask but not write
// through call_device_tool.
func TestControllerServeDefaultAccess(t *testing.T) {
	l := newTestLab(t)
	ps := newPolicyServer(t, l, nil, false)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := ps.connect(t, ctx, "")
	for _, tc := range []struct {
		name   string
		args   map[string]any
		denied bool
	}{
		{"read", map[string]any{"device": "r2", "tool": netproto.ToolYangGet, "arguments": map[string]any{"path": hostnamePathTest}}, false},
		{"ping", map[string]any{"device": "r1", "tool": netproto.ToolPing, "arguments": map[string]any{"destination": "10.0.12.2", "count": 1}}, false},
		{"write", editArgs("r3"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: serve.ToolCallDeviceTool, Arguments: tc.args})
			var je *jsonrpc.Error
			switch {
			case tc.denied && (!errors.As(err, &je) || je.Code != netproto.CodeAccessDenied || !strings.Contains(je.Message, serve.RoleHTTPHost)):
				t.Fatalf("want a -32083 refusal naming role %s, got %v", serve.RoleHTTPHost, err)
			case !tc.denied && (err != nil || res.IsError):
				t.Fatalf("refused: %v %+v", err, res)
			}
		})
	}
}
