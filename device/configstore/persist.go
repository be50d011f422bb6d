package configstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/netmcp/netmcp/internal/atomicfile"
)

const (
	stateFile   = "state.json"
	baseFile    = "base.json"
	startupFile = "startup.json"
	historyDir  = "history"
	lockName    = "lock"
	tmpPrefix   = atomicfile.TempPrefix
)

// writeFileAtomic replaces dir/name with data (see atomicfile.WriteFile).
func writeFileAtomic(dir, name string, data []byte) error {
	if err := atomicfile.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
		return fmt.Errorf("configstore: %w", err)
	}
	return nil
}

// writeJSONAtomic marshals v as indented JSON and writes it atomically.
func writeJSONAtomic(dir, name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("configstore: encode %s: %w", name, err)
	}
	return writeFileAtomic(dir, name, append(data, '\n'))
}

// syncDir fsyncs a directory so that renames and removals in it are durable.
func syncDir(dir string) error {
	if err := atomicfile.SyncDir(dir); err != nil {
		return fmt.Errorf("configstore: %w", err)
	}
	return nil
}

// readJSON decodes dir/name into v. It reports os.ErrNotExist (wrapped) when
// the file is absent and a clear error when it is corrupt.
func readJSON(dir, name string, v any) error {
	path := filepath.Join(dir, name)
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("configstore: %s is corrupt: %w", path, err)
	}
	return nil
}

// removeTemps deletes leftover temporary files of interrupted writes.
func removeTemps(dir string) error {
	return removeFiles(dir, func(name string) bool { return atomicfile.IsTemp(name) })
}

// removeFiles deletes the files of dir whose names doomed selects and, if
// it removed any, syncs dir so that the removals are durable.
func removeFiles(dir string, doomed func(name string) bool) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("configstore: %w", err)
	}
	removed := false
	for _, e := range entries {
		if !doomed(e.Name()) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("configstore: %w", err)
		}
		removed = true
	}
	if removed {
		return syncDir(dir)
	}
	return nil
}

// errLocked is what tryLockFile returns when another open file (in this
// process or another) holds the lock.
var errLocked = errors.New("locked by another open file")
