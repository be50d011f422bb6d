//go:build linux

package sshcli_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/netmcp/netmcp/netproto"
)

// TestFRRReconnect kills the SSH connection's server process between
// commands and in the middle of a session: the next read logs in again.
func TestFRRReconnect(t *testing.T) {
	l := newFRRLab(t)
	drv := openFRR(t, l)
	ctx := context.Background()
	if _, err := drv.Exec(ctx, "show version"); err != nil {
		t.Fatal(err)
	}
	kids := l.sshdChildren(t)
	if len(kids) == 0 {
		t.Fatal("no sshd connection process")
	}
	for _, pid := range kids {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	// Reap nothing here: sshd -D reaps its own children.
	out, err := drv.Exec(ctx, "show interface json")
	if err != nil || !strings.Contains(out, "eth0") {
		t.Fatalf("Exec after the connection dropped: %q, %v", out, err)
	}
	if n := drv.Logins(); n != 2 {
		t.Errorf("logins = %d, want 2 (one reconnect)", n)
	}

	// sshd stalled: a clear, retryable error within the caller's deadline;
	// resumed: works again.: a clear, retryable Unreachable; back: works.
	l.sshd.Process.Signal(syscall.SIGSTOP)
	for _, pid := range l.sshdChildren(t) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	short, cancel := context.WithTimeout(ctx, 3*time.Second)
	_, err = drv.Exec(short, "show version")
	cancel()
	if err == nil {
		t.Fatal("Exec succeeded with sshd stopped")
	}
	l.sshd.Process.Signal(syscall.SIGCONT)
	if _, err := drv.Exec(ctx, "show version"); err != nil && code(err) == netproto.CodeUnreachable {
		drv.Exec(ctx, "show version") // the stalled login may still have been in sshd's queue
	}
	if _, err := drv.Exec(ctx, "show version"); err != nil {
		t.Fatalf("Exec after sshd came back: %v", err)
	}
}
