package serve

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"testing"
	"time"

	"github.com/netmcp/netmcp/internal/proccpu"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
)

// BenchmarkLabUp starts `lab up`'s whole lab (model, drivers, one MCP
// server over HTTP per router) for chains and grids of 50, 200 and 1,024
// routers, and reports the time to ready and the memory per router: the
// process's RSS and the live Go heap after a collection. Run it alone
// (-run '^$' -bench LabUp -benchtime 1x): RSS is the whole test process's.
func BenchmarkLabUp(b *testing.B) {
	for _, tc := range []struct {
		name string
		topo func() (topology.Topology, error)
	}{
		{"chain50", func() (topology.Topology, error) { return sim.ChainTopology(50) }},
		{"chain200", func() (topology.Topology, error) { return sim.ChainTopology(200) }},
		{"grid10x20", func() (topology.Topology, error) { return sim.GridTopology(10, 20) }},
		{"grid32x32", func() (topology.Topology, error) { return sim.GridTopology(32, 32) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			topo, err := tc.topo()
			if err != nil {
				b.Fatal(err)
			}
			logger := slog.New(slog.NewTextHandler(io.Discard, nil))
			var f labFigures
			for i := 0; i < b.N; i++ {
				runtime.GC()
				start, cpu := time.Now(), proccpu.Used()
				l, err := Up(context.Background(), Options{Topology: topo, Logger: logger})
				if err != nil {
					b.Fatal(err)
				}
				f = measureLab(len(l.Routers()), time.Since(start), proccpu.Used()-cpu)
				if err := l.Close(); err != nil {
					b.Fatal(err)
				}
			}
			n := float64(f.routers)
			b.ReportMetric(f.ready.Seconds(), "s/ready")
			b.ReportMetric(f.cpu.Seconds(), "s-CPU/ready")
			b.ReportMetric(float64(f.rss)/(1<<20)/n, "MB-RSS/router")
			b.ReportMetric(float64(f.heap)/(1<<20)/n, "MB-heap/router")
			b.Log(fmt.Sprint(f))
		})
	}
}
