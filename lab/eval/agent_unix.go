//go:build unix

package eval

import (
	"os/exec"
	"syscall"
)

// ownGroup runs the agent in a process group of its own, and makes the
// cancellation kill the whole group: what the agent started goes with it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
