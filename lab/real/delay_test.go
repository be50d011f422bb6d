//go:build linux

package real

import (
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pingAvg matches ping's summary ("rtt min/avg/max/mdev = 0.1/0.2/...").
var pingAvg = regexp.MustCompile(`= [\d.]+/([\d.]+)/`)

// TestRealLabLatency builds the default topology (as root), delays the
// r2-r3 link with link_high_latency and measures the round trip of pings
// from r2 to r3 across it: about twice the delay both ways, about once
// with direction=in; the routing protocols stay up; clearing (and
// closing the lab) leaves no nftables table, NFQUEUE socket or goroutine.
func TestRealLabLatency(t *testing.T) {
	ctx, l, exec := upFaultLab(t, "d", 2*time.Minute)
	// rtt is the mean round trip, in ms, of 5 pings from r2 to r3.
	rtt := func() (float64, string) {
		s := exec("r2", "ping", "-n", "-q", "-c", "5", "-i", "0.2", "-W", "2", "10.0.23.2")
		m := pingAvg.FindStringSubmatch(s)
		if m == nil {
			return -1, s
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v, s
	}
	tables := func() string {
		return exec("r2", "nft", "list", "tables") + exec("r3", "nft", "list", "tables")
	}
	base, s := rtt()
	if base < 0 || base > 20 {
		t.Fatalf("round trip before the fault: %v ms: %s", base, s)
	}
	// Refused like the other link faults, before anything is built.
	for _, bad := range []string{
		"link_high_latency r2:GigabitEthernet0/0/0/1 delay-ms=0",
		"link_high_latency r2:GigabitEthernet0/0/0/1 delay-ms=fast",
		"link_high_latency r2:GigabitEthernet0/0/0/1 delay-ms=100 jitter-ms=101",
		"link_high_latency r2:GigabitEthernet0/0/0/1 direction=sideways",
		"link_high_latency r2:Loopback0",
		"link_high_latency r9:GigabitEthernet0/0/0/1",
	} {
		if err := l.InjectFault(ctx, parseFault(t, bad)); err == nil {
			t.Errorf("%s: injected, want an error", bad)
		} else if !strings.Contains(err.Error(), "link_high_latency") {
			t.Errorf("%s: error %q does not name the fault", bad, err)
		}
	}
	if s := tables(); strings.Contains(s, "link_high_latency") {
		t.Fatalf("a refused fault left a table: %s", s)
	}
	goroutines := runtime.NumGoroutine()
	fds := openFDs(t)
	full, err := l.OSPFFull(ctx, "r3")
	if err != nil || full == 0 {
		t.Fatalf("r3's OSPF neighbours before the fault: %d, %v", full, err)
	}

	for _, tc := range []struct {
		fault    string
		lo, hi   float64 // the round trip's band, ms
		nTables  int
		checkOSP bool
	}{
		{"link_high_latency r2:GigabitEthernet0/0/0/1 delay-ms=100", 190, 300, 2, true},
		{"link_high_latency r3:GigabitEthernet0/0/0 delay-ms=150 direction=in", 140, 230, 1, false},
	} {
		f := parseFault(t, tc.fault)
		if err := l.InjectFault(ctx, f); err != nil {
			t.Fatalf("%s: %v", tc.fault, err)
		}
		got, s := rtt()
		t.Logf("%s: round trip %.1f ms (%.1f ms before)", tc.fault, got, base)
		if got < tc.lo || got > tc.hi {
			t.Errorf("%s: round trip %.1f ms, want %v..%v ms: %s", tc.fault, got, tc.lo, tc.hi, s)
		}
		if s := tables(); strings.Count(s, "netmcp_link_high_latency_") != tc.nTables {
			t.Errorf("%s: want %d tables: %s", tc.fault, tc.nTables, s)
		}
		if tc.checkOSP {
			// OSPF hellos and BGP keepalives are delayed, not lost.
			n, err := l.OSPFFull(ctx, "r3")
			st, berr := l.BGPStates(ctx, "r3")
			if err != nil || n != full || berr != nil {
				t.Errorf("%s: r3's OSPF neighbours %d (want %d), %v; BGP %v, %v", tc.fault, n, full, err, st, berr)
			}
			for p, v := range st {
				if v != "Established" {
					t.Errorf("%s: r3's BGP session with %s is %s", tc.fault, p, v)
				}
			}
		}
		if err := l.ClearFault(ctx, f); err != nil {
			t.Fatalf("clearing %s: %v", tc.fault, err)
		}
		if got, s := rtt(); got < 0 || got > 20 {
			t.Errorf("%s cleared: round trip %.1f ms: %s", tc.fault, got, s)
		}
		if s := tables(); strings.Contains(s, "link_high_latency") {
			t.Errorf("%s cleared: a table is left: %s", tc.fault, s)
		}
		waitFor(t, 5*time.Second, tc.fault+" cleared: goroutines and sockets", func() (bool, string) {
			g, n := runtime.NumGoroutine(), openFDs(t)
			return g <= goroutines && n <= fds, fmt.Sprintf("%d goroutines (%d before), %d open files (%d before)", g, goroutines, n, fds)
		})
	}
	if err := l.ClearFault(ctx, parseFault(t, "link_high_latency r2:GigabitEthernet0/0/0/1")); err == nil {
		t.Error("clearing a delay that is not on: no error")
	}

	// A consumer that dies cuts the link (no bypass: the kernel drops
	// what it queues for no one), and clearing reports it and restores
	// the link.
	f := parseFault(t, "link_high_latency r2:GigabitEthernet0/0/0/1 delay-ms=50")
	if err := l.InjectFault(ctx, f); err != nil {
		t.Fatal(err)
	}
	l.mu.Lock()
	d := l.delays["r2:GigabitEthernet0/0/0/1"]
	l.mu.Unlock()
	if d == nil {
		t.Fatalf("no delayer for what r2 sends: %v", l.delays)
	}
	d.nf.Con.Close() // the consumer dies: its socket is gone
	if got, s := rtt(); got >= 0 || !strings.Contains(s, " 0 received") {
		t.Errorf("dead consumer: the pings still pass (%.1f ms): %s", got, s)
	}
	if err := l.ClearFault(ctx, f); err == nil || !strings.Contains(err.Error(), "NFQUEUE") {
		t.Errorf("clearing after the consumer died: %v, want its error", err)
	}
	if got, s := rtt(); got < 0 || got > 20 {
		t.Errorf("dead consumer cleared: round trip %.1f ms: %s", got, s)
	}
	if s := tables(); strings.Contains(s, "link_high_latency") {
		t.Errorf("dead consumer cleared: a table is left: %s", s)
	}

	// Closing the lab stops the delayers too.
	if err := l.InjectFault(ctx, parseFault(t, "link_high_latency r2:GigabitEthernet0/0/0/1")); err != nil {
		t.Fatal(err)
	}
	if got, s := rtt(); got < 380 {
		t.Errorf("default delay: round trip %.1f ms, want about 400: %s", got, s)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l.mu.Lock()
	left := len(l.delays)
	l.mu.Unlock()
	if left != 0 {
		t.Errorf("closed lab: %d delayers left", left)
	}
	waitFor(t, 5*time.Second, "closed lab: goroutines and sockets", func() (bool, string) {
		g, n := runtime.NumGoroutine(), openFDs(t)
		return g <= goroutines && n <= fds, fmt.Sprintf("%d goroutines (%d with the lab up), %d open files (%d with the lab up)", g, goroutines, n, fds)
	})
}

// openFDs counts this process's open files (sockets included).
func openFDs(t *testing.T) int {
	t.Helper()
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(es)
}
