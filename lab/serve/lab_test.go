package serve

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/sim"
)

// TestUp serves the built-in lab, calls network.cli.exec on r2 through
// its URL, checks the devices listed and the inventory written in the
// state directory, and closes the lab: its control file goes.
func TestUp(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	extra := filepath.Join(t.TempDir(), "inv.yaml")
	l, err := Up(ctx, Options{Topology: sim.DefaultTopology(), StateDir: dir, Inventory: extra})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"r1": "huawei-vrp", "r2": "cisco-iosxr", "r3": "huawei-vrp", "h1": "linux", "h3": "linux"}
	devs := l.Devices()
	if len(devs) != len(want) {
		t.Fatalf("devices %+v", devs)
	}
	for _, d := range devs {
		if want[d.Name] != d.Dialect || d.Host != (d.Name[0] == 'h') || !strings.HasPrefix(d.URL, "http://127.0.0.1:") || !strings.HasSuffix(d.URL, "/mcp") || d.SSH != "" {
			t.Errorf("device %+v", d)
		}
	}
	if got := strings.Join(l.Routers(), ","); got != "r1,r2,r3" {
		t.Errorf("routers %s", got)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "serve-test", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: l.URL("r2"), HTTPClient: l.HTTPClient()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "network.cli.exec", Arguments: map[string]any{"cmd": "show version"}})
	if err != nil || res.IsError {
		t.Fatalf("cli.exec on r2: %v %+v", err, res)
	}
	cs.Close()
	for _, f := range []string{filepath.Join(dir, InventoryFile), extra} {
		inv, err := inventory.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(inv.Devices) != 5 || inv.Devices[1].URL != l.URL("r2") || inv.Devices[1].Device != "sim://r2" || inv.Devices[4].Role != "host" || len(inv.Devices[4].Addresses) == 0 {
			t.Errorf("%s: %+v", f, inv.Devices)
		}
	}
	if got := l.InventoryFiles(); len(got) != 2 {
		t.Errorf("inventory files %v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, ControlFile)); err != nil {
		t.Errorf("control file: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ControlFile)); err == nil {
		t.Error("control file left after Close")
	}
}

// TestUpGrid1024 serves a 32x32 grid of routers as `lab up --grid 32x32`
// does, each its own MCP server over HTTP, and pings across the grid's
// diameter (r1 to r1024, 62 hops) through r1's MCP server: with ping's
// default TTL of 64 it arrives; with ttl 30 it expires on the way. Only the
// routers asked are built an MCP server.
func TestUpGrid1024(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	topo, err := LabTopology("", 0, "32x32", false)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Up(ctx, Options{Topology: topo})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := l.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	}()
	if n := len(l.Devices()); n != 1024 {
		t.Fatalf("%d routers served, want 1024", n)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "lab-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: l.URL("r1"), HTTPClient: l.HTTPClient()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, tc := range []struct {
		args     map[string]any
		received float64
	}{
		{map[string]any{"destination": sim.GeneratedLoopback(1024), "count": 1, "intervalMs": 200}, 1},
		{map[string]any{"destination": sim.GeneratedLoopback(1024), "count": 1, "intervalMs": 200, "ttl": 30}, 0},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ping", Arguments: tc.args})
		if err != nil || res.IsError {
			t.Fatalf("ping %v: %v %+v", tc.args, err, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var got struct {
			Result struct {
				Received float64 `json:"packets_received"`
			} `json:"result"`
		}
		if err := json.Unmarshal(b, &got); err != nil || got.Result.Received != tc.received {
			t.Fatalf("ping %v: received %v, want %v: %s", tc.args, got.Result.Received, tc.received, b)
		}
	}
	built := 0
	for _, d := range l.devs {
		if d.built() {
			built++
		}
	}
	if built != 1 {
		t.Errorf("%d MCP servers built, want 1 (r1's)", built)
	}
}

// TestLabTopology checks --topology, --chain and --grid.
func TestLabTopology(t *testing.T) {
	for _, tc := range []struct {
		file     string
		chain    int
		grid     string
		chainSet bool
		routers  int
		links    int
		err      string
	}{
		{routers: 5, links: 4}, // the built-in lab: r1-r3, h1, h3
		{chain: 50, chainSet: true, routers: 50, links: 49},
		{grid: "32x32", routers: 1024, links: 2 * 32 * 31},
		{grid: "3X4", routers: 12, links: 17},
		{chain: 0, chainSet: true, err: "chain of 0 routers"},
		{grid: "32", err: "want ROWSxCOLS"},
		{grid: "0x5", err: "want ROWSxCOLS"},
		{grid: "200x200", err: "at most 10000 routers"},
		{chain: 3, chainSet: true, grid: "2x2", err: "exclusive"},
		{file: "x.yaml", grid: "2x2", err: "exclusive"},
	} {
		topo, err := LabTopology(tc.file, tc.chain, tc.grid, tc.chainSet)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%+v: err %v, want %q", tc, err, tc.err)
			}
			continue
		}
		if err != nil || len(topo.Devices) != tc.routers || len(topo.Links) != tc.links {
			t.Errorf("%+v: %d devices, %d links, %v", tc, len(topo.Devices), len(topo.Links), err)
		}
	}
}

// TestKillRevive: a killed device refuses connections and its sessions
// fail; revived on the same URL it answers a new session, from the same
// MCP server, and a stateful session of before the kill (2025-11-25: the
// session is the server's state) is gone.
func TestKillRevive(t *testing.T) {
	ctx := context.Background()
	l, err := Up(ctx, Options{Topology: sim.DefaultTopology()})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	connect := func() (*mcp.ClientSession, error) {
		return mcp.NewClient(&mcp.Implementation{Name: "serve-test", Version: "1"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: l.URL("r1"), HTTPClient: l.HTTPClient(), MaxRetries: -1},
				&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	}
	before, err := connect()
	if err != nil {
		t.Fatal(err)
	}
	defer before.Close()
	srv, err := l.Server("r1")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Kill("r1"); err != nil {
		t.Fatal(err)
	}
	if err := l.Kill("r1"); err == nil || !strings.Contains(err.Error(), "down already") {
		t.Errorf("a second kill: %v", err)
	}
	if cs, err := connect(); err == nil {
		cs.Close()
		t.Fatal("a killed device accepted a session")
	}
	if err := l.Revive("r1"); err != nil {
		t.Fatal(err)
	}
	if _, err := before.ListTools(ctx, nil); err == nil {
		t.Error("a session of before the kill still answers")
	}
	after, err := connect()
	if err != nil {
		t.Fatalf("after revive: %v", err)
	}
	defer after.Close()
	if _, err := after.ListTools(ctx, nil); err != nil {
		t.Errorf("after revive: %v", err)
	}
	if again, _ := l.Server("r1"); again != srv {
		t.Error("revive built a new MCP server")
	}
	if err := l.Kill("nope"); err == nil {
		t.Error("killed a device the lab lacks")
	}
}
