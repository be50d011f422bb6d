package device

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
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

// Open opens the device named by rawURL, e.g. "sim://r1". Errors show
// the URL without its user part (a password or an SNMP community may be
// written there by mistake).
func Open(ctx context.Context, rawURL string, opts Options) (Driver, error) {
	shown := redactRaw(rawURL)
	u, err := url.Parse(rawURL)
	if err != nil {
		// url.Error quotes the URL, and its reason may quote a piece of a
		// user part it misread as a host or a port: with a user part,
		// neither is shown.
		if shown != rawURL {
			return nil, fmt.Errorf("device URL %q does not parse as a URL", shown)
		}
		return nil, fmt.Errorf("device URL %q: %w", rawURL, err)
	}
	if u.Scheme == "" {
		return nil, fmt.Errorf("device URL %q has no scheme (want one of %v)", shown, Schemes())
	}
	mu.RLock()
	open, ok := openers[u.Scheme]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("device URL %q: unknown scheme %q (want one of %v)", shown, u.Scheme, Schemes())
	}
	return open(ctx, u, opts)
}

// redactRaw returns the text of a device URL, which may not parse, as it
// may be shown: everything from the scheme's "://" (or the start, without
// one) to the last "@" is replaced by "xxxxx", so that no user, password
// or SNMP community shows, even one holding "/" or "?".
func redactRaw(raw string) string {
	start := 0
	if i := strings.Index(raw, "://"); i >= 0 {
		start = i + 3
	}
	at := strings.LastIndex(raw, "@")
	if at < start {
		return raw
	}
	return raw[:start] + "xxxxx" + raw[at:]
}
