package sign

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/netmcp/netmcp/internal/atomicfile"
)

// NonceBlock is how many nonces a NonceStore reserves with one durable
// write: the file holds the end of the reserved block, so a restart
// continues above every nonce handed out before, at the cost of skipping
// the unused rest of the block.
const NonceBlock = 1024

// NonceStore hands out strictly increasing nonces that survive a restart.
// The persisted value is a high-water mark written atomically and durably
// (internal/atomicfile) before any nonce under it is returned. A NonceStore
// with an empty path keeps its nonces in memory only (tests).
type NonceStore struct {
	mu   sync.Mutex
	path string
	next uint64 // the next nonce to hand out
	high uint64 // nonces below high are reserved on disk
}

// OpenNonceStore opens (or creates) the nonce file at path. Nonces start
// above the value the file holds.
func OpenNonceStore(path string) (*NonceStore, error) {
	s := &NonceStore{path: path, next: 1, high: 1}
	if path == "" {
		s.high = ^uint64(0)
		return s, nil
	}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("sign: nonce file: %w", err)
	default:
		v, perr := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		if perr != nil {
			return nil, fmt.Errorf("sign: nonce file %s holds %q, not a number: refusing to guess (a reused nonce would let results be replayed)", path, strings.TrimSpace(string(b)))
		}
		s.next, s.high = v, v
	}
	return s, nil
}

// Next returns the next nonce, reserving a new block on disk first when
// the current one is used up.
func (s *NonceStore) Next() (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next >= s.high {
		high := s.next + NonceBlock
		if high < s.next {
			return 0, errors.New("sign: nonce space exhausted")
		}
		if err := atomicfile.WriteFile(s.path, []byte(strconv.FormatUint(high, 10)+"\n"), 0o600); err != nil {
			return 0, fmt.Errorf("sign: persisting nonce: %w", err)
		}
		s.high = high
	}
	n := s.next
	s.next++
	return n, nil
}
