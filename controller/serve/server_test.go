package serve_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/controller/serve"
)

// TestControllerServer drives the controller's MCP server as a host
// would, over an in-memory transport: the tool list, list_devices, a
// device's tool through call_device_tool, a write whose device elicitation
// is forwarded to the host, and ask with progress notifications.
func TestControllerServer(t *testing.T) {
	l := newTestLab(t, "icmp_acl_block r3:GigabitEthernet0/0/0")
	var srv *serve.Server
	var owned atomic.Int32 // device questions a host request owned
	fleet, err := client.New(l.inv, client.Options{Elicit: func(ctx context.Context, d *client.Device, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		if srv.Owns(p) {
			owned.Add(1)
		}
		return srv.Elicit(ctx, d, p)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer fleet.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := fleet.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	srv = serve.New(&controller.Controller{Fleet: fleet, Hosts: l.ctl.Hosts}, controller.Store{Dir: t.TempDir()}, "test")
	ct, st := mcp.NewInMemoryTransports()
	go srv.MCP().Run(ctx, st)
	var mu sync.Mutex
	var progress, elicited []string
	host := mcp.NewClient(&mcp.Implementation{Name: "host"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, r.Params.Message)
			mu.Unlock()
		},
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			elicited = append(elicited, r.Params.Message)
			mu.Unlock()
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	})
	cs, err := host.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"ask", "call_device_tool", "list_devices", "pingmesh", "submit_report"}) {
		t.Fatalf("tools %v", names)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_devices"})
	if err != nil || res.IsError {
		t.Fatalf("list_devices: %v %+v", err, res)
	}
	var devs serve.ListDevicesOut
	remarshal(t, res.StructuredContent, &devs)
	if len(devs.Devices) != 5 || devs.Devices[0].Name != "r1" || devs.Devices[0].State != "connected" || !slices.Contains(devs.Devices[0].Tools, "ping") {
		t.Fatalf("devices %+v", devs)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "call_device_tool", Arguments: map[string]any{
		"device": "r2", "tool": "network.yang.get", "arguments": map[string]any{"path": "/openconfig-system:system/config/hostname"}}})
	if err != nil || res.IsError {
		t.Fatalf("call_device_tool: %v %+v", err, res)
	}
	if b, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(b), `"r2"`) {
		t.Errorf("hostname of r2: %s", b)
	}
	// A write: the device's approval elicitation reaches the host, who declines.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "call_device_tool", Arguments: map[string]any{
		"device": "r3", "tool": "network.yang.edit", "arguments": map[string]any{"target": "candidate", "edit": []any{
			map[string]any{"operation": "merge", "path": "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/1']/config", "value": map[string]any{"description": "x"}}}}}})
	mu.Lock()
	got := slices.Clone(elicited)
	mu.Unlock()
	if len(got) == 0 || !strings.HasPrefix(got[0], "[r3] ") {
		t.Errorf("no elicitation forwarded (result %v %s), got %q", err, textOf(res), got)
	}
	// The host's request owned the question; nobody owns one that names
	// another correlation id, or none.
	if owned.Load() == 0 {
		t.Error("Owns: the question of the host's write was not the host's")
	}
	for _, m := range []mcp.Meta{nil, {"netmcp/correlationId": "c-nobody"}} {
		if srv.Owns(&mcp.ElicitParams{Message: "approve?", Meta: m}) {
			t.Errorf("Owns: a question with meta %v is owned", m)
		}
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"intent": "what is wrong with the network?"},
		Meta: mcp.Meta{"progressToken": "p1"}})
	if err != nil || res.IsError {
		t.Fatalf("ask: %v %+v", err, res)
	}
	var rep controller.Report
	remarshal(t, res.StructuredContent, &rep)
	if !rep.IsAnomaly || !slices.Equal(rep.RootCauseName, []string{"icmp_acl_block"}) || !slices.Equal(rep.FaultyDevices, []string{"r3"}) {
		t.Fatalf("ask: %v %v %v", rep.IsAnomaly, rep.RootCauseName, rep.FaultyDevices)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(progress) == 0 || !strings.HasPrefix(progress[0], "intent:") {
		t.Errorf("progress notifications: %q", progress)
	}
}

func remarshal(t *testing.T, from, to any) {
	t.Helper()
	b, err := json.Marshal(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, to); err != nil {
		t.Fatal(err)
	}
}

func textOf(r *mcp.CallToolResult) string {
	var s []string
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			s = append(s, t.Text)
		}
	}
	return strings.Join(s, "\n")
}
