//go:build linux

package controller_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/lab/serve"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
)

// BenchmarkGridSweep asks "what is wrong with the network?" of a 32x32
// grid (1,024 routers of `netmcp lab up --grid 32x32`, each its own MCP
// server over HTTP in this process), healthy and with two faults at once
// (a core router's link shut down and an ICMP ACL on another router). It
// reports the time of the ask and the CPU the process used meanwhile (a
// figure a busy machine changes less than the time), the MCP calls made,
// the routers whose RIB was read, and the memory: the process's resident
// set before the ask (the lab and the sessions), its peak during the ask
// and the peak of the Go heap in use. Run it alone, one iteration:
// go test -run '^$' -bench GridSweep -benchtime 1x -timeout 3h
// ./controller (NETMCP_GRID=ROWSxCOLS for another size).
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
		{"link_down+icmp_acl", []string{"link_down " + core + ":GigabitEthernet0/0/0/2", "icmp_acl_block " + other + ":GigabitEthernet0/0/0/1"},
			[]string{"link_down", "icmp_acl_block"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			topo, err := sim.GridTopology(rows, cols)
			if err != nil {
				b.Fatal(err)
			}
			logger := slog.New(slog.NewTextHandler(io.Discard, nil))
			l, err := serve.Up(context.Background(), serve.Options{Topology: topo, Logger: logger})
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
			_ = fleet.Connect(ctx)
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
				cpu0 := processCPU()
				rep, err = ctl.Ask(ctx, in)
				cpu = processCPU() - cpu0
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

// sampleHeap records the largest live Go heap seen until stop is called.
func sampleHeap(peak *uint64) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		for !done.Load() {
			runtime.ReadMemStats(&ms)
			*peak = max(*peak, ms.HeapInuse)
			time.Sleep(100 * time.Millisecond)
		}
	})
	return func() { done.Store(true); wg.Wait() }
}

// processCPU is the CPU time the process has used (user and system).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
