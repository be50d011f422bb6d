package serve_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/policy"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/transport"
)

// This file is a copy of the controller's own served-lab helpers
// (controller/serverlab_test.go, correlation_test.go, reconnect_test.go)
// until the shared served-lab harness replaces both.

// serverLab is the default lab with each router served over Streamable
// HTTP by its own MCP server, as `netmcp lab up` does, where a device's
// server can be killed and restarted on the same port (a new server: the
// sessions of the old one are gone) and every server writes an audit log
// that outlives its restarts.
type serverLab struct {
	t    testing.TB
	lab  *sim.Lab
	topo topology.Topology
	role string // the role the devices give the controller (an unauthenticated loopback peer)
	mu   sync.Mutex
	devs map[string]*labServer
}

// labServer is one router's server.
type labServer struct {
	addr      string // fixed after the first start
	auditPath string
	log       *audit.Log
	srv       *server.Server
	hs        *http.Server
	done      chan struct{}
}

// newServerLab starts the default lab broken by faults (words of
// topology.ParseFault, each one the simulator models), with resource
// telemetry every 100 ms. The devices give the controller the operator
// role.
func newServerLab(t testing.TB, faults ...string) *serverLab {
	t.Helper()
	return newServerLabAs(t, policy.RoleOperator, faults...)
}

// newServerLabAs is newServerLab whose devices give the controller role.
func newServerLabAs(t testing.TB, role string, faults ...string) *serverLab {
	t.Helper()
	topo := sim.DefaultTopology()
	lab, err := sim.NewLab(topo, sim.LabOptions{TelemetryInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range faults {
		f, err := topology.ParseFault(w)
		if err != nil {
			t.Fatal(err)
		}
		if err := lab.InjectFault(f); err != nil {
			t.Fatal(err)
		}
	}
	l := &serverLab{t: t, lab: lab, topo: topo, role: role, devs: map[string]*labServer{}}
	dir := t.TempDir()
	for _, name := range lab.Routers() {
		s := &labServer{addr: "127.0.0.1:0", auditPath: filepath.Join(dir, name+".audit.jsonl")}
		if s.log, err = audit.Open(s.auditPath, audit.Options{Sync: audit.SyncNever}); err != nil {
			t.Fatal(err)
		}
		l.devs[name] = s
		l.start(name)
	}
	t.Cleanup(func() {
		for name, s := range l.devs {
			l.kill(name)
			_ = s.log.Close()
		}
		lab.Close()
	})
	return l
}

// start (re)starts the device's server on the port it had before.
func (l *serverLab) start(name string) {
	l.t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.devs[name]
	drv, err := l.lab.Device(name)
	if err != nil {
		l.t.Fatal(err)
	}
	srv, err := server.New(drv, server.Options{})
	if err != nil {
		l.t.Fatal(err)
	}
	sec, err := srv.Secure(server.SecurityOptions{Audit: s.log, LocalRole: l.role})
	if err != nil {
		l.t.Fatal(err)
	}
	var ln net.Listener
	for i := 0; ; i++ { // the port of a killed server may linger a moment
		ln, err = net.Listen("tcp", s.addr)
		if err == nil || i == 50 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		l.t.Fatal(err)
	}
	s.addr, s.srv = ln.Addr().String(), srv
	s.hs = &http.Server{Handler: sec.HTTPHandler(transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, transport.HTTPOptions{}))}
	s.done = make(chan struct{})
	go func(hs *http.Server, done chan struct{}) {
		defer close(done)
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			l.t.Errorf("device %s: %v", name, err)
		}
	}(s.hs, s.done)
}

// kill stops the device's server abruptly: the listener and every
// connection closed, its sessions forgotten.
func (l *serverLab) kill(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.devs[name]
	if s.hs == nil {
		return
	}
	_ = s.hs.Close()
	<-s.done
	_ = s.srv.Close()
	s.hs = nil
}

// inventory lists the lab's routers.
func (l *serverLab) inventory() *inventory.Inventory {
	inv := &inventory.Inventory{Name: "test"}
	for _, name := range l.lab.Routers() {
		inv.Devices = append(inv.Devices, inventory.Device{Name: name, URL: "http://" + l.devs[name].addr + transport.Path, Device: "sim://" + name})
	}
	return inv
}

// hosts are the lab's hosts as an operator knows them.
func (l *serverLab) hosts() []controller.Host { return controller.HostsOf(l.topo) }

// audit reads the device's audit log as written so far.
func (l *serverLab) audit(name string) []audit.Record {
	l.t.Helper()
	recs, err := audit.ReadFile(l.devs[name].auditPath)
	if err != nil {
		l.t.Fatalf("%s audit log: %v", name, err)
	}
	return recs
}

// auditMarks are the lengths of every device's audit log at one moment.
type auditMarks map[string]int

func (l *serverLab) marks() auditMarks {
	m := auditMarks{}
	for _, name := range l.lab.Routers() {
		m[name] = len(l.audit(name))
	}
	return m
}

// since returns the device's audit records written after the marks.
func (l *serverLab) since(m auditMarks, name string) []audit.Record {
	return l.audit(name)[m[name]:]
}

// quietFleet connects a fleet that sends nothing of its own accord (no
// keep-alive pings), so that every audit record of a run is the run's.
func quietFleet(t testing.TB, l *serverLab) *client.Fleet {
	t.Helper()
	f, err := client.New(l.inventory(), client.Options{KeepAlive: -1, CallTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	return f
}

// cpuUpdates counts a device's notifications/resources/updated.
type cpuUpdates struct {
	mu sync.Mutex
	n  map[string]int
}

func (u *cpuUpdates) add(d *client.Device, p *mcp.ResourceUpdatedNotificationParams) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.n == nil {
		u.n = map[string]int{}
	}
	u.n[d.Name()+" "+p.URI]++
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(within); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, within)
		}
	}
}

// reconnectFleet connects a fleet with a quick supervisor: keep-alive
// every 200 ms, reconnection backoff from 50 to 300 ms.
func reconnectFleet(t testing.TB, l *serverLab, ups *cpuUpdates) *client.Fleet {
	t.Helper()
	f, err := client.New(l.inventory(), client.Options{
		KeepAlive: 200 * time.Millisecond, BackoffInitial: 50 * time.Millisecond, BackoffMax: 300 * time.Millisecond,
		CallTimeout: 10 * time.Second, ConnectTimeout: 5 * time.Second, OnResourceUpdated: ups.add,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	return f
}
