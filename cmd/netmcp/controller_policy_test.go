package main

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/internal/syncbuf"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/pki"
)

// serverPKI makes a test CA and the controller's server certificate,
// written under dir, and returns the CA, the certificate, key and CA
// files, and write, which writes another file there (0600) and returns
// its path.
func serverPKI(t *testing.T, dir string) (ca *pki.CA, cert, key, caFile string, write func(name string, b []byte) string) {
	t.Helper()
	ca, err := pki.NewCA("test-ca")
	if err != nil {
		t.Fatal(err)
	}
	write = func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	certPEM, keyPEM, err := ca.Issue("controller", pki.KindServer, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return ca, write("srv.pem", certPEM), write("srv.key", keyPEM), write("ca.pem", ca.CertPEM), write
}

// TestControllerServePolicyFlags runs `controller serve --lab --listen
// --tls-cert --tls-key --client-ca --policy --audit` in-process: a host
// whose certificate the policy maps to a read-only role reads r2, is
// refused a configuration write with -32083, and the refusal is in the
// audit log, which verifies. Bad flag combinations exit 2.
func TestControllerServePolicyFlags(t *testing.T) {
	dir := t.TempDir()
	ca, cert, key, caFile, write := serverPKI(t, dir)
	o := controllerServeOptions{lab: labBuiltin, listen: "127.0.0.1:0", reportsDir: filepath.Join(dir, "reports"),
		tlsCert: cert, tlsKey: key, clientCA: caFile,
		audit: filepath.Join(dir, "audit.jsonl"),
		policy: write("policy.yaml", []byte("roles:\n  noc-readonly: [tool:network.yang.get, tool:ask, \"yang:*\"]\n"+
			"identities:\n  - {subject: noc, source: mtls, roles: [noc-readonly]}\n"))}

	for _, tc := range []struct {
		name string
		edit func(*controllerServeOptions)
		want string
	}{
		{"policy file missing", func(o *controllerServeOptions) { o.policy = filepath.Join(dir, "none.yaml") }, "none.yaml"},
		{"policy with an unknown role", func(o *controllerServeOptions) {
			o.policy = write("bad.yaml", []byte("identities:\n  - {subject: x, roles: [nope]}\n"))
		}, `unknown role "nope"`},
		{"TLS without --listen", func(o *controllerServeOptions) { o.listen = "" }, "need --listen"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := o
			tc.edit(&bad)
			err := runControllerServe(context.Background(), bad, strings.NewReader(""), &syncbuf.Buffer{}, &syncbuf.Buffer{})
			var ee *exitError
			if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want exit 2 with %q", err, tc.want)
			}
		})
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stderr syncbuf.Buffer
	done := make(chan error, 1)
	go func() { done <- runControllerServe(ctx, o, strings.NewReader(""), &syncbuf.Buffer{}, &stderr) }()
	re := regexp.MustCompile(`MCP at (https://[0-9.:]+/mcp)`)
	var url string
	for deadline := time.Now().Add(30 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		t.Fatalf("no https address announced: %q", stderr.String())
	}
	cc, ck, err := ca.Issue("noc", pki.KindClient, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := pki.ClientTLSConfig(ca.CertPEM, cc, ck, "controller")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "noc"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "call_device_tool", Arguments: map[string]any{
		"device": "r2", "tool": netproto.ToolYangGet, "arguments": map[string]any{"path": "/openconfig-system:system/config/hostname"}}})
	if err != nil || res.IsError {
		t.Fatalf("noc read: %v %+v", err, res)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "call_device_tool", Arguments: map[string]any{
		"device": "r2", "tool": netproto.ToolCLIConfigure, "arguments": map[string]any{"commands": []any{"hostname x"}}},
		Meta: mcp.Meta{netproto.MetaCorrelationID: "flags-corr"}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != netproto.CodeAccessDenied || !strings.Contains(je.Message, "mtls:noc") {
		t.Fatalf("noc write: want -32083 naming mtls:noc, got %v", err)
	}
	cs.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("controller serve: %v", err)
	}
	if _, err := audit.Verify(o.audit); err != nil {
		t.Fatalf("audit log does not verify: %v", err)
	}
	b, err := os.ReadFile(o.audit)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`"correlationId":"flags-corr".*"errorCode":-32083.*"identity":"mtls:noc"`).Match(b) {
		t.Errorf("no audited refusal of mtls:noc with correlation id flags-corr in:\n%s", b)
	}
}
