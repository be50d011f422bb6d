//go:build linux

package real

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
)

// ospfChain is sim.ChainTopology(n) with OSPF area 0 on every router:
// point-to-point transit links, the loopbacks passive.
func ospfChain(tb testing.TB, n int) topology.Topology {
	topo, err := sim.ChainTopology(n)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range topo.Devices {
		d := &topo.Devices[i]
		d.OSPF = &topology.OSPF{}
		for j := range d.Interfaces {
			it := &d.Interfaces[j]
			o := &topology.InterfaceOSPF{Area: "0.0.0.0", NetworkType: topology.OSPFPointToPoint}
			if it.Type == "softwareLoopback" {
				o = &topology.InterfaceOSPF{Area: "0.0.0.0", Passive: true}
			}
			it.OSPF = o
		}
	}
	return topo
}

// BenchmarkRealLabUp builds the real lab (as root) and reports the time
// to converge and the daemons' memory: the default lab (3 routers, 2
// hosts, OSPF and BGP) and a chain of 20 routers in OSPF.
//
//	go test -run '^$' -bench RealLabUp -benchtime 1x ./lab/real/
func BenchmarkRealLabUp(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("skipped: the real lab needs root")
	}
	if err := checkTools(); err != nil {
		b.Skipf("skipped: %v", err)
	}
	for _, tc := range []struct {
		name string
		topo topology.Topology
	}{
		{"default-3", sim.DefaultTopology()},
		{"chain-20", ospfChain(b, 20)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				l, err := Up(ctx, tc.topo, Options{Prefix: testPrefix(fmt.Sprintf("b%d", i)), ConvergeTimeout: 2 * time.Minute})
				if err != nil {
					cancel()
					b.Fatal(err)
				}
				u, err := l.Usage()
				if err != nil {
					b.Error(err)
				}
				b.ReportMetric(l.Converged.Seconds(), "s-converge")
				b.ReportMetric(float64(u.PSSKB)/1024, "MB-PSS")
				b.ReportMetric(float64(u.RSSKB)/1024, "MB-RSS")
				b.Logf("%s: %d routers converged in %.2f s; %s", tc.name, len(l.Routers()), l.Converged.Seconds(), u)
				for _, p := range l.Phases {
					b.Logf("  %-32s %6.2f s", p.Name, p.Took.Seconds())
				}
				start := time.Now()
				if err := l.Close(); err != nil {
					b.Error(err)
				}
				b.Logf("%s: torn down in %.2f s", tc.name, time.Since(start).Seconds())
				cancel()
			}
		})
	}
}
