package configstore

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestTryLockFile checks the per-OS lock that lockDir builds on: one
// holder at a time among open files of the same path, even within one
// process; released by unlockFile and by closing the holder's file.
func TestTryLockFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), lockFile)
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

// TestLockDir checks that a second lock of a state directory names the
// holder's pid, readable while the lock is held, and that Close lets the
// directory be locked again.
func TestLockDir(t *testing.T) {
	dir := t.TempDir()
	l, err := lockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = lockDir(dir)
	want := "is in use by process " + strconv.Itoa(os.Getpid())
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("second lockDir: %v; want %q", err, want)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l, err = lockDir(dir)
	if err != nil {
		t.Fatalf("lockDir after Close: %v", err)
	}
	l.Close()
}
