//go:build !unix

package serve

import "time"

// processCPU returns the CPU time this process has used; 0: unknown here.
func processCPU() time.Duration { return 0 }
