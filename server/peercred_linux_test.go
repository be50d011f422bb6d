//go:build linux

package server_test

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/netmcp/netmcp/server"
)

// TestSessionBoundPerLocalUser: callers on loopback with no credential
// are told apart by their user (peer credentials), so one local process
// holding every session of the per-identity bound no longer locks out
// another local user; before, they all shared the anonymous identity.
func TestSessionBoundPerLocalUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root, to call as another user")
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
