package cluster

import (
	"context"
	"encoding/json"
	"runtime"
	"slices"
	"testing"
	"time"
)

// BenchmarkCall routes calls to a device owned by another replica (and,
// for comparison, one owned locally) over a single JetStream server, and
// reports the p50 and p99 of one call.
func BenchmarkCall(b *testing.B) {
	urls := startNATS(b, 1)
	inv := devices(100)
	a := join(b, urls[0], "a", testTTL, 1, inv, nil)
	o := join(b, urls[0], "b", testTTL, 1, inv, nil)
	waitOwnedBalanced(b, []*node{a, o}, inv, 20*time.Second)
	for _, tc := range []struct {
		name   string
		device string
	}{
		{"routed", o.Owned()[0]},
		{"local", a.Owned()[0]},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			args := json.RawMessage(`{"x":1}`)
			lat := make([]time.Duration, 0, b.N)
			for b.Loop() {
				start := time.Now()
				cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				if _, err := a.Call(cctx, tc.device, "show_version", args); err != nil {
					b.Fatal(err)
				}
				cancel()
				lat = append(lat, time.Since(start))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// BenchmarkClaim10000 measures one replica with the default TTL claiming
// 10,000 devices from an empty bucket until it holds every lease (the
// half-TTL wait before a session opens is not counted), and the heap
// taken, the in-process server's copy of the leases included.
func BenchmarkClaim10000(b *testing.B) {
	inv := devices(10000)
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		urls := startNATS(b, 1)
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		b.StartTimer()
		n := join(b, urls[0], "a", DefaultLeaseTTL, 1, inv, nil)
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			n.mu.Lock()
			held := len(n.mine)
			n.mu.Unlock()
			if held == len(inv) {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("%d of %d leases after 60s", held, len(inv))
			}
		}
		b.StopTimer()
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		n.Halt()
		b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(len(inv)), "heap-B/lease")
		b.StartTimer()
	}
}
