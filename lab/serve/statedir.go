package serve

import (
	"fmt"
	"os"
	"path/filepath"
)

// StateDir returns a lab's state directory, which holds its control file
// and inventory: dir when given, else $XDG_STATE_HOME/netmcp/lab
// (~/.local/state/netmcp/lab). It is created private (0700); an existing
// one that another user owns or can write to is refused.
func StateDir(dir string) (string, error) {
	if dir == "" {
		d, err := defaultStateDir()
		if err != nil {
			return "", err
		}
		dir = d
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	st, err := os.Stat(dir)
	if err != nil {
		return "", err
	}
	if err := checkPrivate(dir, st); err != nil {
		return "", err
	}
	return dir, nil
}

// checkPrivate refuses a lab's state directory or control file that
// another user owns or can write to: either could swap the control file
// for one that sends the token elsewhere.
func checkPrivate(path string, st os.FileInfo) error {
	if err := checkOwner(path, st); err != nil {
		return err
	}
	if st.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by other users (mode %v): chmod go-w it", path, st.Mode().Perm())
	}
	return nil
}

// defaultStateDir is $XDG_STATE_HOME/netmcp/lab, or
// ~/.local/state/netmcp/lab when XDG_STATE_HOME is unset or relative.
func defaultStateDir() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no --state-dir and no home directory for the default one: %w", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "netmcp", "lab"), nil
}
