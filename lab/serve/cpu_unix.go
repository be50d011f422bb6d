//go:build unix

package serve

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) this process has used;
// 0 where it cannot tell.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
