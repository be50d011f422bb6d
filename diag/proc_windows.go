//go:build windows

package diag

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup makes cmd start in a console process group of its own
// (CREATE_NEW_PROCESS_GROUP), so that the console's Ctrl+C reaches netmcp,
// which ends the command through its context, and not the command
// directly; and its cancellation terminate the process. Windows has no
// signal for a process group: a child the command started itself would
// outlive it. The commands run here are started directly, never through
// a shell, and the diagnostic tools start none.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
	cmd.Cancel = func() error { return cmd.Process.Kill() }
}
