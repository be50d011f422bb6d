package server_test

import (
	"context"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/policy"
	"github.com/netmcp/netmcp/server"
)

// TestLoadHTTP opens 200 concurrent sessions over Streamable HTTP on
// loopback, each making 100 calls through the whole security layer
// (identity, policy, limits, redaction, audit with fsync every second),
// and checks that no call fails and that no goroutine is left once the
// sessions are closed.
func TestLoadHTTP(t *testing.T) {
	const sessions, calls = 200, 100
	before := runtime.NumGoroutine()
	start := time.Now()
	t.Run("sessions", func(t *testing.T) {
		env := newSecEnv(t, envConfig{noJWT: true, fsync: audit.SyncInterval, modify: func(o *server.SecurityOptions) {
			o.RateLimiter = policy.NewRateLimiter(1e6, 1e6)
			o.SessionLimiter = policy.NewSessionLimiter(server.DefaultMaxConcurrentPerSession)
		}})
		tr := http.DefaultTransport.(*http.Transport).Clone()
		// Room for every session's idle connection: with net/http's default
		// total of 100, a connection returned to a full pool is closed, and
		// a request racing it fails with "putIdleConn: too many idle
		// connections" on the client side (1 run in ~10 here).
		tr.MaxIdleConnsPerHost = sessions
		tr.MaxIdleConns = 2 * sessions
		defer tr.CloseIdleConnections()
		hc := &http.Client{Transport: tr}
		var failed atomic.Int64
		var firstErr atomic.Value
		var wg sync.WaitGroup
		for i := 0; i < sessions; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx := context.Background()
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "load", Version: "1"}, nil).Connect(ctx,
					&mcp.StreamableClientTransport{Endpoint: env.url, HTTPClient: hc, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
				if err != nil {
					failed.Add(calls)
					firstErr.CompareAndSwap(nil, err)
					return
				}
				defer cs.Close()
				for j := 0; j < calls; j++ {
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: netproto.ToolYangGet,
						Arguments: map[string]any{"path": "/ietf-interfaces:interfaces/interface[name='LoopBack0']"}})
					if err == nil && res.IsError {
						err = errString("tool error")
					}
					if err != nil {
						failed.Add(1)
						firstErr.CompareAndSwap(nil, err)
					}
				}
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		if n := failed.Load(); n > 0 {
			t.Fatalf("%d of %d calls failed; first: %v", n, sessions*calls, firstErr.Load())
		}
		t.Logf("%d sessions x %d calls over HTTP in %v: %.0f calls/s", sessions, calls, elapsed.Round(time.Millisecond),
			float64(sessions*calls)/elapsed.Seconds())
	})
	// The subtest's cleanups closed the server, listener, lab and audit
	// log; wait for goroutines to settle.
	var after int
	for deadline := time.Now().Add(10 * time.Second); ; {
		runtime.GC()
		after = runtime.NumGoroutine()
		if after <= before || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if after > before {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Fatalf("%d goroutines before, %d after the sessions closed:\n%s", before, after, buf[:n])
	}
}

type errString string

func (e errString) Error() string { return string(e) }
