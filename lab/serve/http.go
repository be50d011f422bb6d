package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/netmcp/netmcp/transport"
)

// labServers is the HTTP side that the simulated and the real lab share:
// one Streamable HTTP listener per device on 127.0.0.1, the device's MCP
// URL, and the errors of the servers that fail. Embed it and call init.
// A device's endpoint can be killed (kill: its listener and every open
// connection closed at once, as a machine that loses power) and revived
// on the same address (revive), which the real lab's host_crash does.
type labServers struct {
	urls   map[string]string // device -> MCP endpoint
	failed chan struct{}     // closed when a device's HTTP server fails
	once   sync.Once
	wg     sync.WaitGroup
	mu     sync.Mutex
	errs   []error
	eps    map[string]*labEndpoint // device -> its endpoint
	ctx    context.Context         // the servers' context (listen's)
	waited bool                    // wait has begun: no endpoint starts again
}

// labEndpoint is one device's HTTP server.
type labEndpoint struct {
	addr    string              // host:port, kept across a kill and revive
	handler func() http.Handler // a new handler per start: a revived device has no session of before
	hs      *http.Server        // nil while the device is killed
}

func (ls *labServers) init() {
	ls.urls = map[string]string{}
	ls.eps = map[string]*labEndpoint{}
	ls.failed = make(chan struct{})
}

// listen serves device name's MCP endpoint on 127.0.0.1, port basePort+i
// (a free one when basePort is 0), until ctx ends, with a handler made by
// mk, once now and again at each revive.
func (ls *labServers) listen(ctx context.Context, name string, i, basePort int, mk func() http.Handler) error {
	port := 0
	if basePort > 0 {
		port = basePort + i
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("device %s: %w", name, err)
	}
	ep := &labEndpoint{addr: ln.Addr().String(), handler: mk}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.urls[name] = "http://" + ep.addr + transport.Path
	ls.eps[name] = ep
	ls.ctx = ctx
	ls.start(name, ep, ln)
	return nil
}

// start serves ep on ln until ls.ctx ends or kill closes it (ls.mu held).
func (ls *labServers) start(name string, ep *labEndpoint, ln net.Listener) {
	hs := transport.NewHTTPServer(ep.handler(), transport.ServerTimeouts{})
	ep.hs = hs
	ctx := ls.ctx
	ls.wg.Add(1)
	go func() {
		defer ls.wg.Done()
		if err := transport.Serve(ctx, ln, hs); err != nil && !errors.Is(err, http.ErrServerClosed) {
			ls.mu.Lock()
			ls.errs = append(ls.errs, fmt.Errorf("device %s: %w", name, err))
			ls.mu.Unlock()
			ls.once.Do(func() { close(ls.failed) })
		}
	}()
}

// kill stops device name's endpoint at once: its listener is closed (a
// new connection is refused) and so is every open connection, a request
// under way included, as when a machine loses power.
func (ls *labServers) kill(name string) error {
	ls.mu.Lock()
	ep := ls.eps[name]
	var hs *http.Server
	if ep != nil {
		hs, ep.hs = ep.hs, nil
	}
	ls.mu.Unlock()
	switch {
	case ep == nil:
		return fmt.Errorf("device %s has no MCP endpoint in this lab", name)
	case hs == nil:
		return fmt.Errorf("device %s's MCP endpoint is down already", name)
	}
	if err := hs.Close(); err != nil {
		return fmt.Errorf("device %s: closing its MCP endpoint: %w", name, err)
	}
	return nil
}

// revive serves device name's endpoint again on the address it had (the
// inventory names it), with a new handler: the sessions of before the
// kill are gone, as after a reboot.
func (ls *labServers) revive(name string) error {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ep := ls.eps[name]
	switch {
	case ep == nil:
		return fmt.Errorf("device %s has no MCP endpoint in this lab", name)
	case ep.hs != nil:
		return nil
	case ls.waited || ls.ctx.Err() != nil:
		return fmt.Errorf("device %s: the lab's servers are stopping", name)
	}
	ln, err := net.Listen("tcp", ep.addr)
	if err != nil {
		return fmt.Errorf("device %s: listening again on %s: %w", name, ep.addr, err)
	}
	ls.start(name, ep, ln)
	return nil
}

// wait waits until every server has stopped (cancel their ctx first) and
// returns the errors they failed with.
func (ls *labServers) wait() []error {
	ls.mu.Lock()
	ls.waited = true
	ls.mu.Unlock()
	ls.wg.Wait()
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return slices.Clone(ls.errs)
}
