package llm_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/labtest"
	"github.com/netmcp/netmcp/lab/sim"
)

// testLab is the simulated lab served by lab/labtest, each router and
// each host its own MCP server, and a connected fleet of them all.
type testLab struct {
	fleet *client.Fleet
	ctl   *controller.Controller
}

// newTestLab starts the default lab, healthy, with the simulator's
// default telemetry period.
func newTestLab(t testing.TB) *testLab {
	t.Helper()
	l := labtest.New(t, labtest.Options{TelemetryInterval: sim.DefaultTelemetryInterval})
	f, err := client.New(withHosts(l), client.Options{CallTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	topo := l.Topology()
	return &testLab{fleet: f, ctl: &controller.Controller{Fleet: f, Hosts: controller.HostsOf(topo), Domains: controller.DomainsOf(topo)}}
}

// withHosts is the lab's inventory with its hosts too (role host).
func withHosts(l *labtest.Lab) *inventory.Inventory {
	var hosts []inventory.Device
	for _, d := range l.Serve().Devices() {
		if d.Host {
			hosts = append(hosts, inventory.Device{Name: d.Name, URL: d.URL, Device: "sim://" + d.Name, Role: controller.RoleHost,
				Credentials: inventory.Credentials{TokenFile: l.TokenFile()}})
		}
	}
	return l.Inventory(hosts...)
}

// textOf is the text content of a tool result.
func textOf(r *mcp.CallToolResult) string {
	var s []string
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			s = append(s, t.Text)
		}
	}
	return strings.Join(s, "\n")
}
