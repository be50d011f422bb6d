package flock

import (
	"errors"
	"path/filepath"
	"testing"
)

// TestLock checks one holder at a time, even within one process, and that
// Unlock lets the next take it.
func TestLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	a, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TryLock(path); !errors.Is(err, ErrHeld) {
		t.Fatalf("TryLock while held: %v; want ErrHeld", err)
	}
	done := make(chan *File)
	go func() {
		b, err := Lock(path)
		if err != nil {
			t.Error(err)
		}
		done <- b
	}()
	if err := a.Unlock(); err != nil {
		t.Fatal(err)
	}
	b := <-done
	if _, err := TryLock(path); !errors.Is(err, ErrHeld) {
		t.Fatalf("TryLock while the waiter holds it: %v", err)
	}
	b.Unlock()
	c, err := TryLock(path)
	if err != nil {
		t.Fatalf("TryLock when free: %v", err)
	}
	c.Unlock()
}
