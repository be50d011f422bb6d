package server_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
)

// One identity's approval requests cannot evict another's pending
// approval: 1100 refused commits of an operator leave an admin's token
// valid (issue 9, point 8).
func TestApprovalPoolPerIdentity(t *testing.T) {
	e := newSecEnv(t, envConfig{file: matrixPolicy})
	admin, _ := e.session(e.token("ada", "", time.Hour), nil)
	flood, _ := e.session(e.token("otto", "", time.Hour), nil)
	ar := needApproval(t, admin, netproto.ToolYangEdit, loopEdit("admin's change"))
	for i := 0; i < 1100; i++ {
		res, err := toolCall(t, flood, netproto.ToolCommit, `{"comment":"flood"}`)
		if err != nil || !res.IsError {
			t.Fatalf("flood call %d: %v, want an approval-required result", i, err)
		}
	}
	mustOK(t, admin, netproto.ToolYangEdit, withToken(loopEdit("admin's change"), ar.ApprovalToken))
}

// Sessions are bounded per identity and overall; a refused initialize
// leaves no session state (issue 9, point 8).
func TestSessionBounds(t *testing.T) {
	e := newSecEnv(t, envConfig{file: matrixPolicy})
	otto := e.token("otto", "", time.Hour)
	var mine []*mcp.ClientSession
	for i := 0; i < server.DefaultMaxSessionsPerIdentity; i++ {
		cs, _ := e.session(otto, nil)
		mine = append(mine, cs)
	}
	before := e.srv.Sessions()
	_, _, err := e.trySession(otto, nil)
	if want := fmt.Sprintf("jwt:otto has %d sessions open, the limit per identity", server.DefaultMaxSessionsPerIdentity); err == nil || !strings.Contains(errText(err), want) {
		t.Fatalf("65th session of one identity: %v, want the per-identity limit", err)
	}
	if n := e.srv.Sessions(); n != before {
		t.Fatalf("a refused initialize left session state: %d sessions, want %d", n, before)
	}
	// Another identity is not affected.
	ada, _ := e.session(e.token("ada", "", time.Hour), nil)
	if _, err := callTool(ada, netproto.ToolCLIExec, map[string]any{"cmd": "display version"}); err != nil {
		t.Fatal(err)
	}
	// Closing a session frees its place.
	mine[0].Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, _, err := e.trySession(otto, nil)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a closed session's place was not freed: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The overall bound holds for sessions without an identity too.
func TestSessionBoundOverall(t *testing.T) {
	e := newSim(t, "", server.Options{MaxSessions: 2})
	e.dial(t, nil)
	e.dial(t, nil)
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := e.srv.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	_, err := mcp.NewClient(&mcp.Implementation{Name: "third", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err == nil || !strings.Contains(errText(err), "2 sessions open, its limit") {
		t.Fatalf("third session: %v, want the server's session limit", err)
	}
}

// TestSessionBoundPerLocalUser: callers on loopback with no credential
// are told apart by their user (peer credentials), so one local process
// holding every session of the per-identity bound no longer locks out
// another local user; before, they all shared the anonymous identity.
func TestSessionBoundPerLocalUser(t *testing.T) {
	if runtime.GOOS != "linux" || os.Getuid() != 0 {
		t.Skip("needs Linux peer credentials and root, to call as another user")
	}
	e := newSecEnv(t, envConfig{noJWT: true, server: func(o *server.Options) { o.MaxSessionsPerIdentity = 2 }})
	e.session("", nil)
	e.session("", nil)
	me := fmt.Sprintf("anonymous:uid:%d has 2 sessions open, the limit per identity", os.Getuid())
	if _, _, err := e.trySession("", nil); err == nil || !strings.Contains(errText(err), me) {
		t.Fatalf("third local session of this user: %v, want %q", err, me)
	}
	// nobody opens a session over a raw HTTP/1.1 request of its own
	// (bash's /dev/tcp: no client binary needed).
	u, err := url.Parse(e.url)
	if err != nil {
		t.Fatal(err)
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"nobody","version":"1"}}}`
	req := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		u.Path, u.Host, len(body), body)
	cmd := exec.Command("bash", "-c", fmt.Sprintf(`exec 3<>/dev/tcp/%s/%s && printf '%%s' "$REQ" >&3 && timeout 20 cat <&3`, u.Hostname(), u.Port()))
	cmd.Env = append(os.Environ(), "REQ="+req)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("nobody's request: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "200 OK") || !strings.Contains(string(out), `"protocolVersion"`) {
		t.Fatalf("another local user was refused a session:\n%s", out)
	}
}
