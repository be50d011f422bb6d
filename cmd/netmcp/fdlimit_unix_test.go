//go:build unix

package main

import "syscall"

// fdLimit is this process's limit of open files (soft; Go raises it to
// the hard limit at start), or a large number when unknown.
func fdLimit() uint64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 1 << 32
	}
	return uint64(rl.Cur)
}
