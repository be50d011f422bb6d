package serve

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/policy"
)

// r1Secrets are secrets of r1's configuration in the built-in lab: a
// user's password and the SNMP community.
var r1Secrets = []string{"Huawei@123", "s3cr3t-ro"}

// syncBuffer is a buffer written by a logger while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestUpToken: a lab writes its token 0600 to STATE-DIR/token and its
// inventory names that file, never the token; its devices refuse (401) a
// request without the token, with a malformed one or with another lab's,
// even on a session opened with the right one, and nothing changes; the
// token reaches no log, note or answer; the file goes with the lab.
func TestUpToken(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	logs := &syncBuffer{}
	l, err := Up(ctx, Options{Topology: sim.DefaultTopology(), StateDir: dir, Notes: logs,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	file := filepath.Join(dir, TokenFile)
	if l.TokenFile() != file {
		t.Errorf("token file %s, want %s", l.TokenFile(), file)
	}
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", st.Mode().Perm())
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(string(b))
	if len(token) < 64 {
		t.Fatalf("token %d bytes", len(token))
	}
	invText, err := os.ReadFile(filepath.Join(dir, InventoryFile))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(invText, []byte(token)) {
		t.Error("the inventory holds the token inline")
	}
	inv, err := inventory.Load(filepath.Join(dir, InventoryFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range inv.Devices {
		if d.Credentials.TokenFile != file {
			t.Errorf("inventory entry %s: credentials %+v, want token-file %s", d.Name, d.Credentials, file)
		}
	}

	other, err := Up(ctx, Options{Topology: sim.DefaultTopology()})
	if err != nil {
		t.Fatal(err)
	}
	otherToken := other.auth.token
	otherFile := other.TokenFile()
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(otherFile)); !os.IsNotExist(err) {
		t.Errorf("the token directory of a lab without a state directory is left after Close: %v", err)
	}

	// A session opened with the token; its session id then sent with
	// other credentials.
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "token-test", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: l.URL("r1"), HTTPClient: l.HTTPClient()}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	const desc = "set without the lab's token"
	edit := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"network.cli.configure","arguments":{"lines":["interface GigabitEthernet0/0/0","description ` + desc + `"],"commit":true}}}`
	for _, tc := range []struct{ name, auth string }{
		{"no token", ""},
		{"not a bearer token", "Basic " + token},
		{"a malformed token", "Bearer not-a-jwt"},
		{"another lab's token", "Bearer " + otherToken},
		{"the token altered", "Bearer " + token[:len(token)-4] + "AAAA"},
	} {
		for _, body := range []string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`,
			edit,
		} {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, l.URL("r1"), strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Session-Id", cs.ID())
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			reply, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s: status %d, want 401: %s", tc.name, resp.StatusCode, reply)
			}
			if bytes.Contains(reply, []byte(token)) || bytes.Contains(reply, []byte(otherToken)) {
				t.Errorf("%s: the reply holds a token: %s", tc.name, reply)
			}
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "network.cli.exec", Arguments: map[string]any{"cmd": "display current-configuration"}})
	if err != nil || res.IsError {
		t.Fatalf("cli.exec with the token: %v %+v", err, res)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if strings.Contains(text, desc) {
		t.Error("a request without the lab's token changed r1")
	}
	for _, s := range r1Secrets {
		if strings.Contains(text, s) {
			t.Errorf("the lab's token (role %s) reads r1's secret %q in clear", RoleLab, s)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("token file left after Close: %v", err)
	}
	if out := logs.String(); strings.Contains(out, token) || strings.Contains(out, otherToken) || !strings.Contains(out, "HTTP request refused") {
		t.Errorf("the log holds a token, or no refusal:\n%s", out)
	}
}

// TestUpTokenRole: Options.Role gives the token's holder another role:
// admin reads the secrets RoleLab's holder sees masked; an unknown role is
// refused at start.
func TestUpTokenRole(t *testing.T) {
	ctx := context.Background()
	if _, err := Up(ctx, Options{Topology: sim.DefaultTopology(), Role: "wizard"}); err == nil || !strings.Contains(err.Error(), "wizard") {
		t.Fatalf("unknown role: %v", err)
	}
	l, err := Up(ctx, Options{Topology: sim.DefaultTopology(), Role: policy.RoleAdmin})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "token-test", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: l.URL("r1"), HTTPClient: l.HTTPClient()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "network.cli.exec", Arguments: map[string]any{"cmd": "display current-configuration"}})
	if err != nil || res.IsError {
		t.Fatalf("cli.exec: %v %+v", err, res)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, r1Secrets[0]) {
		t.Errorf("admin reads no secret of r1:\n%s", text)
	}
}
