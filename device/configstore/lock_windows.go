//go:build windows

package configstore

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockOffset is where the one locked byte lies: far beyond the
// generation counter the lock file holds. Windows' byte-range locks are
// mandatory (a locked range cannot be read through another handle), so a
// lock over the counter would hide it from the processes reading it
// without the lock. Locking beyond the end of a file is allowed.
const lockOffset = 1 << 30

// tryLockFile takes an exclusive lock (LockFileEx) on f without waiting,
// or returns errLocked if another handle, in this process or another,
// holds it. Closing the handle, or the process's end, releases it, though
// Windows may take a while to do so: unlockFile releases it at once.
func tryLockFile(f *os.File) error {
	ol := windows.Overlapped{Offset: lockOffset}
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return errLocked
	}
	return err
}

// unlockFile releases the lock tryLockFile took on f.
func unlockFile(f *os.File) error {
	ol := windows.Overlapped{Offset: lockOffset}
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}

// lockFile takes an exclusive lock (LockFileEx) on f, waiting for it.
func lockFile(f *os.File) error {
	ol := windows.Overlapped{Offset: lockOffset}
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol)
}
