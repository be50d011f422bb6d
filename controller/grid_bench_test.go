//go:build linux

package controller_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/internal/proccpu"
	"github.com/netmcp/netmcp/lab/serve"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
)

// BenchmarkGridSweep asks "what is wrong with the network?" of a 32x32
// grid (1,024 routers of `netmcp lab up --grid 32x32`, each its own MCP
// server over HTTP in this process), healthy, with a core router's link
// shut down, and with two faults at once (that link and an ICMP ACL on
// another router). It reports the time of the ask and the CPU the process
// used meanwhile (a figure a busy machine changes less than the time),
// the MCP calls made, the routers whose RIB was read, and the memory: the
// process's resident set before the ask (the lab and the sessions), its
// peak during the ask and the peak of the Go heap in use. Run it alone,
// one iteration: go test -run '^$' -bench GridSweep -benchtime 1x
// -timeout 3h ./controller (NETMCP_GRID=ROWSxCOLS for another size;
// NETMCP_GRID_CPUPROF=FILE profiles the ask's CPU, the lab's and the
// controller's told apart, NETMCP_GRID_HEAPPROF=FILE the heap at its peak).
func BenchmarkGridSweep(b *testing.B) {
	grid := os.Getenv("NETMCP_GRID")
	if grid == "" {
		grid = "32x32"
	}
	rows, cols, err := sim.ParseGrid(grid)
	if err != nil {
		b.Fatal(err)
	}
	// A router in the middle of the grid and one on the way to it: their
	// ports are numbered as sim.GridTopology makes them (up, left, right,
	// down for an inner router).
	mid := (rows/2)*cols + cols/2
	core := "r" + strconv.Itoa(mid)
	other := "r" + strconv.Itoa(max(1, mid-cols-3))
	for _, tc := range []struct {
		name   string
		faults []string
		want   []string // the cause names that must be found
	}{
		{"healthy", nil, nil},
		{"link_down", []string{"link_down " + core + ":GigabitEthernet0/0/0/2"}, []string{"link_down"}},
		{"link_down+icmp_acl", []string{"link_down " + core + ":GigabitEthernet0/0/0/2", "icmp_acl_block " + other + ":GigabitEthernet0/0/0/1"},
			[]string{"link_down", "icmp_acl_block"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			topo, err := sim.GridTopology(rows, cols)
			if err != nil {
				b.Fatal(err)
			}
			logger := slog.New(slog.NewTextHandler(io.Discard, nil))
			// The lab's goroutines (its servers and what they start)
			// carry the label side=lab, the controller's side=controller,
			// so that a CPU profile tells the two apart.
			var l *serve.Lab
			pprof.Do(context.Background(), pprof.Labels("side", "lab"), func(ctx context.Context) {
				l, err = serve.Up(ctx, serve.Options{Topology: topo, Logger: logger})
			})
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			for _, w := range tc.faults {
				f, err := topology.ParseFault(w)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := l.Inject(f); err != nil {
					b.Fatal(err)
				}
			}
			fleet, err := client.New(l.Inventory(), client.Options{Name: "bench", CallTimeout: 10 * time.Minute, ConnectTimeout: time.Minute})
			if err != nil {
				b.Fatal(err)
			}
			defer fleet.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			defer cancel()
			// The ask is measured, not the connections: every session is
			// up before it starts (a first attempt that timed out on a
			// busy machine is retried by the fleet).
			pprof.Do(ctx, pprof.Labels("side", "controller"), func(ctx context.Context) { _ = fleet.Connect(ctx) })
			for d := range slices.Values(fleet.Devices()) {
				for st, _ := d.State(); st != client.StateConnected; st, _ = d.State() {
					if ctx.Err() != nil {
						b.Fatalf("%s never connected", d.Name())
					}
					time.Sleep(100 * time.Millisecond)
				}
			}
			ctl := &controller.Controller{Fleet: fleet, Hosts: controller.HostsOf(topo)}
			in, err := controller.ParseIntent("what is wrong with the network?")
			if err != nil {
				b.Fatal(err)
			}
			var rep *controller.Report
			var peakHeap uint64
			var rss, rssBefore uint64
			var cpu time.Duration
			for b.Loop() {
				runtime.GC()
				resetPeakRSS()
				rssBefore = peakRSS()
				stop := sampleHeap(&peakHeap)
				cpu0 := proccpu.Used()
				stopProf := profileCPU(b)
				pprof.Do(ctx, pprof.Labels("side", "controller"), func(ctx context.Context) { rep, err = ctl.Ask(ctx, in) })
				stopProf()
				cpu = proccpu.Used() - cpu0
				stop()
				rss = peakRSS()
				if err != nil {
					b.Fatal(err)
				}
			}
			ribs := 0
			for _, c := range rep.Calls {
				if c.Tool == "network.yang.get" && c.Args["path"] == "/ietf-routing:routing" {
					ribs++
				}
			}
			var names []string
			for _, c := range rep.RootCauses {
				names = append(names, c.Name+"@"+strings.Join(c.Devices, ","))
			}
			found := 1.0
			for _, w := range tc.want {
				if !slices.ContainsFunc(rep.RootCauses, func(c controller.Cause) bool { return c.Name == w }) {
					found = 0
				}
			}
			if len(tc.want) == 0 && len(rep.RootCauses) > 0 {
				found = 0
			}
			b.ReportMetric(rep.ElapsedMS/1000, "s/ask")
			b.ReportMetric(cpu.Seconds(), "s-CPU/ask")
			b.ReportMetric(float64(len(rep.Calls)), "calls/ask")
			b.ReportMetric(float64(ribs), "RIB-reads/ask")
			b.ReportMetric(float64(rssBefore)/(1<<20), "MB-RSS-before")
			b.ReportMetric(float64(rss)/(1<<20), "MB-peak-RSS")
			b.ReportMetric(float64(peakHeap)/(1<<20), "MB-peak-heap")
			b.ReportMetric(found, "found")
			b.Logf("%s: %.1f s (CPU %.1f s, the lab's included), %d calls (%d RIB reads), RSS %.0f MB before the ask (the lab, the sessions), peak RSS %.0f MB, peak heap %.0f MB; causes %v", grid, rep.ElapsedMS/1000,
				cpu.Seconds(), len(rep.Calls), ribs, float64(rssBefore)/(1<<20), float64(rss)/(1<<20), float64(peakHeap)/(1<<20), names)
		})
	}
}

// profileCPU starts a CPU profile of the ask when NETMCP_GRID_CPUPROF
// names a file (the case's name is added to it): its samples are labelled
// side=lab or side=controller (go tool pprof -tagfocus side=lab), the
// collector's are not.
func profileCPU(b *testing.B) (stop func()) {
	name := os.Getenv("NETMCP_GRID_CPUPROF")
	if name == "" {
		return func() {}
	}
	f, err := os.Create(name + "." + strings.ReplaceAll(b.Name(), "/", "_"))
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() { pprof.StopCPUProfile(); _ = f.Close() }
}

// sampleHeap records the largest live Go heap seen until stop is called.
// With NETMCP_GRID_HEAPPROF set to a file name, it writes there the heap
// profile of the moment the heap in use was largest (taken when it grew
// by a tenth over the largest before), to see what holds the peak.
func sampleHeap(peak *uint64) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	prof := os.Getenv("NETMCP_GRID_HEAPPROF")
	wg.Go(func() {
		var ms runtime.MemStats
		var written uint64
		for !done.Load() {
			runtime.ReadMemStats(&ms)
			*peak = max(*peak, ms.HeapInuse)
			if prof != "" && ms.HeapInuse > written+written/10 {
				written = ms.HeapInuse
				if f, err := os.Create(prof); err == nil {
					_ = pprof.Lookup("heap").WriteTo(f, 0)
					_ = f.Close()
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	return func() { done.Store(true); wg.Wait() }
}

// resetPeakRSS starts the process's peak resident set (VmHWM) again from
// its current one (Linux; elsewhere nothing).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS is the process's peak resident set (VmHWM) in bytes; 0 where
// /proc does not tell it.
func peakRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			if f := strings.Fields(v); len(f) == 2 {
				kb, _ := strconv.ParseUint(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}
