package serve

import (
	"fmt"
	"log/slog"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/transport"
)

// labDevice is the HTTP face of one router or host of a lab. Its MCP
// server is built once, on first use (a lab of a thousand routers of which
// a handful are used does not pay for a thousand tool sets and schemas);
// each endpoint made for it (one per start: a revived device gets a new
// one) has sessions of its own.
type labDevice struct {
	name    string
	drv     device.Driver
	logger  *slog.Logger
	version string
	// secure installs the lab's security layer on the server and returns
	// what wraps its HTTP handler.
	secure func(name string, srv *server.Server) (func(http.Handler) http.Handler, error)

	mu     sync.Mutex
	srv    *server.Server
	wrap   func(http.Handler) http.Handler
	err    error
	closed bool
}

// server returns the device's MCP server (and the wrapper of its
// handler), building it the first time; an error building it is kept and
// returned every time.
func (d *labDevice) server() (*server.Server, func(http.Handler) http.Handler, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.closed:
		return nil, nil, fmt.Errorf("device %s: the lab is stopping", d.name)
	case d.srv != nil || d.err != nil:
		return d.srv, d.wrap, d.err
	}
	srv, err := server.New(d.drv, server.Options{Version: d.version, Logger: d.logger.With("device", d.name)})
	if err != nil {
		d.err = fmt.Errorf("device %s: %w", d.name, err)
		return nil, nil, d.err
	}
	w, err := d.secure(d.name, srv)
	if err != nil {
		_ = srv.Close()
		d.err = fmt.Errorf("device %s: %w", d.name, err)
		return nil, nil, d.err
	}
	d.wrap = w
	d.srv = srv
	return srv, d.wrap, nil
}

// endpoint returns a new HTTP handler of the device: its MCP server over
// Streamable HTTP, with no session of an earlier endpoint. The server is
// built on the first request (once for the device).
func (d *labDevice) endpoint() http.Handler {
	var once sync.Once
	var h http.Handler
	var err error
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() {
			var srv *server.Server
			var wrap func(http.Handler) http.Handler
			if srv, wrap, err = d.server(); err != nil {
				return
			}
			h = wrap(transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, transport.HTTPOptions{Logger: d.logger}))
		})
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// built tells whether the device's MCP server has been built.
func (d *labDevice) built() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.srv != nil
}

// close closes the device's MCP server, if built, and refuses to build it
// afterwards.
func (d *labDevice) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	if d.srv != nil {
		_ = d.srv.Close()
	}
}
