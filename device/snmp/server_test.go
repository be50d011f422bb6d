//go:build linux

package snmp_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/snmp/snmptest"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/policy"
	"github.com/netmcp/netmcp/server"
)

// serve puts an MCP server in front of drv and returns a client session
// over an in-memory transport.
func serve(tb testing.TB, drv device.Driver) *mcp.ClientSession {
	tb.Helper()
	s, err := server.New(drv, server.Options{Approver: server.AllowAll})
	if err != nil {
		tb.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := s.MCP().Connect(ctx, st, nil); err != nil {
		tb.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "snmp-test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cs.Close(); s.Close() })
	return cs
}

func text(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// TestThroughMCP: an MCP session reads the SNMP device's interfaces and is
// told that its configuration cannot change.
func TestThroughMCP(t *testing.T) {
	a := snmptest.Start(t)
	cs := serve(t, open(t, a.URLv2c()))
	r, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: "network.yang.get",
		Arguments: map[string]any{"path": "/openconfig-interfaces:interfaces/interface[name='q0']/state/oper-status"}})
	if err != nil || r.IsError || !strings.Contains(text(r), "UP") {
		t.Fatalf("network.yang.get: %v %s", err, text(r))
	}
	r, err = cs.CallTool(ctx(t), &mcp.CallToolParams{Name: "network.yang.edit",
		Arguments: map[string]any{"target": "candidate", "edit": []any{map[string]any{"path": "/openconfig-system:system/config/hostname", "value": "x"}}}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		t.Fatalf("network.yang.edit on a read-only device: %v %v, want a JSON-RPC error", err, r)
	}
	if je.Code != netproto.CodeConfigIncompatible || !strings.Contains(string(je.Data), "cannot be changed through this driver") {
		t.Errorf("network.yang.edit on a read-only device: %d %s %s", je.Code, je.Message, je.Data)
	}
	t.Logf("edit refused: %d %s", je.Code, je.Data)
}

// BenchmarkYangGet measures tools/call network.yang.get of the interfaces
// through an MCP session, the server and the SNMP driver against snmpd
// (SNMPv2c and v3 authPriv); p50 and p90 are reported per call.
func BenchmarkYangGet(b *testing.B) {
	a := snmptest.Start(b)
	for _, tc := range []struct{ name, url string }{{"v2c", a.URLv2c()}, {"v3-authPriv", a.URLv3()}} {
		for _, path := range []string{"/openconfig-interfaces:interfaces", "/"} {
			b.Run(tc.name+"/"+strings.Trim(strings.ReplaceAll(path, "/", "_"), "_"), func(b *testing.B) {
				d, err := device.Open(context.Background(), tc.url, device.Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { d.Close() })
				cs := serve(b, d)
				params := &mcp.CallToolParams{Name: "network.yang.get", Arguments: map[string]any{"path": path}}
				lat := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					t0 := time.Now()
					r, err := cs.CallTool(context.Background(), params)
					lat = append(lat, time.Since(t0))
					if err != nil || r.IsError {
						b.Fatalf("call: %v %s", err, text(r))
					}
				}
				b.StopTimer()
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(lat[len(lat)*9/10].Microseconds()), "p90-µs")
			})
		}
	}
}

// TestConfigToolsUnavailableToEveryCaller: behind netmcp's security layer
// an operator, who may call the configuration tools but not write
// secrets, is told that the configuration cannot change (-32084;
// network.rollback -32087 Network.RollbackNotSupported), as an admin is,
// rather than refused for what the call would write (-32083).
func TestConfigToolsUnavailableToEveryCaller(t *testing.T) {
	a := snmptest.Start(t)
	drv := open(t, a.URLv2c())
	for _, role := range []string{policy.RoleOperator, policy.RoleAdmin} {
		t.Run(role, func(t *testing.T) {
			s, err := server.New(drv, server.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.Secure(server.SecurityOptions{StdioRole: role}); err != nil {
				t.Fatal(err)
			}
			ct, st := mcp.NewInMemoryTransports()
			if _, err := s.MCP().Connect(ctx(t), st, nil); err != nil {
				t.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "snmp-test", Version: "1"}, nil).Connect(ctx(t), ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			for _, tc := range []struct {
				tool string
				args map[string]any
				code int64
			}{
				{netproto.ToolCLIConfigure, map[string]any{"commands": []any{"hostname x"}}, netproto.CodeConfigIncompatible},
				{netproto.ToolYangEdit, map[string]any{"edit": []any{map[string]any{"path": "/openconfig-system:system/config/hostname", "value": "x"}}}, netproto.CodeConfigIncompatible},
				{netproto.ToolCommit, map[string]any{}, netproto.CodeConfigIncompatible},
				{netproto.ToolRollback, map[string]any{}, netproto.CodeRollbackNotSupported},
				{netproto.ToolFilePush, map[string]any{"name": "candidate-config", "content": "x", "sha256": strings.Repeat("0", 64)}, netproto.CodeConfigIncompatible},
			} {
				if tc.tool == netproto.ToolFilePush && role == policy.RoleOperator {
					continue // not a tool of the operator role: -32083 is right
				}
				_, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
				var je *jsonrpc.Error
				if !errors.As(err, &je) || je.Code != tc.code || !strings.Contains(string(je.Data), "not available on this device") {
					t.Errorf("%s: %v, want %d (not available on this device)", tc.tool, err, tc.code)
				}
			}
		})
	}
}
