package serve_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/labtest"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/transport"
)

// testLab is the simulated lab served by lab/labtest, each router and
// each host its own MCP server, and a controller over a connected fleet
// of them all.
type testLab struct {
	ctl *controller.Controller
	inv *inventory.Inventory
}

// newTestLab starts the default lab, with the simulator's default
// telemetry period, and injects the named faults (words of
// topology.ParseFault), as `netmcp lab up --fault` does.
func newTestLab(t testing.TB, faults ...string) *testLab {
	t.Helper()
	return newTestLabRefusing(t, "", faults...)
}

// newTestLabRefusing is newTestLab where the fleet reaches device refuse
// ("" none) through a server of its own whose diagnostics a limiter of
// zero refuses.
func newTestLabRefusing(t testing.TB, refuse string, faults ...string) *testLab {
	t.Helper()
	lab := labtest.New(t, labtest.Options{Faults: faults, TelemetryInterval: sim.DefaultTelemetryInterval})
	inv := withHosts(lab)
	if refuse != "" {
		drv, err := lab.Serve().Driver(refuse)
		if err != nil {
			t.Fatal(err)
		}
		srv, err := server.New(drv, server.Options{DiagLimiter: diag.NewLimiter(0, 0)})
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, transport.HTTPOptions{}))
		t.Cleanup(func() {
			hs.Close()
			_ = srv.Close()
		})
		for i, d := range inv.Devices {
			if d.Name == refuse {
				inv.Devices[i].URL = hs.URL + transport.Path
			}
		}
	}
	f, err := client.New(inv, client.Options{CallTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	topo := lab.Topology()
	l := &testLab{inv: inv, ctl: &controller.Controller{Fleet: f, Hosts: controller.HostsOf(topo), Domains: controller.DomainsOf(topo)}}
	if testing.Verbose() {
		l.ctl.Progress = testWriter{t}
	}
	return l
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

// testWriter logs progress lines in the test's output.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p[:len(p)-1]))
	return len(p), nil
}

// ask parses and runs an intent.
func (l *testLab) ask(t testing.TB, text string) *controller.Report {
	t.Helper()
	in, err := controller.ParseIntent(text)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := l.ctl.Ask(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
