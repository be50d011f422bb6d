//go:build linux

package linux_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	_ "github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
)

// BenchmarkYangGetTool measures one network.yang.get tools/call of the
// interfaces tree through netmcp's server (in-memory transport), on a
// real namespace with FRR (linux://NS: netlink, read on every call) and
// on a simulated router (sim://r1), and reports the p50 and p99 of the
// calls (root for the namespace):
//
//	go test -run '^$' -bench YangGetTool -benchtime 500x ./device/linux/
func BenchmarkYangGetTool(b *testing.B) {
	for _, tc := range []struct {
		name string
		url  func(b *testing.B) string
	}{
		{"linux", func(b *testing.B) string { return "linux://" + frrNamespace(b) }},
		{"sim", func(*testing.B) string { return "sim://r1" }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			drv, err := device.Open(ctx, tc.url(b), device.Options{StateDir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			defer drv.Close()
			s, err := server.New(drv, server.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ct, st := mcp.NewInMemoryTransports()
			if _, err := s.MCP().Connect(ctx, st, nil); err != nil {
				b.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			params := &mcp.CallToolParams{Name: netproto.ToolYangGet,
				Arguments: map[string]any{"path": "/openconfig-interfaces:interfaces", "datastore": "operational"}}
			var lat []time.Duration
			for b.Loop() {
				t0 := time.Now()
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError {
					b.Fatalf("call: %v %+v", err, res)
				}
				lat = append(lat, time.Since(t0))
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}
