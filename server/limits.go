package server

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/policy"
)

// Default limits of `netmcp serve` (flags may change them).
const (
	// DefaultRatePerSecond is the sustained calls per second per identity.
	DefaultRatePerSecond = 50
	// DefaultRateBurst is the burst of calls per identity.
	DefaultRateBurst = 100
	// DefaultMaxConcurrentPerSession is the calls in progress per session.
	DefaultMaxConcurrentPerSession = 8
)

// unlimited are the methods no limit applies to: liveness checks, which a
// client must always be able to send. initialize is rate-limited like any
// call (each one creates a session); the number of sessions is bounded by
// Options.MaxSessions and MaxSessionsPerIdentity.
var unlimited = map[string]bool{"ping": true}

// admit applies the rate limit of id and the concurrency limit of the
// session to one request, and returns the function that ends it. Both
// refusals are retryable -32083 errors saying the limit and when to retry.
func (sec *Security) admit(method string, ss *mcp.ServerSession, id policy.Identity) (release func(), err error) {
	if unlimited[method] {
		return func() {}, nil
	}
	if l := sec.opts.RateLimiter; l != nil {
		if err := l.Allow(id.String()); err != nil {
			return nil, err
		}
	}
	if l := sec.opts.SessionLimiter; l != nil && ss != nil {
		return l.Acquire(sec.s.owner(ss).Session)
	}
	return func() {}, nil
}
