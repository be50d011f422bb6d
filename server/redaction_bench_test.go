package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	_ "github.com/netmcp/netmcp/lab/sim"
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

// BenchmarkMaskConfig1MB measures masking a 1 MB configuration text (VRP
// interfaces with descriptions, a community and local users every 100
// interfaces) that the masker learnt as the device's own: what a
// network.file.pull of a large configuration costs a viewer.
func BenchmarkMaskConfig1MB(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 1<<20; i++ {
		fmt.Fprintf(&sb, "interface GigabitEthernet0/0/%d\n description link %d to the core\n ip address 10.%d.%d.1 255.255.255.0\n#\n", i, i, i/256%256, i%256)
		if i%100 == 0 {
			fmt.Fprintf(&sb, "snmp-agent community read cipher C0mm-%d\naaa\n local-user u%d password irreversible-cipher P@ss-%d\n#\n", i, i, i)
		}
	}
	text := sb.String()
	m := newSecretMasker(nil, "huawei-vrp")
	m.learn(text)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if out := m.config(text); strings.Contains(out, "P@ss-100") {
			b.Fatal("a secret survived")
		}
	}
}
