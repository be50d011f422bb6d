package benchkit

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		lat      []time.Duration
		errors   int
		want     Stats
		wantRate float64
	}{
		{name: "none", errors: 2, want: Stats{Errors: 2}},
		{name: "one", lat: ms(4), want: Stats{Calls: 1, P50: 4 * time.Millisecond, P99: 4 * time.Millisecond, Elapsed: 4 * time.Millisecond}, wantRate: 250},
		{name: "unsorted", lat: ms(3, 1, 2, 4), errors: 1,
			want: Stats{Calls: 4, Errors: 1, P50: 3 * time.Millisecond, P99: 4 * time.Millisecond, Elapsed: 10 * time.Millisecond}, wantRate: 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Summarize(tc.lat, tc.errors)
			rate := got.CallsPerSec
			got.CallsPerSec = 0
			if got != tc.want || rate < tc.wantRate-1e-9 || rate > tc.wantRate+1e-9 {
				t.Errorf("Summarize = %+v, %g calls/s; want %+v, %g", got, rate, tc.want, tc.wantRate)
			}
		})
	}
	// p99 of 100 calls is the 100th smallest, not out of range.
	lat := make([]time.Duration, 100)
	for i := range lat {
		lat[i] = time.Duration(i+1) * time.Microsecond
	}
	if s := Summarize(lat, 0); s.P50 != 51*time.Microsecond || s.P99 != 100*time.Microsecond {
		t.Errorf("100 calls: p50 %s p99 %s", s.P50, s.P99)
	}
}

func TestRSS(t *testing.T) {
	n, err := RSS(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if n < 1<<20 {
		t.Errorf("RSS of this test process %d bytes, want at least 1 MiB", n)
	}
	if _, err := RSS(-1); err == nil || !strings.Contains(err.Error(), "RSS") {
		t.Errorf("RSS(-1): %v, want an error", err)
	}
}

// TestStartErrors: a server that exits without answering, or prints no
// address, is reported with what it printed.
func TestStartErrors(t *testing.T) {
	if _, err := StartStdio(Options{Argv: []string{"true"}}); err == nil || !strings.Contains(err.Error(), "initialize") {
		t.Errorf("StartStdio(true): %v", err)
	}
	if _, err := StartHTTP(Options{Argv: []string{"sh", "-c", "echo no address here >&2"}}); err == nil ||
		!strings.Contains(err.Error(), "no address here") {
		t.Errorf("StartHTTP: %v", err)
	}
	if _, err := StartStdio(Options{}); err == nil {
		t.Error("StartStdio with no program: no error")
	}
	if _, err := StartStdio(Options{Argv: []string{"true"}, Protocol: PerRequestVersion}); err == nil || !strings.Contains(err.Error(), "HTTP only") {
		t.Errorf("StartStdio on %s: %v, want an error saying it is HTTP only", PerRequestVersion, err)
	}
}
