package serve

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/netproto"
)

// BenchmarkLabPing5 measures a ping of count 5 from r1 to r3's loopback
// through `lab up`'s MCP server over HTTP: one tools/call end to end, the
// lab's time simulated (no --realtime), so it answers at once with the
// modelled RTTs (target: under 5 ms).
func BenchmarkLabPing5(b *testing.B) {
	ctx := context.Background()
	l, err := Up(ctx, Options{Topology: sim.DefaultTopology()})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: l.URL("r1"), HTTPClient: l.HTTPClient()}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	args := map[string]any{"destination": "10.255.0.3", "count": 5}
	call := func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: netproto.ToolPing, Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("tools/call ping: %v %+v", err, res)
		}
	}
	for range 3 {
		call() // warm up: the MCP server is built on first use
	}
	b.ResetTimer()
	for range b.N {
		call()
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/call")
}
