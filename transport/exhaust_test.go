package transport_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/transport"
)

// serveHTTPOn serves h with transport.NewHTTPServer on a guarded loopback
// listener and returns its address.
func serveHTTPOn(t *testing.T, h http.Handler, st transport.ServerTimeouts, lo transport.ListenerOptions) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := transport.NewHTTPServer(h, st)
	done := make(chan error, 1)
	go func() { done <- hs.Serve(transport.GuardListener(ln, lo)) }()
	t.Cleanup(func() {
		hs.Close()
		<-done
	})
	return ln.Addr().String()
}

// waitClosed reads c until the server closes it and returns what it read;
// it fails the test when the connection is still open after a generous
// deadline.
func waitClosed(t *testing.T, c net.Conn, what string) string {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(testwait.Timeout(20 * time.Second)))
	b, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("%s: the server still holds the connection (read %q)", what, b)
	}
	return string(b)
}

// TestHTTPHeadersWithoutBody: a POST whose headers arrive but whose body
// never does is answered 408 and its connection closed once the body read
// timeout elapses; before, it was held forever.
func TestHTTPHeadersWithoutBody(t *testing.T) {
	h := transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return newServer() },
		transport.HTTPOptions{BodyReadTimeout: 200 * time.Millisecond})
	addr := serveHTTPOn(t, h, transport.ServerTimeouts{}, transport.ListenerOptions{})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 500\r\n\r\n{\"jsonrpc\"")
	got := waitClosed(t, c, "headers without body")
	if !strings.HasPrefix(got, "HTTP/1.1 408") {
		t.Errorf("response %q, want 408 Request Timeout", got)
	}
}

// TestHTTPIdleKeepAlive: a keep-alive connection that carries no further
// request is closed after the idle timeout.
func TestHTTPIdleKeepAlive(t *testing.T) {
	h := transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return newServer() }, transport.HTTPOptions{})
	addr := serveHTTPOn(t, h, transport.ServerTimeouts{Idle: 200 * time.Millisecond}, transport.ListenerOptions{})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /other HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || resp.Close {
		t.Fatalf("status %d close %v, want a kept-alive 404", resp.StatusCode, resp.Close)
	}
	waitClosed(t, c, "idle keep-alive")
}

// TestHTTPWriteTimeoutSparesLongCalls: the per-write timeout does not cut
// a tool call (answered on an SSE stream) that runs several times longer,
// nor the session's GET stream.
func TestHTTPWriteTimeoutSparesLongCalls(t *testing.T) {
	srv := newServer()
	type in struct{}
	mcp.AddTool(srv, &mcp.Tool{Name: "slow"}, func(ctx context.Context, req *mcp.CallToolRequest, _ in) (*mcp.CallToolResult, any, error) {
		for i := range 4 {
			time.Sleep(150 * time.Millisecond)
			//lint:ignore SA1019 MCP logging, deprecated since 2026-07-28, carries the drafts' live output
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: i})
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	h := transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		transport.HTTPOptions{WriteTimeout: 100 * time.Millisecond, BodyReadTimeout: 100 * time.Millisecond})
	addr := serveHTTPOn(t, h, transport.ServerTimeouts{}, transport.ListenerOptions{})
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + transport.Path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	time.Sleep(300 * time.Millisecond) // the GET stream stays idle beyond both timeouts
	for range 2 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("a call longer than the write timeout failed: %v", err)
		}
		if txt := res.Content[0].(*mcp.TextContent).Text; txt != "done" {
			t.Fatalf("result %q", txt)
		}
	}
}

// TestHTTPPerSourceCap: 300 connections held open by one source leave the
// server serving another source, and the source itself once it lets go;
// the server keeps only MaxConnsPerSource of them.
func TestHTTPPerSourceCap(t *testing.T) {
	const limit = 8
	h := transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return newServer() }, transport.HTTPOptions{})
	// The header timeout would close the held connections while the test
	// still counts them on a busy machine; it is not under test here.
	addr := serveHTTPOn(t, h, transport.ServerTimeouts{ReadHeader: time.Hour}, transport.ListenerOptions{MaxConnsPerSource: limit})
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for range 300 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	// Every connection beyond the limit is closed by the server.
	var wg sync.WaitGroup
	var mu sync.Mutex
	open := 0
	for _, c := range held {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.SetReadDeadline(time.Now().Add(testwait.Timeout(3 * time.Second)))
			_, err := c.Read(make([]byte, 1))
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				mu.Lock()
				open++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if open != limit {
		t.Errorf("the server holds %d of 300 connections from one source, want %d", open, limit)
	}
	// Another source is served.
	other := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{
		LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}).DialContext}}
	connect(t, other, addr)
	// The first source is served again once it closes its connections.
	for _, c := range held {
		c.Close()
	}
	held = nil
	testwait.Until(t, 10*time.Second, "127.0.0.1 served again after closing its connections", func() (bool, string) {
		err := tryConnect(&http.Client{Transport: &http.Transport{}}, addr)
		return err == nil, fmt.Sprint(err)
	})
}

func connect(t *testing.T, hc *http.Client, addr string) {
	t.Helper()
	if err := tryConnect(hc, addr); err != nil {
		t.Fatal(err)
	}
}

func tryConnect(hc *http.Client, addr string) error {
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + transport.Path, HTTPClient: hc, MaxRetries: -1},
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}) // ping is not a method of 2026-07-28
	if err != nil {
		return err
	}
	defer cs.Close()
	return cs.Ping(ctx, nil)
}

// TestGuardListenerServesThroughEMFILE: an http.Server on a guarded
// listener whose Accept fails with EMFILE keeps serving once it recovers.
func TestGuardListenerServesThroughEMFILE(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fl := &flakyListener{Listener: inner, fails: 5}
	h := transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return newServer() }, transport.HTTPOptions{})
	hs := transport.NewHTTPServer(h, transport.ServerTimeouts{})
	done := make(chan error, 1)
	go func() { done <- hs.Serve(transport.GuardListener(fl, transport.ListenerOptions{})) }()
	defer func() { hs.Close(); <-done }()
	connect(t, &http.Client{Transport: &http.Transport{}}, inner.Addr().String())
}

// flakyListener fails its first Accepts with EMFILE.
type flakyListener struct {
	net.Listener
	mu    sync.Mutex
	fails int
}

func (f *flakyListener) Accept() (net.Conn, error) {
	f.mu.Lock()
	if f.fails > 0 {
		f.fails--
		f.mu.Unlock()
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	f.mu.Unlock()
	return f.Listener.Accept()
}
