//go:build unix

package configstore

import (
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// mapGen maps the generation counter of the lock file f (at least 8 bytes
// long) read-only, so that a read of it is a load from memory, not a
// system call: the page is the page cache's, which pwrite updates.
func mapGen(f *os.File) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, 8, syscall.PROT_READ, syscall.MAP_SHARED)
}

// unmapGen releases what mapGen mapped.
func unmapGen(b []byte) error { return syscall.Munmap(b) }

// loadGen reads the mapped counter (little-endian, as setGen writes it;
// every Unix Go runs on here is little-endian but s390x and ppc64).
func loadGen(b []byte) (uint64, bool) {
	if !littleEndian {
		return 0, false
	}
	return atomic.LoadUint64((*uint64)(unsafe.Pointer(&b[0]))), true
}

var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()
