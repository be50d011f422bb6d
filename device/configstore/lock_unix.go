//go:build unix

package configstore

import (
	"errors"
	"os"
	"syscall"
)

// tryLockFile takes an exclusive flock(2) on f without waiting, or
// returns errLocked if another open file holds it. The lock belongs to
// the open file: closing it, or the process's end, releases it.
func tryLockFile(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLocked
	}
	return err
}

// unlockFile releases the lock tryLockFile took on f.
func unlockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}

// lockFile takes an exclusive flock(2) on f, waiting for it.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
