package serve

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrD2DHeld refuses a D2D report under an id that holds a different
// report.
var ErrD2DHeld = errors.New("a different report is already held under this id")

// D2DStore keeps the D2D reports a server accepted, each as it was
// signed, by id: D2DFiles (a directory) on a single controller,
// SharedD2D in a controller cluster.
type D2DStore interface {
	// Add keeps report b under id. dup is true when the very same report
	// was held already (a push retried); a different report under id is
	// refused with an error wrapping ErrD2DHeld.
	Add(id string, b []byte) (dup bool, err error)
	// Get returns report id; an error wrapping os.ErrNotExist when it is
	// not held.
	Get(id string) ([]byte, error)
	// IDs lists the ids of the reports held, sorted.
	IDs() ([]string, error)
}

// D2DFiles keeps D2D reports in a directory: one file ID.json each.
type D2DFiles struct {
	Dir string
}

// Add writes report b to ID.json, unless that file holds it already.
func (f D2DFiles) Add(id string, b []byte) (bool, error) {
	if !d2dIDRE.MatchString(id) {
		return false, fmt.Errorf("report id %q is not a valid id", id)
	}
	path := filepath.Join(f.Dir, id+".json")
	if old, err := os.ReadFile(path); err == nil {
		if !bytes.Equal(old, b) {
			return false, fmt.Errorf("%w: %s", ErrD2DHeld, id)
		}
		return true, nil
	}
	if err := os.MkdirAll(f.Dir, 0o755); err != nil {
		return false, err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return false, err
	}
	return false, os.Rename(tmp, path)
}

// Get reads ID.json.
func (f D2DFiles) Get(id string) ([]byte, error) {
	if !d2dIDRE.MatchString(id) {
		return nil, fmt.Errorf("report id %q: %w", id, os.ErrNotExist)
	}
	return os.ReadFile(filepath.Join(f.Dir, id+".json"))
}

// IDs lists the reports of the directory (none when it is missing).
func (f D2DFiles) IDs() ([]string, error) {
	ents, err := os.ReadDir(f.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return []string{}, nil
	}
	if err != nil {
		return nil, err
	}
	ids := []string{}
	for _, e := range ents {
		if id, ok := strings.CutSuffix(e.Name(), ".json"); ok && d2dIDRE.MatchString(id) && e.Type().IsRegular() {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// D2DCluster is where a controller cluster keeps the D2D reports every
// replica reads (controller/cluster.D2DReports): a report is written
// once, and a different one under its id refused.
type D2DCluster interface {
	// Add keeps b under id, as D2DStore.Add does (ErrD2DHeld included).
	Add(id string, b []byte) (dup bool, err error)
	// Get returns report id, or an error for one not held.
	Get(id string) ([]byte, error)
	IDs() ([]string, error)
}

// SharedD2D keeps each D2D report in the cluster, where every replica
// lists and reads it, and a copy in the replica's directory. The cluster
// decides: a report is held once across the replicas, and a different
// one under a held id is refused whatever replica it reaches.
type SharedD2D struct {
	local  D2DFiles
	shared D2DCluster
}

// NewSharedD2D keeps the D2D reports in c, with a copy in the directory
// dir.
func NewSharedD2D(dir string, c D2DCluster) SharedD2D {
	return SharedD2D{local: D2DFiles{Dir: dir}, shared: c}
}

// Add keeps b in the cluster, then in the directory. A report the
// cluster could not take is kept in the directory only, and the error
// says so: pushed again, it goes to the cluster then.
func (st SharedD2D) Add(id string, b []byte) (bool, error) {
	dup, err := st.shared.Add(id, b)
	switch {
	case errors.Is(err, ErrD2DHeld):
		return false, err
	case err != nil:
		if _, lerr := st.local.Add(id, b); lerr != nil {
			return false, errors.Join(err, lerr)
		}
		return false, fmt.Errorf("report %s kept by this replica only, not shared with the cluster (push it again): %w", id, err)
	}
	// The cluster holds it: the directory's is only a copy, and an older
	// file there does not refuse it.
	_, _ = st.local.Add(id, b)
	return dup, nil
}

// Get reads report id from the cluster, else from the directory (one
// kept while the cluster could not be reached).
func (st SharedD2D) Get(id string) ([]byte, error) {
	b, err := st.shared.Get(id)
	if err == nil {
		return b, nil
	}
	if lb, lerr := st.local.Get(id); lerr == nil {
		return lb, nil
	}
	return nil, fmt.Errorf("%w: %w", os.ErrNotExist, err)
}

// IDs lists the reports of the cluster and of the directory.
func (st SharedD2D) IDs() ([]string, error) {
	ids, err := st.shared.IDs()
	if err != nil {
		return nil, err
	}
	local, err := st.local.IDs()
	if err != nil {
		return nil, err
	}
	return slices.Compact(slices.Sorted(slices.Values(append(ids, local...)))), nil
}

// SetD2DStore makes st the store of the D2D reports submit_report accepts
// and the D2D resources list (default: D2DFiles in the reports
// directory's d2d folder).
func (s *Server) SetD2DStore(st D2DStore) {
	s.d2d.mu.Lock()
	s.d2d.store = st
	s.d2d.mu.Unlock()
}

// d2dStore is the store of the D2D reports.
func (s *Server) d2dStore() D2DStore {
	s.d2d.mu.Lock()
	defer s.d2d.mu.Unlock()
	if s.d2d.store != nil {
		return s.d2d.store
	}
	return D2DFiles{Dir: s.d2dDir()}
}
