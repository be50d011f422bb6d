// Package proccpu reads the CPU time the current process has used, for
// benchmarks and progress lines that report CPU beside wall time.
package proccpu

import "time"

// Used returns the CPU time (user and system) this process has used so
// far; 0 where the platform cannot tell.
func Used() time.Duration { return used() }
