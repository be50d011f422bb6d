package controller

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Store keeps reports as JSON files (ID.json) in a directory.
type Store struct{ Dir string }

var reportIDRE = regexp.MustCompile(`^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{6}$`)

// DefaultReportsDir is $XDG_STATE_HOME/netmcp/reports, else
// ~/.local/state/netmcp/reports.
func DefaultReportsDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "netmcp", "reports")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "state", "netmcp", "reports")
	}
	return filepath.Join(os.TempDir(), "netmcp-reports")
}

// Save writes the report (replacing an earlier version of it).
func (s Store) Save(r *Report) (string, error) {
	if !reportIDRE.MatchString(r.ID) {
		return "", fmt.Errorf("report id %q: not a report id", r.ID)
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return "", err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(s.Dir, r.ID+".json")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return "", err
	}
	return path, os.Rename(tmp, path)
}

// Load reads a report by id; "last" is the newest, and a unique prefix of
// an id is enough.
func (s Store) Load(id string) (*Report, error) {
	ids, err := s.List()
	if err != nil {
		return nil, err
	}
	var match []string
	for _, x := range ids {
		if x == id {
			match = []string{x}
			break
		}
		if strings.HasPrefix(x, id) {
			match = append(match, x)
		}
	}
	if id == "last" && len(ids) > 0 {
		match = ids[len(ids)-1:]
	}
	switch {
	case len(match) == 0:
		return nil, fmt.Errorf("no report %q in %s", id, s.Dir)
	case len(match) > 1:
		return nil, fmt.Errorf("report id %q is ambiguous: %s", id, strings.Join(match, ", "))
	}
	b, err := os.ReadFile(filepath.Join(s.Dir, match[0]+".json"))
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("report %s: %w", match[0], err)
	}
	return &r, nil
}

// List returns the ids of the stored reports, oldest first.
func (s Store) List() ([]string, error) {
	ents, err := os.ReadDir(s.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range ents {
		if id, ok := strings.CutSuffix(e.Name(), ".json"); ok && reportIDRE.MatchString(id) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}
