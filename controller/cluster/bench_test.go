package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/netmcp/netmcp/internal/proccpu"
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

// BenchmarkRenew10000 holds 10,000 leases with the default TTL on one
// replica or three (stub sessions) and measures a steady state of two
// TTLs once every lease is held: the lease writes per second, the CPU this
// process spent (the replicas and the in-process NATS servers together)
// per 1,000 writes, the fewest leases held at any moment of the window and
// the leases dropped since the start (a lapse shows in both). servers=3
// runs the buckets replicated over a 3-server cluster.
func BenchmarkRenew10000(b *testing.B) {
	inv := devices(10000)
	for _, tc := range []struct{ servers, replicas int }{{1, 1}, {3, 1}, {1, 3}, {3, 3}} {
		b.Run(fmt.Sprintf("servers=%d/replicas=%d", tc.servers, tc.replicas), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				urls := startNATS(b, tc.servers)
				var nodes []*node
				for i := range tc.replicas {
					nodes = append(nodes, join(b, urls[i%len(urls)], fmt.Sprintf("r%d", i), DefaultLeaseTTL, tc.servers, inv, nil))
				}
				held := func() int {
					n := 0
					for _, r := range nodes {
						n += heldLeases(r)
					}
					return n
				}
				for deadline := time.Now().Add(testwait.Timeout(2 * time.Minute)); held() != len(inv); time.Sleep(5 * time.Millisecond) {
					if time.Now().After(deadline) {
						b.Fatalf("%d of %d leases held after 2 minutes", held(), len(inv))
					}
				}
				js, err := jetstream.New(nodes[0].nc)
				if err != nil {
					b.Fatal(err)
				}
				seq := func() uint64 {
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					defer cancel()
					s, err := js.Stream(ctx, "KV_"+DefaultPrefix+"-leases")
					if err != nil {
						b.Fatal(err)
					}
					return s.CachedInfo().State.LastSeq
				}
				window := 2 * DefaultLeaseTTL
				b.StartTimer()
				seq0, cpu0, t0 := seq(), proccpu.Used(), time.Now()
				fewest := len(inv)
				for time.Since(t0) < window {
					fewest = min(fewest, held())
					time.Sleep(10 * time.Millisecond)
				}
				writes, cpu, took := seq()-seq0, proccpu.Used()-cpu0, time.Since(t0)
				b.StopTimer()
				var lapses int64
				for _, r := range nodes {
					lapses += r.lapses.Load()
					r.Halt()
				}
				b.ReportMetric(float64(writes)/took.Seconds(), "writes/s")
				b.ReportMetric(float64(cpu.Milliseconds())*1000/float64(writes), "cpu-ms/1000-writes")
				b.ReportMetric(float64(cpu)/float64(took), "cores")
				b.ReportMetric(float64(fewest), "fewest-held")
				b.ReportMetric(float64(lapses), "lapses")
				b.StartTimer()
			}
		})
	}
}

// heldLeases is the number of leases n holds.
func heldLeases(n *node) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.mine)
}

// BenchmarkLeaseWrite compares the two ways a lease can expire in a
// JetStream key-value bucket, without a replica: one writer rewrites
// 10,000 keys of a memory bucket by compare-and-set, asynchronously, with
// a per-message TTL (Nats-TTL, what the replicas do) or under the
// bucket's MaxAge, on one server. It reports the CPU this process (client
// and in-process server) spent per 1,000 writes.
func BenchmarkLeaseWrite(b *testing.B) {
	const keys = 10000
	for _, mode := range []string{"msg-ttl", "max-age"} {
		b.Run(mode, func(b *testing.B) {
			nc := connect(b, startNATS(b, 1)[0])
			js, err := jetstream.New(nc)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			cfg := jetstream.KeyValueConfig{Bucket: "bench", History: 1, Storage: jetstream.MemoryStorage,
				LimitMarkerTTL: DefaultLeaseTTL}
			var opts []jetstream.PublishOpt
			if mode == "max-age" {
				cfg.TTL = DefaultLeaseTTL
			} else {
				opts = append(opts, jetstream.WithMsgTTL(DefaultLeaseTTL))
			}
			kv, err := js.CreateKeyValue(ctx, cfg)
			if err != nil {
				b.Fatal(err)
			}
			rev := make([]uint64, keys)
			write := func(n int) {
				futures := make([]jetstream.PubAckFuture, 0, 1000)
				for i := 0; i < n; {
					futures = futures[:0]
					for ; i < n && len(futures) < cap(futures); i++ {
						k := i % keys
						f, err := js.PublishMsgAsync(&nats.Msg{Subject: "$KV." + kv.Bucket() + "." + fmt.Sprintf("k%05d", k), Data: []byte("owner")},
							append(opts, jetstream.WithExpectLastSequencePerSubject(rev[k]))...)
						if err != nil {
							b.Fatal(err)
						}
						futures = append(futures, f)
					}
					for j, f := range futures {
						select {
						case a := <-f.Ok():
							rev[(i-len(futures)+j)%keys] = a.Sequence
						case err := <-f.Err():
							b.Fatal(err)
						}
					}
				}
			}
			write(keys) // every key exists
			cpu0 := proccpu.Used()
			b.ResetTimer()
			write(b.N)
			b.StopTimer()
			b.ReportMetric(float64((proccpu.Used()-cpu0).Milliseconds())*1000/float64(b.N), "cpu-ms/1000-writes")
		})
	}
}
