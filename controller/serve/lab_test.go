package serve_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/transport"
)

// This file is a trimmed copy of the controller's own test lab
// (controller/lab_test.go; no lab clock) until the shared served-lab
// harness replaces both.

// testLab is the simulated lab with each router and each host served by
// its own MCP server over Streamable HTTP on a loopback port, and a
// connected fleet.
type testLab struct {
	ctl *controller.Controller
	inv *inventory.Inventory
}

// newTestLab starts the default lab and injects the named faults (words
// of topology.ParseFault) with Lab.Inject, as `netmcp lab up --fault` does.
func newTestLab(t testing.TB, faults ...string) *testLab {
	t.Helper()
	return newTestLabOpts(t, nil, faults...)
}

// newTestLabOpts is newTestLab whose device servers take the options
// opts gives them by name (nil: the defaults).
func newTestLabOpts(t testing.TB, opts func(name string) server.Options, faults ...string) *testLab {
	t.Helper()
	topo := sim.DefaultTopology()
	hosts := controller.HostsOf(topo) // what the operator knows: the intended addresses
	lab, err := sim.NewLab(topo, sim.LabOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range faults {
		f, err := topology.ParseFault(w)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := lab.Inject(f); err != nil {
			t.Fatalf("inject %s: %v", w, err)
		}
	}
	l := &testLab{}
	inv := &inventory.Inventory{Name: "test"}
	var servers []*http.Server
	var srvs []*server.Server
	serveDevice := func(name, role string, drv device.Driver) {
		var o server.Options
		if opts != nil {
			o = opts(name)
		}
		srv, err := server.New(drv, o)
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		hs := &http.Server{Handler: transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, transport.HTTPOptions{})}
		go func() {
			if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				t.Errorf("%s: %v", name, err)
			}
		}()
		servers, srvs = append(servers, hs), append(srvs, srv)
		inv.Devices = append(inv.Devices, inventory.Device{Name: name, URL: "http://" + ln.Addr().String() + transport.Path, Device: "sim://" + name, Role: role})
	}
	for _, name := range lab.Routers() {
		drv, err := lab.Device(name)
		if err != nil {
			t.Fatal(err)
		}
		serveDevice(name, "router", drv)
	}
	for _, name := range lab.Hosts() {
		drv, err := lab.Host(name)
		if err != nil {
			t.Fatal(err)
		}
		serveDevice(name, controller.RoleHost, drv)
	}
	f, err := client.New(inv, client.Options{CallTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	l.inv = inv
	l.ctl = &controller.Controller{Fleet: f, Hosts: hosts, Domains: controller.DomainsOf(topo)}
	if testing.Verbose() {
		l.ctl.Progress = testWriter{t}
	}
	t.Cleanup(func() {
		f.Close()
		for i, hs := range servers {
			_ = hs.Close()
			_ = srvs[i].Close()
		}
		lab.Close()
	})
	return l
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
