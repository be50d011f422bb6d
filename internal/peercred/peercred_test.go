//go:build linux

package peercred

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/netmcp/netmcp/internal/testwait"
)

// accept returns the server end of the next connection to ln.
func accept(t *testing.T, ln net.Listener) net.Conn {
	t.Helper()
	_ = ln.(*net.TCPListener).SetDeadline(time.Now().Add(testwait.Timeout(20 * time.Second)))
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestUID(t *testing.T) {
	for _, network := range []string{"tcp4", "tcp6"} {
		t.Run(network, func(t *testing.T) {
			addr := "127.0.0.1:0"
			if network == "tcp6" {
				addr = "[::1]:0"
			}
			ln, err := net.Listen(network, addr)
			if err != nil {
				t.Skipf("no %s loopback: %v", network, err)
			}
			defer ln.Close()
			cli, err := net.Dial(network, ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer cli.Close()
			ctx := WithConn(context.Background(), accept(t, ln))
			uid, ok := UID(ctx)
			if !ok || uid != uint32(os.Getuid()) {
				t.Fatalf("UID = %d, %v; want this process's %d", uid, ok, os.Getuid())
			}
		})
	}
}

// TestUIDOtherUser: a connection made by a process of another user is
// attributed to that user. Needs root to start the process as nobody.
func TestUIDOtherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a client as another user")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	// bash's /dev/tcp connects with no other tool; the client holds the
	// connection open until the test ends it.
	cmd := exec.Command("bash", "-c", fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d; read -t 30 <&3", port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	ctx := WithConn(context.Background(), accept(t, ln))
	if uid, ok := UID(ctx); !ok || uid != 65534 {
		t.Fatalf("UID = %d, %v; want 65534 (nobody)", uid, ok)
	}
}

// TestUIDNotLoopback: no answer without a connection, or for a peer that
// is not on loopback (a pipe has no TCP addresses).
func TestUIDNotLoopback(t *testing.T) {
	if _, ok := UID(context.Background()); ok {
		t.Fatal("UID answered for a context with no connection")
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if _, ok := UID(WithConn(context.Background(), a)); ok {
		t.Fatal("UID answered for a connection that is not TCP on loopback")
	}
}
