// Package labtest is the served-lab harness of netmcp's tests: a
// simulated lab started in the test's process by lab/serve, as `netmcp
// lab up` serves it (each device its own MCP server over Streamable HTTP
// on 127.0.0.1, answering only requests with the lab's bearer token), an
// inventory of its routers that names the token's file, devices that can
// be killed and restarted on the same port, optionally an audit log per
// device, and clean-up when the test ends.
//
//	l := labtest.New(t, labtest.Options{Faults: []string{"link_down r1:GigabitEthernet0/0/0"}})
//	fleet, err := client.New(l.Inventory(), client.Options{})
package labtest

import (
	"context"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/serve"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/server"
)

// DefaultTelemetry is the devices' telemetry period unless
// Options.TelemetryInterval sets another: short, so that tests see
// telemetry events quickly.
const DefaultTelemetry = 100 * time.Millisecond

// Options configure New.
type Options struct {
	// Topology is the lab's (zero: the built-in lab).
	Topology topology.Topology
	// Faults are injected once the lab is up, as `netmcp lab fault add`
	// injects them (words of topology.ParseFault).
	Faults []string
	// TelemetryInterval is the devices' CPU and memory telemetry period
	// (0: DefaultTelemetry).
	TelemetryInterval time.Duration
	// Audit gives every device's server an audit log of its own, which
	// outlives the device's restarts; Lab.Audit reads it.
	Audit bool
	// Role is the role the devices give the holder of the lab's token
	// (empty: serve.RoleLab, which sees secrets masked; policy.RoleAdmin
	// sees them).
	Role string
	// GNMI also serves every router over gNMI, as `netmcp lab up --gnmi`
	// does; Inventory then gives each router's gnmi:// URL.
	GNMI bool
}

// Lab is a served simulated lab owned by one test.
type Lab struct {
	t    testing.TB
	lab  *serve.Lab
	dir  string // the audit logs
	mu   sync.Mutex
	down map[string]bool // killed devices
	logs map[string]*audit.Log
}

// New starts the lab of o and stops it when the test ends. Every router's
// MCP server is built at once.
func New(t testing.TB, o Options) *Lab {
	t.Helper()
	if o.Topology.Name == "" && len(o.Topology.Devices) == 0 {
		o.Topology = sim.DefaultTopology()
	}
	if o.TelemetryInterval == 0 {
		o.TelemetryInterval = DefaultTelemetry
	}
	l := &Lab{t: t, dir: t.TempDir(), down: map[string]bool{}, logs: map[string]*audit.Log{}}
	so := serve.Options{Topology: o.Topology, TelemetryInterval: o.TelemetryInterval, Role: o.Role, GNMI: o.GNMI}
	if o.Audit {
		for _, d := range o.Topology.Devices {
			if _, err := l.auditLog(d.Name); err != nil {
				t.Fatal(err)
			}
		}
		so.AuditLog = l.auditLog
	}
	lab, err := serve.Up(context.Background(), so)
	if err != nil {
		l.closeLogs()
		t.Fatal(err)
	}
	l.lab = lab
	t.Cleanup(l.close)
	for _, w := range o.Faults {
		f, err := topology.ParseFault(w)
		if err != nil {
			t.Fatal(err)
		}
		if err := lab.Sim().InjectFault(f); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range lab.Routers() {
		if _, err := lab.Server(name); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// auditLog returns device name's audit log, opening it the first time.
func (l *Lab) auditLog(name string) (*audit.Log, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if log, ok := l.logs[name]; ok {
		return log, nil
	}
	log, err := audit.Open(l.auditPath(name), audit.Options{Sync: audit.SyncNever})
	if err != nil {
		return nil, err
	}
	l.logs[name] = log
	return log, nil
}

func (l *Lab) auditPath(name string) string { return filepath.Join(l.dir, name+".audit.jsonl") }

// AuditFile is the file of device name's audit log (Options.Audit), to
// read it as written, byte for byte.
func (l *Lab) AuditFile(name string) string { return l.auditPath(name) }

// close kills every device (its connections closed at once, as the test
// ends), stops the lab and closes the audit logs.
func (l *Lab) close() {
	for _, d := range l.lab.Devices() {
		l.Kill(d.Name)
	}
	if err := l.lab.Close(); err != nil {
		l.t.Errorf("labtest: closing the lab: %v", err)
	}
	l.closeLogs()
}

func (l *Lab) closeLogs() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, log := range l.logs {
		_ = log.Close()
	}
}

// Serve returns the lab as lab/serve runs it.
func (l *Lab) Serve() *serve.Lab { return l.lab }

// Sim returns the simulated lab (its network model, drivers and faults).
func (l *Lab) Sim() *sim.Lab { return l.lab.Sim() }

// Topology returns the lab's topology.
func (l *Lab) Topology() topology.Topology { return l.lab.Topology() }

// Routers lists the lab's routers, in topology order.
func (l *Lab) Routers() []string { return l.lab.Routers() }

// URL returns device name's MCP endpoint.
func (l *Lab) URL(name string) string { return l.lab.URL(name) }

// Server returns device name's MCP server (e.g. to add a middleware).
func (l *Lab) Server(name string) *server.Server {
	l.t.Helper()
	srv, err := l.lab.Server(name)
	if err != nil {
		l.t.Fatal(err)
	}
	return srv
}

// Kill stops device name's server abruptly: its listener and every
// connection closed, its sessions forgotten. Killing a killed device does
// nothing.
func (l *Lab) Kill(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.down[name] {
		return
	}
	if err := l.lab.Kill(name); err != nil {
		l.t.Errorf("labtest: kill %s: %v", name, err)
		return
	}
	l.down[name] = true
}

// Start restarts a killed device's server on the port it had: a new
// endpoint, none of the old sessions.
func (l *Lab) Start(name string) {
	l.t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var err error
	for i := 0; i < 50; i++ { // the port of a killed server may linger a moment
		if err = l.lab.Revive(name); err == nil {
			l.down[name] = false
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	l.t.Fatalf("labtest: restart %s: %v", name, err)
}

// HTTPClient returns an HTTP client that sends the lab's token, for a
// Streamable HTTP client transport of a device's URL.
func (l *Lab) HTTPClient() *http.Client { return l.lab.HTTPClient() }

// TokenFile is the file of the lab's token (what the inventory names).
func (l *Lab) TokenFile() string { return l.lab.TokenFile() }

// Inventory lists the lab's routers with their MCP endpoints (as devices
// sim://NAME, with their gnmi:// URLs with Options.GNMI) and the lab's
// token file as their credentials, then extra.
func (l *Lab) Inventory(extra ...inventory.Device) *inventory.Inventory {
	inv := &inventory.Inventory{Name: "test"}
	gnmi := map[string]string{}
	for _, d := range l.lab.Devices() {
		gnmi[d.Name] = d.GNMI
	}
	for _, name := range l.lab.Routers() {
		inv.Devices = append(inv.Devices, inventory.Device{Name: name, URL: l.URL(name), Device: "sim://" + name, GNMI: gnmi[name],
			Credentials: inventory.Credentials{TokenFile: l.TokenFile()}})
	}
	inv.Devices = append(inv.Devices, extra...)
	return inv
}

// Audit reads device name's audit log as written so far (Options.Audit).
func (l *Lab) Audit(name string) []audit.Record {
	l.t.Helper()
	recs, err := audit.ReadFile(l.auditPath(name))
	if err != nil {
		l.t.Fatalf("%s audit log: %v", name, err)
	}
	return recs
}
