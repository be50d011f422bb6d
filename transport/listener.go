package transport

import (
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"
)

// DefaultMaxConnsPerSource is the number of connections one source address
// may hold open at once on one listener, unless configured otherwise.
const DefaultMaxConnsPerSource = 64

// Accept backoff after a failed Accept, as net/http's Server.Serve does:
// it doubles from the minimum up to the maximum while Accept keeps failing.
const (
	acceptBackoffMin = 5 * time.Millisecond
	acceptBackoffMax = time.Second
)

// ListenerOptions configure GuardListener.
type ListenerOptions struct {
	// MaxConnsPerSource bounds the connections one source IP address may
	// hold open at once; further connections from it are closed as soon as
	// they are accepted. Zero means DefaultMaxConnsPerSource; negative
	// means no limit.
	MaxConnsPerSource int
	// Logger receives a warning for each failed Accept and for refused
	// connections (at most one per source per minute); nil discards them.
	Logger *slog.Logger
	// Name names the listener in logs ("http", "tls-stream").
	Name string
}

// GuardListener returns ln guarded against connection exhaustion:
//
//   - a source IP address that already holds MaxConnsPerSource open
//     connections has its next connections closed at once (they never
//     reach TLS, HTTP or MCP), so one peer cannot use up the process's
//     file descriptors;
//   - Accept never fails for a transient reason: any error but the
//     listener's own closing (too many open files, connection aborted...)
//     is logged and Accept retries after a backoff of 5 ms doubling up to
//     1 s, as net/http does, so a server never exits because its peers
//     exhausted a resource. Accept returns an error only once ln is closed.
//
// Closing a returned connection frees its slot.
func GuardListener(ln net.Listener, opts ListenerOptions) net.Listener {
	max := opts.MaxConnsPerSource
	if max == 0 {
		max = DefaultMaxConnsPerSource
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &guardListener{Listener: ln, max: max, log: log, name: opts.Name,
		open: map[string]int{}, warned: map[string]time.Time{}, sleep: time.Sleep}
}

type guardListener struct {
	net.Listener
	max  int
	log  *slog.Logger
	name string

	mu     sync.Mutex
	open   map[string]int       // open connections per source IP
	warned map[string]time.Time // last refusal logged per source IP

	sleep func(time.Duration) // time.Sleep; replaced in tests
}

// Accept implements net.Listener.
func (g *guardListener) Accept() (net.Conn, error) {
	var delay time.Duration
	for {
		c, err := g.Listener.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil, err
			}
			if delay == 0 {
				delay = acceptBackoffMin
			} else {
				delay = min(2*delay, acceptBackoffMax)
			}
			g.log.Warn("accept failed; retrying", "listener", g.name, "error", err, "retryIn", delay)
			g.sleep(delay)
			continue
		}
		delay = 0
		if g.max < 0 {
			return c, nil
		}
		src := sourceOf(c.RemoteAddr())
		if !g.take(src) {
			c.Close()
			continue
		}
		return &guardedConn{Conn: c, release: func() { g.release(src) }}, nil
	}
}

// take reserves a slot for src, or reports (and logs, once a minute per
// source) that it holds the maximum already.
func (g *guardListener) take(src string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.open[src] < g.max {
		g.open[src]++
		return true
	}
	now := time.Now()
	if last, ok := g.warned[src]; !ok || now.Sub(last) >= time.Minute {
		g.warned[src] = now
		g.log.Warn("connection refused: too many open connections from one source",
			"listener", g.name, "source", src, "limit", g.max)
	}
	return false
}

func (g *guardListener) release(src string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.open[src]--; g.open[src] <= 0 {
		delete(g.open, src)
		delete(g.warned, src)
	}
}

// sourceOf is the IP address of a peer (the whole address when it has no port).
func sourceOf(a net.Addr) string {
	if a == nil {
		return ""
	}
	if ta, ok := a.(*net.TCPAddr); ok {
		return ta.IP.String()
	}
	s := a.String()
	if host, _, err := net.SplitHostPort(s); err == nil {
		return host
	}
	return s
}

// guardedConn frees its source's slot when closed (once).
type guardedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

// Close implements net.Conn.
func (c *guardedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
