package server

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	_ "github.com/netmcp/netmcp/device/sim"
)

// BenchmarkMaskToolResult measures the secret masking of a network.yang.get
// result (r1's interfaces, as the tool returns them) for a caller without
// the secrets scope: the part of a default-configuration call that the
// bare stack does not pay.
func BenchmarkMaskToolResult(b *testing.B) {
	drv, err := device.Open(context.Background(), "sim://r1", device.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer drv.Close()
	data, err := drv.Get(context.Background(), "", "/openconfig-interfaces:interfaces")
	if err != nil {
		b.Fatal(err)
	}
	raw, err := marshal(map[string]any{"data": data})
	if err != nil {
		b.Fatal(err)
	}
	m := newSecretMasker(nil, drv.Info().CLIDialect)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		r := &mcp.CallToolResult{StructuredContent: json.RawMessage(raw), Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}}
		m.toolResult(r)
	}
}
