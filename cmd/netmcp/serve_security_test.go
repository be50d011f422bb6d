package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/internal/syncbuf"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/transport"
)

// TestServeAuditVerify serves sim://r1 over HTTP as `netmcp serve` does,
// runs a real MCP session, and checks the audit log it produced with
// `netmcp audit verify`: intact, then edited (FAIL, exit 1).
func TestServeAuditVerify(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	drv, err := device.Open(ctx, "sim://r1", device.Options{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close()
	var logs, stderr syncbuf.Buffer
	sf := &securityFlags{localRole: "viewer", maxRequestBytes: transport.DefaultMaxBodyBytes, auditFsync: "always",
		rate: server.DefaultRatePerSecond, burst: server.DefaultRateBurst, maxConcurrent: server.DefaultMaxConcurrentPerSession}
	logger := sf.wrapLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	srv, err := server.New(drv, server.Options{Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- serveSecure(ctx, sf, srv, serveArgs{listen: "127.0.0.1:0", stateDir: dir, logger: logger, stderr: &stderr,
			deviceURL: "sim://r1", dialect: "huawei-vrp"})
	}()
	addr := regexp.MustCompile(`at (http://[0-9.:]+/mcp)`)
	var url string
	for deadline := time.Now().Add(10 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := addr.FindStringSubmatch(stderr.String()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		t.Fatalf("no address announced: %q", stderr.String())
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: netproto.ToolCLIExec, Arguments: map[string]any{"cmd": "display current-configuration"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: netproto.ToolCommit, Arguments: map[string]any{}}); err == nil {
		t.Fatal("a viewer committed")
	}
	cs.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(audit.PathIn(dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"Huawei@123", "N3tOps!2025", "s3cr3t-ro"} {
		if strings.Contains(string(b), secret) || strings.Contains(logs.String(), secret) {
			t.Errorf("secret %q in the audit log or the server log", secret)
		}
	}
	verify := func() (string, error) { return runRoot(t, "", "audit", "verify", "--state-dir", dir) }
	out, err := verify()
	if err != nil || !strings.HasPrefix(out, "OK ") {
		t.Fatalf("intact log: %q %v", out, err)
	}
	if n := strings.Count(string(b), "\n"); n < 6 {
		t.Fatalf("only %d records:\n%s", n, b)
	}
	// A local caller is anonymous, with its user where the OS tells
	// ("anonymous:uid:0").
	tampered := regexp.MustCompile(`"identity":"anonymous[^"]*"`).ReplaceAllLiteralString(string(b), `"identity":"jwt:admin"`)
	if tampered == string(b) {
		t.Fatalf("no anonymous record to edit:\n%s", b)
	}
	if err := os.WriteFile(audit.PathIn(dir), []byte(tampered), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = verify()
	var ee *exitError
	if !strings.HasPrefix(out, "FAIL ") || !errors.As(err, &ee) || ee.code != 1 {
		t.Fatalf("tampered log: %q %v", out, err)
	}
}

// TestLoadPolicyWithTrustedKeys reads one policy file for both the
// approval gate (trustedKeys) and package policy.
func TestLoadPolicyWithTrustedKeys(t *testing.T) {
	f := t.TempDir() + "/policy.yaml"
	pub, _, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(f, []byte("identities:\n  - {subject: alice, source: mtls, roles: [operator]}\ntrustedKeys:\n  alice: "+
		base64.StdEncoding.EncodeToString(pub)+"\napproval: {default: writes}\n"), 0o600)
	p, err := loadPolicy(f)
	if err != nil {
		t.Fatal(err)
	}
	if k := p.Approval().TrustedKeys["alice"]; !k.Equal(pub) {
		t.Fatalf("trusted key alice = %v", k)
	}
	if id := p.Resolve("alice", "mtls", nil); len(id.Roles) != 1 || id.Roles[0] != "operator" {
		t.Fatalf("alice: %+v", id)
	}
	os.WriteFile(f, []byte("identitees: []\n"), 0o600)
	if _, err := loadPolicy(f); err == nil {
		t.Fatal("a misspelt member was accepted")
	}
}

// TestServeSecurityFlagErrors checks the flag combinations refused before serving.
func TestServeSecurityFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		sf   securityFlags
		want string
	}{
		{"stream without certificate", securityFlags{tlsStreamListen: "127.0.0.1:0"}, "needs --tls-cert"},
		{"certificate without listener", securityFlags{tlsCert: "x", tlsKey: "y"}, "TLS certificate"},
	} {
		err := serveSecure(context.Background(), &tc.sf, nil, serveArgs{logger: slog.New(slog.DiscardHandler)})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestServeStdioLineTooLong: a stdio line over --max-request-bytes is
// answered on stdout with one JSON-RPC error (-32600, id null) naming the
// limit, and the server exits 1.
func TestServeStdioLineTooLong(t *testing.T) {
	cmd := exec.Command(netmcpBinary(t), "serve", "--device", "sim://r1", "--no-state", "--max-request-bytes", "1024")
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("\x7f", 2000) + `"}}` + "\n")
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v", err)
	}
	var msg struct {
		ID    any `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(out), &msg); err != nil {
		t.Fatalf("stdout is not one JSON-RPC message: %v\n%q", err, out)
	}
	if msg.ID != nil || msg.Error.Code != -32600 || !strings.Contains(msg.Error.Message, "1024") {
		t.Fatalf("error message %+v", msg)
	}
}
