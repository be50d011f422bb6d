package cluster

import (
	"context"
	"encoding/json"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/lab/labtest"
	"github.com/netmcp/netmcp/netproto"
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

// BenchmarkFleetCall reads a simulated router's hostname with
// network.yang.get through a replica's client.Fleet: over the replica's
// own MCP session (local) and forwarded to the replica holding the
// device (routed), and reports the p50 and p99 of one call.
func BenchmarkFleetCall(b *testing.B) {
	url := startNATS(b, 1)[0]
	l := labtest.New(b, labtest.Options{})
	a, o := joinFleet(b, url, "a", l), joinFleet(b, url, "b", l)
	var local, routed string
	for deadline := time.Now().Add(testwait.Timeout(60 * time.Second)); local == "" || routed == ""; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Skip("hashing gave one replica every device of the lab: nothing to compare")
		}
		for _, d := range a.fleet.Devices() {
			switch {
			case a.Serves(d.Name()):
				local = d.Name()
			case o.Serves(d.Name()):
				routed = d.Name()
			}
		}
	}
	args := map[string]any{"path": "/openconfig-system:system/config/hostname"}
	for _, tc := range []struct{ name, device string }{{"local", local}, {"routed", routed}} {
		b.Run(tc.name, func(b *testing.B) {
			d := a.fleet.Device(tc.device)
			lat := make([]time.Duration, 0, b.N)
			for b.Loop() {
				start := time.Now()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				if _, err := d.CallTool(ctx, netproto.ToolYangGet, args); err != nil {
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
