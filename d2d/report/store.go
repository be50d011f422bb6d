package report

import (
	"sort"
	"strings"
	"sync"
)

// Store keeps an agent's reports until the controller syncs them.
type Store struct {
	mu   sync.Mutex
	byID map[string]Report
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{byID: map[string]Report{}} }

// Put stores r.
func (s *Store) Put(r Report) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byID[r.ID] = r
}

// Get returns the report of id, or of its URI.
func (s *Store) Get(idOrURI string) (Report, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.byID[strings.TrimPrefix(idOrURI, URIPrefix)]
	if !ok {
		return Report{}, ErrNotFound
	}
	return r, nil
}

// List returns every report, oldest first.
func (s *Store) List() []Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Report, 0, len(s.byID))
	for _, r := range s.byID {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Created < out[j].Created || out[i].Created == out[j].Created && out[i].ID < out[j].ID
	})
	return out
}
