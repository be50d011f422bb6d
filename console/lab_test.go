package console_test

import (
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/transport"
)

// testLab is the built-in simulated lab, each router served over
// Streamable HTTP by its own MCP server on a loopback port, as
// `netmcp lab up` does.
type testLab struct {
	lab  *sim.Lab
	topo topology.Topology
	inv  *inventory.Inventory
}

func newTestLab(t testing.TB) *testLab {
	t.Helper()
	topo := sim.DefaultTopology()
	lab, err := sim.NewLab(topo, sim.LabOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l := &testLab{lab: lab, topo: topo, inv: &inventory.Inventory{Name: topo.Name}}
	for _, name := range lab.Routers() {
		drv, err := lab.Device(name)
		if err != nil {
			t.Fatal(err)
		}
		srv, err := server.New(drv, server.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		hs := &http.Server{Handler: transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, transport.HTTPOptions{})}
		done := make(chan struct{})
		go func() {
			defer close(done)
			if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				t.Errorf("device %s: %v", name, err)
			}
		}()
		t.Cleanup(func() {
			_ = hs.Close()
			<-done
			_ = srv.Close()
		})
		l.inv.Devices = append(l.inv.Devices, inventory.Device{Name: name, URL: "http://" + ln.Addr().String() + transport.Path, Device: "sim://" + name})
	}
	t.Cleanup(func() { lab.Close() })
	return l
}

// eventually polls cond every 20 ms until it holds or the time is up.
func eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
