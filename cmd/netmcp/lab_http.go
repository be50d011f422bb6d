package main

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
type labServers struct {
	urls   map[string]string // device -> MCP endpoint
	failed chan struct{}     // closed when a device's HTTP server fails
	once   sync.Once
	wg     sync.WaitGroup
	mu     sync.Mutex
	errs   []error
}

func (ls *labServers) init() {
	ls.urls = map[string]string{}
	ls.failed = make(chan struct{})
}

// listen serves h as device name's MCP endpoint on 127.0.0.1, port
// basePort+i (a free one when basePort is 0), until ctx ends.
func (ls *labServers) listen(ctx context.Context, name string, i, basePort int, h http.Handler) error {
	port := 0
	if basePort > 0 {
		port = basePort + i
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("device %s: %w", name, err)
	}
	ls.urls[name] = "http://" + ln.Addr().String() + transport.Path
	ls.wg.Add(1)
	go func() {
		defer ls.wg.Done()
		if err := serveHTTP(ctx, ln, h); err != nil && !errors.Is(err, http.ErrServerClosed) {
			ls.mu.Lock()
			ls.errs = append(ls.errs, fmt.Errorf("device %s: %w", name, err))
			ls.mu.Unlock()
			ls.once.Do(func() { close(ls.failed) })
		}
	}()
	return nil
}

// wait waits until every server has stopped (cancel their ctx first) and
// returns the errors they failed with.
func (ls *labServers) wait() []error {
	ls.wg.Wait()
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return slices.Clone(ls.errs)
}
