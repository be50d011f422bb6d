package serve_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/controller/serve"
	"github.com/netmcp/netmcp/lab/labtest"
	"github.com/netmcp/netmcp/netproto"
)

// TestControllerServerDeviceRestart: through `netmcp controller serve`'s
// tools, a device whose server is killed is listed down with the error,
// a call to it fails with that error at once, an intent still finishes
// and reports it unreachable; once it is back, the supervisor reconnects
// it and the same calls work again, without the host reconnecting.
func TestControllerServerDeviceRestart(t *testing.T) {
	l := labtest.New(t, labtest.Options{Audit: true})
	var ups cpuUpdates
	f := reconnectFleet(t, l, &ups)
	srv := serve.New(&controller.Controller{Fleet: f, Hosts: controller.HostsOf(l.Topology())}, controller.Store{Dir: t.TempDir()}, "test")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := inMemoryHost(t, ctx, srv, "host", nil, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})

	state := func() map[string]serve.DeviceInfo {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: serve.ToolListDevices, Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("list_devices: %v %+v", err, res)
		}
		var out serve.ListDevicesOut
		remarshal(t, res.StructuredContent, &out)
		m := map[string]serve.DeviceInfo{}
		for _, d := range out.Devices {
			m[d.Name] = d
		}
		return m
	}
	hostname := func() *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: serve.ToolCallDeviceTool, Arguments: map[string]any{
			"device": "r2", "tool": netproto.ToolYangGet, "arguments": map[string]any{"path": "/openconfig-system:system/config/hostname"}}})
		if err != nil {
			t.Fatalf("call_device_tool: %v", err)
		}
		return res
	}

	r2 := f.Device("r2")
	l.Kill("r2")
	waitFor(t, 20*time.Second, "r2 seen down", func() bool { st, _ := r2.State(); return st != client.StateConnected })
	devs := state()
	if d := devs["r2"]; d.State == "connected" || d.Error == "" {
		t.Errorf("list_devices while r2 is down: %+v, want it not connected with the error", d)
	}
	if d := devs["r1"]; d.State != "connected" {
		t.Errorf("list_devices: r1 %+v", d)
	}
	res := hostname()
	if text := resultText(res); !res.IsError || !strings.Contains(text, "r2") || !strings.Contains(text, "not connected") {
		t.Errorf("call_device_tool on r2 down: isError %v, %q; want an error naming r2, not connected", res.IsError, text)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: serve.ToolAsk, Arguments: map[string]any{"intent": "what is wrong with the network?"}})
	if err != nil || res.IsError {
		t.Fatalf("ask with r2 down: %v %+v", err, res)
	}
	var rep controller.Report
	remarshal(t, res.StructuredContent, &rep)
	if rep.Unreachable["r2"] == "" || len(rep.Unreachable) != 1 {
		t.Errorf("ask with r2 down: unreachable %v, want r2", rep.Unreachable)
	}

	l.Start("r2")
	waitFor(t, 30*time.Second, "r2 reconnected", func() bool { st, _ := r2.State(); return st == client.StateConnected })
	if d := state()["r2"]; d.State != "connected" || d.Error != "" || len(d.Tools) == 0 {
		t.Errorf("list_devices after the restart: %+v", d)
	}
	res = hostname()
	var out struct {
		Data string `json:"data"`
	}
	if remarshal(t, res.StructuredContent, &out); res.IsError || out.Data != "r2" {
		t.Errorf("call_device_tool on r2 after the restart: %+v", res)
	}
}

// resultText is the text content of a tool result.
func resultText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}
