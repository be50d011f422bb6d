package diag

import (
	"context"
	"os/exec"
	"time"
)

// Command returns the command that runs argv (program first) the way
// every diagnostic and read-only host command is run: directly, never
// through a shell, with a fixed PATH and the C locale (stable output for
// the parsers), in a process group of its own that is killed as a whole
// when ctx ends (ownProcessGroup: on Windows, the process itself),
// waiting at most a second for its output after that.
func Command(ctx context.Context, argv []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C"}
	ownProcessGroup(cmd)
	cmd.WaitDelay = time.Second
	return cmd
}
