package labtest_test

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/labtest"
	"github.com/netmcp/netmcp/lab/serve"
)

// TestLab: the harness serves the routers listed in its inventory (whose
// credentials name the lab's token file) to callers with the lab's token
// only, a killed router refuses sessions until restarted on the same URL,
// faults are injected at start, and with Audit every call is in the
// router's audit log under the token's identity.
func TestLab(t *testing.T) {
	ctx := context.Background()
	l := labtest.New(t, labtest.Options{Faults: []string{"link_down r1:GigabitEthernet0/0/0"}, Audit: true})
	inv := l.Inventory(inventory.Device{Name: "x", URL: "http://127.0.0.1:1/mcp"})
	if len(inv.Devices) != 4 || inv.Devices[1].Name != "r2" || inv.Devices[1].URL != l.URL("r2") || inv.Devices[3].Name != "x" {
		t.Fatalf("inventory %+v", inv.Devices)
	}
	if inv.Devices[0].Credentials.TokenFile != l.TokenFile() || inv.Devices[0].Credentials.TokenFile == "" {
		t.Errorf("inventory credentials %+v, want token-file %s", inv.Devices[0].Credentials, l.TokenFile())
	}
	if cs, err := mcp.NewClient(&mcp.Implementation{Name: "labtest", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: l.URL("r2"), MaxRetries: -1}, nil); err == nil {
		cs.Close()
		t.Fatal("a session without the lab's token was accepted")
	}
	if fs := l.Sim().Faults(); len(fs) != 1 || fs[0].Words != "link_down r1:GigabitEthernet0/0/0" {
		t.Errorf("faults %+v", fs)
	}
	connect := func() (*mcp.ClientSession, error) {
		return mcp.NewClient(&mcp.Implementation{Name: "labtest", Version: "1"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: l.URL("r2"), HTTPClient: l.HTTPClient(), MaxRetries: -1}, nil)
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
	recs := l.Audit("r2")
	if len(recs) <= before {
		t.Errorf("audit log of r2: %d records before the call, %d after", before, len(recs))
	}
	if last := recs[len(recs)-1]; last.Identity != "jwt:"+serve.TokenSubject {
		t.Errorf("audit record of r2 names %q, want jwt:%s", last.Identity, serve.TokenSubject)
	}
	token, err := os.ReadFile(l.TokenFile())
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(l.AuditFile("r2")); err != nil || bytes.Contains(b, bytes.TrimSpace(token)) {
		t.Errorf("r2's audit log holds the lab's token (%v)", err)
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
