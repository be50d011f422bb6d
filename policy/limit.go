package policy

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/netmcp/netmcp/netproto"
	"golang.org/x/time/rate"
)

// RateLimiter is a token bucket per identity. It is safe for concurrent use.
type RateLimiter struct {
	limit rate.Limit
	burst int
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
	calls   int
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

// idleBucket is how long an unused bucket is kept.
const idleBucket = 10 * time.Minute

// NewRateLimiter allows perSecond calls per identity on average, with
// bursts of burst calls.
func NewRateLimiter(perSecond float64, burst int) *RateLimiter {
	return &RateLimiter{limit: rate.Limit(perSecond), burst: burst, now: time.Now, buckets: map[string]*bucket{}}
}

// Allow takes one call from who's bucket, or returns a retryable
// *netproto.Error -32083 saying when to retry.
func (l *RateLimiter) Allow(who string) error {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.calls++; l.calls%1024 == 0 {
		for k, b := range l.buckets {
			if now.Sub(b.seen) > idleBucket {
				delete(l.buckets, k)
			}
		}
	}
	b := l.buckets[who]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(l.limit, l.burst)}
		l.buckets[who] = b
	}
	b.seen = now
	r := b.lim.ReserveN(now, 1)
	if !r.OK() {
		return netproto.Errorf(netproto.CodeAccessDenied, "rate limit for %s: burst of %d is zero", who, l.burst)
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return netproto.Errorf(netproto.CodeAccessDenied,
			"rate limit exceeded for %s: %g calls/s, burst %d; retry in %s", who, float64(l.limit), l.burst,
			time.Duration(math.Ceil(float64(d)/float64(time.Millisecond)))*time.Millisecond).Retryable()
	}
	return nil
}

// SessionLimiter bounds the calls in progress per session. It is safe for
// concurrent use.
type SessionLimiter struct {
	max int

	mu     sync.Mutex
	active map[string]int
}

// NewSessionLimiter allows max concurrent calls per session (max > 0).
func NewSessionLimiter(max int) *SessionLimiter {
	return &SessionLimiter{max: max, active: map[string]int{}}
}

// Acquire admits one call of session, returning the function that ends
// it, or a retryable *netproto.Error -32083 when the session is at its limit.
func (l *SessionLimiter) Acquire(session string) (release func(), err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.active[session] >= l.max {
		return nil, netproto.Errorf(netproto.CodeAccessDenied,
			"session %s already has %d calls in progress (limit %d per session); retry when one ends", session, l.active[session], l.max).Retryable()
	}
	l.active[session]++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.active[session]--; l.active[session] <= 0 {
				delete(l.active, session)
			}
		})
	}, nil
}

// Active returns the calls in progress for session.
func (l *SessionLimiter) Active(session string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.active[session]
}

// String describes the limiter.
func (l *SessionLimiter) String() string {
	return fmt.Sprintf("%d concurrent calls per session", l.max)
}
