package eval

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/gen"
	"github.com/netmcp/netmcp/lab/serve"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/transport"
)

// servedLab is one case's network in the simulator with each router and
// host served by its own MCP server over Streamable HTTP on a loopback
// port, as `netmcp lab up` serves them (with the security layer: only the
// holder of the lab's token, whose file the inventory names, is
// answered), and a count of the tool calls the servers answered.
type servedLab struct {
	lab   *sim.Lab
	topo  topology.Topology
	inv   *inventory.Inventory
	auth  *serve.Auth
	calls atomic.Int64
	// now is the lab's clock, which its devices log and time their
	// state changes by.
	now  func() time.Time
	devs []servedDevice
	gnmi *gnmiFront // the routers' gNMI servers and drivers, with gNMI
}

// servedDevice is one device's MCP server and its HTTP listener.
type servedDevice struct {
	srv *server.Server
	hs  *http.Server
}

// labOptions are the simulator's options for a case: the seed the suite
// was checked with, and a clock that starts at gen.Epoch (so a link_flap
// starts in its down phase, as when the suite was made) and runs with the
// wall clock, so that the diagnoser's own timers and a flap's cycles move.
func labOptions() sim.LabOptions {
	o := gen.LabOptions()
	start := time.Now()
	o.Now = func() time.Time { return gen.Epoch.Add(time.Since(start)) }
	return o
}

// startLab builds topo with faults and serves its devices; with gnmi,
// each router's MCP server reaches it through gnmi:// (gnmi.go).
func startLab(topo topology.Topology, faults []topology.Fault, gnmi bool) (*servedLab, error) {
	opts := labOptions()
	lab, err := sim.NewLab(topo, opts)
	if err != nil {
		return nil, err
	}
	auth, err := serve.NewAuth("", "")
	if err != nil {
		_ = lab.Close()
		return nil, err
	}
	l := &servedLab{lab: lab, now: opts.Now, topo: topo, auth: auth, inv: &inventory.Inventory{Name: topo.Name, Domains: controller.DomainsOf(topo)}}
	for _, f := range faults {
		if _, err := lab.Inject(f); err != nil {
			l.close()
			return nil, fmt.Errorf("fault %s: %w", f, err)
		}
	}
	if gnmi {
		if l.gnmi, err = newGNMIFront(); err != nil {
			l.close()
			return nil, err
		}
	}
	for _, name := range lab.Routers() {
		var drv device.Driver
		drv, err = lab.Device(name)
		inv := inventory.Device{Name: name, Device: "sim://" + name}
		if err == nil && gnmi {
			drv, inv.Device, err = l.gnmi.front(name, drv)
			inv.GNMI = inv.Device
		}
		if err == nil {
			inv.Dialect = drv.Info().CLIDialect
			err = l.serve(inv, drv)
		}
		if err != nil {
			l.close()
			return nil, err
		}
	}
	for _, name := range lab.Hosts() {
		drv, err := lab.Host(name)
		if err == nil {
			err = l.serve(inventory.Device{Name: name, Device: "sim://" + name, Dialect: sim.DialectLinux,
				Role: controller.RoleHost, Addresses: addrsOf(topo, name)}, drv)
		}
		if err != nil {
			l.close()
			return nil, err
		}
	}
	return l, nil
}

// serve starts one device's MCP server on a free loopback port and adds
// it to the inventory.
func (l *servedLab) serve(d inventory.Device, drv device.Driver) error {
	srv, err := server.New(drv, server.Options{})
	if err != nil {
		return fmt.Errorf("device %s: %w", d.Name, err)
	}
	srv.MCP().AddReceivingMiddleware(l.countCalls)
	wrap, err := l.auth.Secure(d.Name, srv)
	if err != nil {
		_ = srv.Close()
		return fmt.Errorf("device %s: %w", d.Name, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = srv.Close()
		return err
	}
	hs := &http.Server{Handler: wrap(transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, transport.HTTPOptions{})),
		ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err // the diagnoser sees the device gone; nothing else to tell
		}
	}()
	l.devs = append(l.devs, servedDevice{srv: srv, hs: hs})
	d.URL = "http://" + ln.Addr().String() + transport.Path
	d.Credentials = l.auth.Credentials()
	l.inv.Devices = append(l.inv.Devices, d)
	return nil
}

// countCalls counts the tool calls the device's server receives.
func (l *servedLab) countCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/call" {
			l.calls.Add(1)
		}
		return next(ctx, method, req)
	}
}

// close stops the servers and the simulator.
func (l *servedLab) close() {
	for _, d := range l.devs {
		_ = d.hs.Close()
		_ = d.srv.Close()
	}
	l.gnmi.close()
	_ = l.lab.Close()
	_ = l.auth.Close()
}

// addrsOf are a device's addresses in the topology (CIDR): what the
// operator assigned it, the inventory's Addresses of a host.
func addrsOf(topo topology.Topology, name string) []string {
	var out []string
	for _, d := range topo.Devices {
		if d.Name == name {
			for _, it := range d.Interfaces {
				out = append(out, it.Addresses...)
			}
		}
	}
	return out
}
