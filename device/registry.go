package device

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"sync"
)

// ErrNotFound is returned by Get when a well-formed path holds no data.
var ErrNotFound = errors.New("no data at path")

// Options are given to a driver when it is opened.
type Options struct {
	// StateDir is where the driver keeps state that must survive a crash
	// (commit history, pending confirmed commits). Empty: in memory only.
	StateDir string
	// Params holds driver-specific settings (e.g. "topology" for sim).
	Params map[string]string
}

// OpenFunc opens a driver for a parsed device URL.
type OpenFunc func(ctx context.Context, u *url.URL, opts Options) (Driver, error)

var (
	mu      sync.RWMutex
	openers = map[string]OpenFunc{}
)

// Register makes a driver available under a URL scheme ("sim", "linux",
// "netconf", "ssh"). It panics if the scheme is registered twice, as
// database/sql does, because that is a programming error.
func Register(scheme string, open OpenFunc) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := openers[scheme]; dup {
		panic("device: Register called twice for scheme " + scheme)
	}
	openers[scheme] = open
}

// Schemes lists the registered URL schemes, sorted.
func Schemes() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(openers))
	for s := range openers {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// Open opens the device named by rawURL, e.g. "sim://r1".
func Open(ctx context.Context, rawURL string, opts Options) (Driver, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("device URL %q: %w", rawURL, err)
	}
	if u.Scheme == "" {
		return nil, fmt.Errorf("device URL %q has no scheme (want one of %v)", rawURL, Schemes())
	}
	mu.RLock()
	open, ok := openers[u.Scheme]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("device URL %q: unknown scheme %q (want one of %v)", rawURL, u.Scheme, Schemes())
	}
	return open(ctx, u, opts)
}
