package tlsstream_test

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/pki"
	"github.com/netmcp/netmcp/transport/tlsstream"
)

// emfileListener fails its first Accepts with EMFILE, as a process at its
// file descriptor limit does.
type emfileListener struct {
	net.Listener
	mu    sync.Mutex
	fails int
}

func (f *emfileListener) Accept() (net.Conn, error) {
	f.mu.Lock()
	if f.fails > 0 {
		f.fails--
		f.mu.Unlock()
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	f.mu.Unlock()
	return f.Listener.Accept()
}

// TestServeSurvivesAcceptErrors: Accept failing with EMFILE does not end
// Serve (before, the first failure returned from Serve and `netmcp serve`
// exited); the failures are reported and the next client is served.
func TestServeSurvivesAcceptErrors(t *testing.T) {
	l := newLab(t)
	srvCfg, _ := pki.ServerTLSConfig(l.srvCert, l.srvKey, nil)
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tlsstream.NewListener(&emfileListener{Listener: inner, fails: 4}, srvCfg)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var reported []time.Duration
	ln.OnAcceptError = func(err error, retryIn time.Duration) {
		mu.Lock()
		reported = append(reported, retryIn)
		mu.Unlock()
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- tlsstream.Serve(ctx, ln, func(*tlsstream.ConnTransport) (*mcp.Server, func(), error) { return echoServer(), nil, nil })
	}()
	cliCfg, _ := pki.ClientTLSConfig(l.ca.CertPEM, nil, nil, "127.0.0.1")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).
		Connect(ctx, tlsstream.ClientTransport{Addr: inner.Addr().String(), Config: cliCfg}, nil)
	if err != nil {
		select {
		case err := <-done:
			t.Fatalf("Serve ended on an accept error: %v", err)
		default:
		}
		t.Fatal(err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reported) != 4 || reported[0] != 5*time.Millisecond || reported[3] != 40*time.Millisecond {
		t.Errorf("reported backoffs %v, want 5ms, 10ms, 20ms, 40ms", reported)
	}
}

// TestFirstFrameTimeout: a client that completes the handshake and then
// sends nothing is disconnected once FirstFrameTimeout elapses; a client
// that sent its first frame in time is not limited afterwards.
func TestFirstFrameTimeout(t *testing.T) {
	l := newLab(t)
	srvCfg, _ := pki.ServerTLSConfig(l.srvCert, l.srvKey, nil)
	ln, err := tlsstream.Listen("127.0.0.1:0", srvCfg)
	if err != nil {
		t.Fatal(err)
	}
	ln.FirstFrameTimeout = 200 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- tlsstream.Serve(ctx, ln, func(*tlsstream.ConnTransport) (*mcp.Server, func(), error) { return echoServer(), nil, nil })
	}()
	defer func() { cancel(); <-done }()

	cfg, _ := pki.ClientTLSConfig(l.ca.CertPEM, nil, nil, "127.0.0.1")
	cfg.NextProtos = []string{"mcp"}
	conn, err := tls.Dial("tcp", ln.Addr().String(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(testwait.Timeout(20 * time.Second)))
	_, err = io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("a silent client is still connected")
	}

	// A real session idles well beyond the timeout and still works.
	cliCfg, _ := pki.ClientTLSConfig(l.ca.CertPEM, nil, nil, "127.0.0.1")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).
		Connect(ctx, tlsstream.ClientTransport{Addr: ln.Addr().String(), Config: cliCfg}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	time.Sleep(500 * time.Millisecond)
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("a session idle after its first frame was cut: %v", err)
	}
}

// TestMalformedFrames: a frame that is not one JSON-RPC message is
// answered with a JSON-RPC error and the session goes on; before, the
// connection was closed with no error, and the second of two messages in
// one frame was silently dropped.
func TestMalformedFrames(t *testing.T) {
	l := newLab(t)
	srvCfg, _ := pki.ServerTLSConfig(l.srvCert, l.srvKey, nil)
	addr, _, _ := serve(t, srvCfg)
	cfg, _ := pki.ClientTLSConfig(l.ca.CertPEM, nil, nil, "127.0.0.1")
	cfg.NextProtos = []string{"mcp"}
	conn, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(testwait.Timeout(20 * time.Second)))
	fr := tlsstream.NewFrameReader(conn, 0)
	exchange := func(msg string) string {
		t.Helper()
		frame, _ := tlsstream.AppendFrame(nil, []byte(msg), 0)
		if _, err := conn.Write(frame); err != nil {
			t.Fatal(err)
		}
		body, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("after %s: no reply, the connection ended: %v", msg, err)
		}
		return string(body)
	}
	tests := []struct{ name, frame, want string }{
		{"not JSON", `{"jsonrpc":"2.0","id":1,`, `"code":-32700`},
		{"two messages in one frame", `{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}`, `"code":-32700`},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `"code":-32600`},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, `"code":-32600`},
		{"call before initialize", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, `"code":-32600`},
		{"initialize", `{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, `"id":4,"result"`},
		{"ping", `{"jsonrpc":"2.0","id":5,"method":"ping"}`, `"id":5,"result"`},
	}
	for _, tt := range tests {
		if got := exchange(tt.frame); !strings.Contains(got, tt.want) {
			t.Errorf("%s: reply %s, want %s", tt.name, got, tt.want)
		}
	}
}

// TestStalledFrameDisconnected: a client that announces a frame and then
// stalls, or trickles it byte by byte, is disconnected once FrameTimeout
// has run from the frame's first byte; before, only the first frame was
// bounded, and a header announcing 4 MiB held the connection and its
// buffer for ever. A session idle between frames for longer than
// FrameTimeout is not cut.
func TestStalledFrameDisconnected(t *testing.T) {
	const frameTimeout = 300 * time.Millisecond
	l := newLab(t)
	srvCfg, _ := pki.ServerTLSConfig(l.srvCert, l.srvKey, nil)
	ln, err := tlsstream.Listen("127.0.0.1:0", srvCfg)
	if err != nil {
		t.Fatal(err)
	}
	ln.FrameTimeout = frameTimeout
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- tlsstream.Serve(ctx, ln, func(*tlsstream.ConnTransport) (*mcp.Server, func(), error) { return echoServer(), nil, nil })
	}()
	defer func() { cancel(); <-done }()

	cfg, _ := pki.ClientTLSConfig(l.ca.CertPEM, nil, nil, "127.0.0.1")
	cfg.NextProtos = []string{"mcp"}
	// dialInitialized returns a raw connection whose first frame (an
	// initialize request) has been answered.
	dialInitialized := func(t *testing.T) (*tls.Conn, *tlsstream.FrameReader) {
		t.Helper()
		conn, err := tls.Dial("tcp", ln.Addr().String(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		_ = conn.SetDeadline(time.Now().Add(testwait.Timeout(30 * time.Second)))
		frame, _ := tlsstream.AppendFrame(nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`), 0)
		if _, err := conn.Write(frame); err != nil {
			t.Fatal(err)
		}
		fr := tlsstream.NewFrameReader(conn, 0)
		if _, err := fr.ReadFrame(); err != nil {
			t.Fatalf("initialize: %v", err)
		}
		return conn, fr
	}
	// wantClosed reads until the server ends the connection and fails when
	// the client's own 30 s deadline fires first.
	wantClosed := func(t *testing.T, conn *tls.Conn, start time.Time) {
		t.Helper()
		_, err := io.ReadAll(conn)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatal("the server still holds a connection whose frame stalled")
		}
		if el := time.Since(start); el < frameTimeout {
			t.Fatalf("disconnected after %v, before the frame timeout of %v", el, frameTimeout)
		}
	}
	header := func(n uint32) []byte { return binary.BigEndian.AppendUint32(nil, n) }

	t.Run("header then silence", func(t *testing.T) {
		conn, _ := dialInitialized(t)
		start := time.Now()
		if _, err := conn.Write(append(header(4<<20), "{\"jsonrpc\""...)); err != nil {
			t.Fatal(err)
		}
		wantClosed(t, conn, start)
	})
	t.Run("trickled frame", func(t *testing.T) {
		conn, _ := dialInitialized(t)
		start := time.Now()
		if _, err := conn.Write(header(1 << 10)); err != nil {
			t.Fatal(err)
		}
		// One byte every 20 ms never completes 1 KiB within the timeout;
		// each byte would have reset an idle deadline.
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					if _, err := conn.Write([]byte{' '}); err != nil {
						return
					}
				}
			}
		}()
		wantClosed(t, conn, start)
	})
	t.Run("half a header", func(t *testing.T) {
		conn, _ := dialInitialized(t)
		start := time.Now()
		if _, err := conn.Write([]byte{0, 0}); err != nil {
			t.Fatal(err)
		}
		wantClosed(t, conn, start)
	})
	t.Run("idle between frames", func(t *testing.T) {
		conn, fr := dialInitialized(t)
		time.Sleep(3 * frameTimeout) // idling, the behaviour under test, not a wait for a condition
		frame, _ := tlsstream.AppendFrame(nil, []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`), 0)
		if _, err := conn.Write(frame); err != nil {
			t.Fatal(err)
		}
		if body, err := fr.ReadFrame(); err != nil || !strings.Contains(string(body), `"id":2`) {
			t.Fatalf("a session idle between frames was cut: %q, %v", body, err)
		}
	})
}
