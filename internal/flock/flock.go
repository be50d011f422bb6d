// Package flock takes advisory exclusive locks on files: between
// processes, and between goroutines of one process (each lock opens the
// file anew). A lock ends with Unlock or with its process.
package flock

import (
	"errors"
	"os"
)

// File is a held lock.
type File struct{ f *os.File }

// ErrHeld is what TryLock reports when another holder has the lock.
var ErrHeld = errors.New("flock: held by another")

// Lock creates path if needed and takes its lock, waiting for it.
func Lock(path string) (*File, error) { return take(path, true) }

// TryLock takes the lock of path (creating it if needed) without waiting,
// or reports ErrHeld.
func TryLock(path string) (*File, error) { return take(path, false) }

// LockOpen takes the lock of an open file f, waiting for it. The lock
// belongs to this open file: UnlockOpen, closing f, or the process's end
// releases it. On Windows the locked byte lies far beyond any content,
// since locks there are mandatory: the file stays readable by others.
func LockOpen(f *os.File) error { return lock(f, true) }

// TryLockOpen takes the lock of an open file f without waiting, or
// reports ErrHeld.
func TryLockOpen(f *os.File) error { return lock(f, false) }

// UnlockOpen releases the lock LockOpen or TryLockOpen took on f.
func UnlockOpen(f *os.File) error { return unlock(f) }

func take(path string, wait bool) (*File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := lock(f, wait); err != nil {
		f.Close()
		return nil, err
	}
	return &File{f: f}, nil
}

// Unlock releases the lock.
func (l *File) Unlock() error {
	if l == nil {
		return nil
	}
	return errors.Join(unlock(l.f), l.f.Close())
}
