package labtest_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/labtest"
)

// TestLab: the harness serves the routers listed in its inventory, a
// killed router refuses sessions until restarted on the same URL, faults
// are injected at start, and with Audit every call is in the router's
// audit log.
func TestLab(t *testing.T) {
	ctx := context.Background()
	l := labtest.New(t, labtest.Options{Faults: []string{"link_down r1:GigabitEthernet0/0/0"}, Audit: true})
	inv := l.Inventory(inventory.Device{Name: "x", URL: "http://127.0.0.1:1/mcp"})
	if len(inv.Devices) != 4 || inv.Devices[1].Name != "r2" || inv.Devices[1].URL != l.URL("r2") || inv.Devices[3].Name != "x" {
		t.Fatalf("inventory %+v", inv.Devices)
	}
	if fs := l.Sim().Faults(); len(fs) != 1 || fs[0].Words != "link_down r1:GigabitEthernet0/0/0" {
		t.Errorf("faults %+v", fs)
	}
	connect := func() (*mcp.ClientSession, error) {
		return mcp.NewClient(&mcp.Implementation{Name: "labtest", Version: "1"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: l.URL("r2"), MaxRetries: -1}, nil)
	}
	before := len(l.Audit("r2"))
	cs, err := connect()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "network.cli.exec", Arguments: map[string]any{"cmd": "show version"}}); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	if after := len(l.Audit("r2")); after <= before {
		t.Errorf("audit log of r2: %d records before the call, %d after", before, after)
	}
	l.Kill("r2")
	l.Kill("r2") // a second kill does nothing
	if cs, err := connect(); err == nil {
		cs.Close()
		t.Fatal("a killed router accepted a session")
	}
	l.Start("r2")
	cs, err = connect()
	if err != nil {
		t.Fatalf("after restart: %v", err)
	}
	cs.Close()
	if l.Server("r1") == nil || len(l.Routers()) != 3 || len(l.Topology().Devices) != 5 {
		t.Errorf("server %v, routers %v", l.Server("r1"), l.Routers())
	}
}
