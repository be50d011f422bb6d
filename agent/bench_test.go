package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/sim"
)

// BenchmarkAsk is the time from an intent injected on r1 to a report whose
// every signature is verified, on the 3-router lab and on a 20-router
// chain (the path crosses every router). Each run pings 10 probes at the
// smallest interval diag allows (200 ms), so about 2 s of it is probing.
func BenchmarkAsk(b *testing.B) {
	for _, n := range []int{3, 20} {
		b.Run(fmt.Sprintf("routers=%d", n), func(b *testing.B) {
			o := domainOpts{}
			intent := pathIntent
			if n != 3 {
				topo, err := sim.ChainTopology(n)
				if err != nil {
					b.Fatal(err)
				}
				o.topo = &topo
				var via []string
				for i := 2; i < n; i++ {
					via = append(via, fmt.Sprintf("r%d", i))
				}
				intent = fmt.Sprintf("verify packet loss on the path from r1 to r%d via %s", n, strings.Join(via, ", "))
			}
			d := newDomain(b, o)
			var evidence int
			b.ResetTimer()
			for b.Loop() {
				start := time.Now()
				rep, err := d.agents["r1"].Ask(context.Background(), intent)
				if err != nil {
					b.Fatal(err)
				}
				verifyReport(b, d, rep)
				if len(rep.Findings) != 0 {
					b.Fatalf("findings on a healthy lab: %+v", rep.Findings)
				}
				evidence = len(rep.Evidence)
				b.Logf("intent to verified report: %s, %d signed results", time.Since(start).Round(time.Millisecond), evidence)
			}
			b.ReportMetric(float64(evidence), "results/op")
		})
	}
}
