//go:build unix

package diag

import (
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestCommandOwnGroup checks ownProcessGroup on Unix: the command leads a
// process group of its own, and ending ctx ends it at once.
func TestCommandOwnGroup(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("needs sleep")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := Command(ctx, []string{"sleep", "30"})
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid, err := syscall.Getpgid(cmd.Process.Pid)
	if err != nil || pgid != cmd.Process.Pid {
		t.Errorf("process group %d, %v; want its own, %d", pgid, err, cmd.Process.Pid)
	}
	if pgid == syscall.Getpgrp() {
		t.Errorf("the command shares the test's process group %d", pgid)
	}
	start := time.Now()
	cancel()
	err = cmd.Wait()
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Wait returned %s after cancel", d)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("Wait: %v, state %v; want killed by SIGKILL", err, cmd.ProcessState)
	}
}
