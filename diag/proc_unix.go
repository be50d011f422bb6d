//go:build unix

package diag

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup makes cmd start in a process group of its own (its pid
// is the group's id), away from the terminal's, and its cancellation kill
// the whole group with SIGKILL, so that a child the command started dies
// with it.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
