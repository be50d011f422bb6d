package client_test

import (
	"errors"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/transport"
)

// hostnamePath is a YANG path every simulated router serves.
const hostnamePath = "/openconfig-system:system/config/hostname"

// testLab is the built-in simulated lab, each router served over
// Streamable HTTP by its own MCP server on its own loopback port, as
// `netmcp lab up` does. A device server can be killed and restarted on
// the same port.
type testLab struct {
	t    testing.TB
	lab  *sim.Lab
	devs map[string]*devServer
	opts server.Options
}

// devServer is one device's MCP server and HTTP listener.
type devServer struct {
	name string
	addr string // fixed after the first start
	srv  *server.Server
	hs   *http.Server
	done chan struct{}
}

func newTestLab(t testing.TB) *testLab {
	t.Helper()
	lab, err := sim.NewLab(sim.DefaultTopology(), sim.LabOptions{TelemetryInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	l := &testLab{t: t, lab: lab, devs: map[string]*devServer{}}
	for _, name := range lab.Routers() {
		s := &devServer{name: name, addr: "127.0.0.1:0"}
		l.devs[name] = s
		l.start(name)
	}
	t.Cleanup(func() {
		for name := range l.devs {
			l.kill(name)
		}
		lab.Close()
	})
	return l
}

// start (re)starts the device's server, on the port it had before.
func (l *testLab) start(name string) {
	l.t.Helper()
	s := l.devs[name]
	drv, err := l.lab.Device(name)
	if err != nil {
		l.t.Fatal(err)
	}
	srv, err := server.New(drv, l.opts)
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
	s.addr = ln.Addr().String()
	s.srv = srv
	h := transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, transport.HTTPOptions{})
	s.hs = &http.Server{Handler: h}
	s.done = make(chan struct{})
	go func(hs *http.Server, done chan struct{}) {
		defer close(done)
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			l.t.Errorf("device %s: %v", name, err)
		}
	}(s.hs, s.done)
}

// kill stops the device's server abruptly: listener and every connection
// closed, sessions forgotten (a restart is a new server).
func (l *testLab) kill(name string) {
	s := l.devs[name]
	if s.hs == nil {
		return
	}
	_ = s.hs.Close()
	<-s.done
	_ = s.srv.Close()
	s.hs = nil
}

func (l *testLab) url(name string) string { return "http://" + l.devs[name].addr + transport.Path }

// inventory lists the lab's routers, plus extra devices.
func (l *testLab) inventory(extra ...inventory.Device) *inventory.Inventory {
	inv := &inventory.Inventory{Name: "test"}
	for _, name := range l.lab.Routers() {
		inv.Devices = append(inv.Devices, inventory.Device{Name: name, URL: l.url(name), Device: "sim://" + name})
	}
	inv.Devices = append(inv.Devices, extra...)
	return inv
}

// deadPort returns a loopback address nothing listens on.
func deadPort(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// eventually polls cond every 20 ms until it holds or the deadline passes.
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

// updates counts notifications/resources/updated per device and URI.
type updates struct {
	mu sync.Mutex
	n  map[string]int
}

func (u *updates) add(dev, uri string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.n == nil {
		u.n = map[string]int{}
	}
	u.n[dev+" "+uri]++
}

func (u *updates) get(dev, uri string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.n[dev+" "+uri]
}
