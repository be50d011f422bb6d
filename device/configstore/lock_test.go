package configstore

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestTryLockFile checks the per-OS lock that run liveness builds on: one
// holder at a time among open files of the same path, even within one
// process; released by unlockFile and by closing the holder's file.
func TestTryLockFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), lockName)
	open := func() *os.File {
		t.Helper()
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	a, b := open(), open()
	steps := []struct {
		name string
		do   func() error
		want error
	}{
		{"a locks", func() error { return tryLockFile(a) }, nil},
		{"b finds it locked", func() error { return tryLockFile(b) }, errLocked},
		{"a unlocks", func() error { return unlockFile(a) }, nil},
		{"b locks", func() error { return tryLockFile(b) }, nil},
		{"a finds it locked", func() error { return tryLockFile(a) }, errLocked},
		{"b closes its file", b.Close, nil},
		{"a locks again", func() error { return tryLockFile(a) }, nil},
	}
	for _, s := range steps {
		if err := s.do(); !errors.Is(err, s.want) {
			t.Fatalf("%s: %v; want %v", s.name, err, s.want)
		}
	}
}
