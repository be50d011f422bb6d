package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	for _, content := range []string{"first", "second, longer than the first"} {
		if err := WriteFile(path, []byte(content), 0o640); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Fatalf("read %q, %v; want %q", got, err, content)
		}
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v, %v", fi.Mode(), err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if IsTemp(e.Name()) {
			t.Fatalf("temporary file %s left behind", e.Name())
		}
	}
	// A failed write leaves the old content and no temporary file.
	if err := WriteFile(filepath.Join(dir, "missing", "x"), []byte("y"), 0o600); err == nil {
		t.Fatal("write into a missing directory succeeded")
	}
	if got, _ := os.ReadFile(path); string(got) != "second, longer than the first" {
		t.Fatalf("old content changed: %q", got)
	}
}
