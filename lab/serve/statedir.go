package serve

import (
	"fmt"
	"os"
	"path/filepath"
)

// StateDir returns a lab's state directory, which holds its control file
// and inventory: dir when given, else $XDG_STATE_HOME/netmcp/lab
// (~/.local/state/netmcp/lab). It is created private (0700); an existing
// one that others can write to is refused.
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
	// Others who could write there could swap the control file for one
	// that sends the token elsewhere.
	if st.Mode().Perm()&0o022 != 0 {
		return "", fmt.Errorf("lab state directory %s is writable by other users (mode %v): chmod go-w it", dir, st.Mode().Perm())
	}
	return dir, nil
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
