//go:build unix

package serve

import (
	"fmt"
	"os"
	"syscall"
)

// checkOwner refuses a file or directory not owned by this process's
// user: its owner could swap what it holds (the control file, and with it
// where the lab's token is sent), as ssh refuses such a ~/.ssh.
func checkOwner(path string, st os.FileInfo) error {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := os.Getuid(); int(sys.Uid) != uid {
		return fmt.Errorf("%s is owned by uid %d, not by you (uid %d): a lab's state belongs to the user who runs it", path, sys.Uid, uid)
	}
	return nil
}
