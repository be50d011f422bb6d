//go:build unix

package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStateDirPrivate: a lab state directory, or its control file, that
// another user owns or that others can write to is refused, by StateDir
// (lab up, lab fault) and by Dial; before, one owned by another user was
// accepted and its owner could swap control.json.
func TestStateDirPrivate(t *testing.T) {
	mine := t.TempDir()
	if _, err := StateDir(mine); err != nil {
		t.Fatalf("a private directory of the caller's: %v", err)
	}
	writable := filepath.Join(t.TempDir(), "lab")
	if err := os.Mkdir(writable, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(writable, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := StateDir(writable); err == nil || !strings.Contains(err.Error(), "writable by other users") {
		t.Fatalf("a world-writable directory: %v", err)
	}

	// A control file that others can write is refused by Dial.
	ctl := filepath.Join(mine, ControlFile)
	if err := os.WriteFile(ctl, []byte(`{"address":"127.0.0.1:1","token":"t"}`), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(ctl, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := Dial(mine); err == nil || !strings.Contains(err.Error(), "writable by other users") {
		t.Fatalf("a world-writable control file: %v", err)
	}
	if err := os.Chmod(ctl, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Dial(mine); err != nil {
		t.Fatalf("the caller's own control file: %v", err)
	}

	if os.Getuid() != 0 {
		t.Skip("the other-owner case needs root, to give a directory to another user")
	}
	theirs := filepath.Join(t.TempDir(), "lab")
	if err := os.Mkdir(theirs, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(theirs, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := StateDir(theirs); err == nil || !strings.Contains(err.Error(), "not by you") {
		t.Fatalf("a directory owned by nobody: %v", err)
	}
	if err := os.Chown(ctl, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := Dial(mine); err == nil || !strings.Contains(err.Error(), "not by you") {
		t.Fatalf("a control file owned by nobody: %v", err)
	}
}
