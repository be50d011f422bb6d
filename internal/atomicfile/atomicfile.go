// Package atomicfile replaces files so that a crash at any moment leaves
// either the old content or the new one, never a mix, and a finished
// replacement survives power loss.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// TempPrefix starts the names of the temporary files WriteFile creates next
// to their target; a directory's leftovers after a crash can be found by it.
const TempPrefix = ".tmp-"

// WriteFile replaces path with data and mode perm: a temporary file in the
// same directory is written, fsynced, renamed over path, and the directory
// is fsynced so that the rename is durable.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, TempPrefix+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Chmod(perm); err != nil {
		return fail(err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("rename %s: %w", path, err)
	}
	return SyncDir(dir)
}

// SyncDir makes the renames and removals in a directory durable: it
// fsyncs the directory (syncDir). On Windows, where a directory cannot be
// flushed (FlushFileBuffers refuses its handle), it does nothing: NTFS
// journals the rename, so a crash still leaves the old file or the new
// one, though a rename just made may be lost with the power.
func SyncDir(dir string) error { return syncDir(dir) }

// IsTemp reports whether a file name is one of WriteFile's temporary files.
func IsTemp(name string) bool { return strings.HasPrefix(name, TempPrefix) }
