package configstore

import (
	"errors"
	"os"

	"github.com/netmcp/netmcp/internal/flock"
)

// tryLockFile takes an exclusive lock on f without waiting, or returns
// errLocked if another open file (in this process or another) holds it.
// The lock belongs to the open file: closing it, or the process's end,
// releases it; unlockFile releases it at once.
func tryLockFile(f *os.File) error {
	if err := flock.TryLockOpen(f); !errors.Is(err, flock.ErrHeld) {
		return err
	}
	return errLocked
}

// unlockFile releases the lock tryLockFile or lockFile took on f.
func unlockFile(f *os.File) error { return flock.UnlockOpen(f) }

// lockFile takes an exclusive lock on f, waiting for it. The lock file
// also holds the generation counter that readers load without the lock:
// flock's Windows lock lies beyond it, so the counter stays readable.
func lockFile(f *os.File) error { return flock.LockOpen(f) }
