package diag

import (
	"errors"
	"fmt"
	"sync"
)

// ErrBusy is wrapped by the error returned when a concurrency limit is full.
var ErrBusy = errors.New("diag: too many diagnostics running")

// Limiter bounds how many diagnostics run at once, overall and per caller
// key (e.g. the MCP session). It never queues: a full limit is an error.
type Limiter struct {
	mu      sync.Mutex
	total   int
	perKey  map[string]int
	maxAll  int
	maxEach int
}

// NewLimiter returns a limiter allowing maxAll runs in total and maxEach
// per key.
func NewLimiter(maxAll, maxEach int) *Limiter {
	return &Limiter{perKey: map[string]int{}, maxAll: maxAll, maxEach: maxEach}
}

// Acquire takes a slot for key; call the returned release when done.
func (l *Limiter) Acquire(key string) (release func(), err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.total >= l.maxAll {
		return nil, fmt.Errorf("%w: %d running, the overall limit", ErrBusy, l.total)
	}
	if l.perKey[key] >= l.maxEach {
		return nil, fmt.Errorf("%w: %d running for caller %q, the per-caller limit", ErrBusy, l.perKey[key], key)
	}
	l.total++
	l.perKey[key]++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.total--
			if l.perKey[key]--; l.perKey[key] <= 0 {
				delete(l.perKey, key)
			}
		})
	}, nil
}

// Default limits of a diagnostics limiter: DefaultMax runs at once in
// total, DefaultPerCaller per caller (an MCP server's default for its
// diagnostic tools as well).
const (
	DefaultMax       = 8
	DefaultPerCaller = 2
)

// DefaultLimiter is used by Run when RunOptions.Limiter is nil:
// DefaultMax runs in total, DefaultPerCaller per caller.
var DefaultLimiter = NewLimiter(DefaultMax, DefaultPerCaller)
