package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/netmcp/netmcp/internal/atomicfile"
)

// records keeps JSON records of type T by key: one file KEY.json each in
// dir (mode 0600, written atomically, so another server process with the
// same state directory reads them), or in memory when dir is "" (a server
// without a state directory). Keys are file names the caller made safe,
// digests. Every record handed out is the caller's own copy.
type records[T any] struct {
	dir   string
	what  string      // names a record in errors: "handle record"
	clone func(*T) *T // a copy of a record that shares nothing with it

	mu  sync.Mutex
	mem map[string]*T
}

func newRecords[T any](dir, what string, clone func(*T) *T) *records[T] {
	return &records[T]{dir: dir, what: what, clone: clone, mem: map[string]*T{}}
}

func (rs *records[T]) path(key string) string { return filepath.Join(rs.dir, key+".json") }

// load returns the record of key, or nil when there is none.
func (rs *records[T]) load(key string) (*T, error) {
	if rs.dir == "" {
		rs.mu.Lock()
		defer rs.mu.Unlock()
		if v := rs.mem[key]; v != nil {
			return rs.clone(v), nil
		}
		return nil, nil
	}
	b, err := os.ReadFile(rs.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	v := new(T)
	if err := json.Unmarshal(b, v); err != nil {
		return nil, fmt.Errorf("%s %s: %w", rs.what, key, err)
	}
	return v, nil
}

// save writes the record of key.
func (rs *records[T]) save(key string, v *T) error {
	if rs.dir == "" {
		rs.mu.Lock()
		rs.mem[key] = rs.clone(v)
		rs.mu.Unlock()
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(rs.dir, 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(rs.path(key), b, 0o600)
}

// remove forgets the record of key.
func (rs *records[T]) remove(key string) {
	if rs.dir == "" {
		rs.mu.Lock()
		delete(rs.mem, key)
		rs.mu.Unlock()
		return
	}
	_ = os.Remove(rs.path(key))
}

// keys returns the keys of the records, sorted.
func (rs *records[T]) keys() []string {
	if rs.dir == "" {
		rs.mu.Lock()
		defer rs.mu.Unlock()
		keys := make([]string, 0, len(rs.mem))
		for k := range rs.mem {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return keys
	}
	ents, err := os.ReadDir(rs.dir)
	if err != nil {
		return nil
	}
	var keys []string
	for _, e := range ents {
		if key, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			keys = append(keys, key)
		}
	}
	return keys
}
