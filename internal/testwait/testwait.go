// Package testwait lets tests wait for a condition with a deadline scaled to
// the machine, instead of sleeping for a fixed time.
//
// A test that sleeps "long enough" passes on a quiet machine and fails on a
// busy one; a test that polls a condition with a generous deadline passes on
// both, and returns as soon as the condition holds. The deadlines a test
// names are for a quiet machine; Timeout stretches them by Scale: the load
// average per CPU, or NETMCP_TEST_SCALE when that is larger (scripts/test.sh
// --busy sets it, as the load average lags a load that has just begun). A
// deadline bounds how long a failing test looks; it is never a speed
// assertion.
package testwait

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Env names the environment variable that sets the least scale factor (a
// number, at least 1).
const Env = "NETMCP_TEST_SCALE"

// maxScale bounds the factor read from the load: beyond it a test that has
// not seen its condition is failing, not slow.
const maxScale = 10

// loadavg is the file the load average is read from (Linux).
var loadavg = "/proc/loadavg"

// Scale returns the factor deadlines are stretched by: the one-minute load
// average per CPU (within 1 and 10), or NETMCP_TEST_SCALE when that is
// larger.
func Scale() float64 {
	scale := loadScale()
	if s := os.Getenv(Env); s != "" {
		if f, err := strconv.ParseFloat(s, 64); err == nil && f > scale {
			scale = f
		}
	}
	return scale
}

// loadScale is the one-minute load average per CPU, within [1, maxScale].
func loadScale() float64 {
	b, err := os.ReadFile(loadavg)
	if err != nil {
		return 1
	}
	first, _, _ := strings.Cut(string(b), " ")
	load, err := strconv.ParseFloat(first, 64)
	if err != nil {
		return 1
	}
	return min(max(load/float64(runtime.NumCPU()), 1), maxScale)
}

// Timeout returns d stretched by Scale.
func Timeout(d time.Duration) time.Duration {
	return time.Duration(float64(d) * Scale())
}

// Polling intervals: the first check is repeated quickly, later ones less
// often, so a condition that holds soon is seen soon and a slow one is not
// polled hard.
const (
	firstPoll = 10 * time.Millisecond
	maxPoll   = 250 * time.Millisecond
)

// For calls cond until it returns true or Timeout(d) has passed, and
// reports whether it returned true.
func For(d time.Duration, cond func() bool) bool {
	return poll(time.Now().Add(Timeout(d)), cond)
}

// poll calls cond until it returns true or deadline passes.
func poll(deadline time.Time, cond func() bool) bool {
	for wait := firstPoll; ; wait = min(2*wait, maxPoll) {
		if cond() {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		time.Sleep(min(wait, left))
	}
}

// Until calls cond until it reports true, or fails t with what, the
// deadline and cond's last message when Timeout(d) passes first. It
// returns how long the condition took to hold.
func Until(t testing.TB, d time.Duration, what string, cond func() (bool, string)) time.Duration {
	t.Helper()
	start, limit := time.Now(), Timeout(d)
	var msg string
	if poll(start.Add(limit), func() (ok bool) { ok, msg = cond(); return ok }) {
		return time.Since(start)
	}
	t.Fatalf("%s: not within %s (%s scaled to the machine): %s", what, limit.Round(time.Millisecond), d, msg)
	return limit
}
