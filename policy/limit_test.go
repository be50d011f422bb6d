package policy

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/netmcp/netmcp/netproto"
)

func TestRateLimiter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := NewRateLimiter(1, 2)
	l.now = func() time.Time { return now }
	steps := []struct {
		who     string
		advance time.Duration
		ok      bool
		retry   string
	}{
		{"alice", 0, true, ""},
		{"alice", 0, true, ""},
		{"alice", 0, false, "retry in 1s"},
		{"bob", 0, true, ""}, // buckets are per identity
		{"alice", 500 * time.Millisecond, false, "retry in 500ms"},
		{"alice", 500 * time.Millisecond, true, ""},
		{"alice", 0, false, "retry in 1s"},
	}
	for i, s := range steps {
		now = now.Add(s.advance)
		err := l.Allow(s.who)
		if s.ok {
			if err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
			continue
		}
		var ne *netproto.Error
		if !errors.As(err, &ne) || ne.Code != netproto.CodeAccessDenied || !ne.RetryPossible ||
			!strings.Contains(ne.Detail, "rate limit exceeded for "+s.who+": 1 calls/s, burst 2; "+s.retry) {
			t.Fatalf("step %d: %v", i, err)
		}
	}
}

func TestSessionLimiter(t *testing.T) {
	l := NewSessionLimiter(2)
	r1, err1 := l.Acquire("s1")
	r2, err2 := l.Acquire("s1")
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	_, err := l.Acquire("s1")
	var ne *netproto.Error
	if !errors.As(err, &ne) || ne.Code != netproto.CodeAccessDenied || !ne.RetryPossible ||
		ne.Detail != "session s1 already has 2 calls in progress (limit 2 per session); retry when one ends" {
		t.Fatalf("third call: %v", err)
	}
	if _, err := l.Acquire("s2"); err != nil {
		t.Fatalf("other session: %v", err)
	}
	r1()
	r1() // releasing twice counts once
	if l.Active("s1") != 1 {
		t.Fatalf("active %d", l.Active("s1"))
	}
	r3, err := l.Acquire("s1")
	if err != nil {
		t.Fatal(err)
	}
	r2()
	r3()
	if l.Active("s1") != 0 {
		t.Fatalf("active %d", l.Active("s1"))
	}
	// Concurrent use never admits more than the limit.
	var mu sync.Mutex
	max, cur := 0, 0
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rel, err := l.Acquire("s3")
			if err != nil {
				return
			}
			mu.Lock()
			cur++
			if cur > max {
				max = cur
			}
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
			cur--
			mu.Unlock()
			rel()
		}()
	}
	wg.Wait()
	if max > 2 || max == 0 {
		t.Fatalf("max concurrent %d", max)
	}
}
