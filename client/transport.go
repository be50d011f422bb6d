package client

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/transport/tlsstream"
)

// maxSniffBytes bounds the initialize response buffered to read its
// capabilities.network (1 MiB; an initialize result is a few KiB).
const maxSniffBytes = 1 << 20

// TLSConfig returns the client TLS configuration the credentials describe:
// the CA file that verifies the server (system roots when empty), the
// client certificate for mutual TLS, and the server name to check. It
// returns nil, nil when the credentials name none of them.
func TLSConfig(c inventory.Credentials) (*tls.Config, error) {
	if c.CAFile == "" && c.CertFile == "" && c.ServerName == "" {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: c.ServerName}
	if c.CAFile != "" {
		pem, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("ca-file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("ca-file %s: no PEM certificate in it", c.CAFile)
		}
		cfg.RootCAs = pool
	}
	if c.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("cert-file/key-file: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// dialer builds the mcp.Transport of one connection attempt to a device.
// The credentials are read at every attempt, so a rotated token or
// certificate is picked up by the next reconnect.
type dialer struct {
	inv     inventory.Device
	opts    *Options
	onInit  func(json.RawMessage) // the raw initialize result
	httpMu  sync.Mutex
	httpTrs *http.Transport // idle connections of the previous attempt, closed on the next
}

func (d *dialer) transport(ctx context.Context) (mcp.Transport, error) {
	if d.opts.Dial != nil {
		t, err := d.opts.Dial(ctx, d.inv)
		if err != nil {
			return nil, err
		}
		return &sniffTransport{inner: t, onInit: d.onInit}, nil
	}
	tlsCfg, err := TLSConfig(d.inv.Credentials)
	if err != nil {
		return nil, err
	}
	switch d.inv.Transport() {
	case inventory.TransportStdio:
		if tlsCfg != nil || d.inv.Credentials.TokenFile != "" || d.inv.Credentials.TokenEnv != "" {
			return nil, errors.New("credentials are not used by a stdio command: remove them from the inventory")
		}
		cmd := exec.Command(d.inv.Command[0], d.inv.Command[1:]...)
		cmd.Stderr = d.opts.Stderr
		return &sniffTransport{inner: &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, onInit: d.onInit}, nil
	case inventory.TransportTLSStream:
		if d.inv.Credentials.TokenFile != "" || d.inv.Credentials.TokenEnv != "" {
			return nil, errors.New("a bearer token is not sent over the TLS stream (the client certificate identifies the caller): remove token-file/token-env")
		}
		u, err := url.Parse(d.inv.URL)
		if err != nil {
			return nil, err
		}
		addr := u.Host
		if u.Port() == "" {
			addr = net.JoinHostPort(u.Hostname(), "443")
		}
		return &sniffTransport{inner: tlsstream.ClientTransport{Addr: addr, Config: tlsCfg, DialTimeout: d.opts.ConnectTimeout}, onInit: d.onInit}, nil
	}
	token, err := d.inv.Credentials.Token()
	if err != nil {
		return nil, err
	}
	if token != "" && strings.HasPrefix(d.inv.URL, "http://") && !isLoopbackURL(d.inv.URL) {
		return nil, fmt.Errorf("refusing to send a bearer token in clear text to %s: use https", d.inv.URL)
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.TLSClientConfig = tlsCfg
	base.MaxIdleConnsPerHost = 4
	d.httpMu.Lock()
	if d.httpTrs != nil {
		d.httpTrs.CloseIdleConnections()
	}
	d.httpTrs = base
	d.httpMu.Unlock()
	rt := &httpRT{base: base, token: token, onInit: d.onInit}
	return &mcp.StreamableClientTransport{
		Endpoint:   d.inv.URL,
		HTTPClient: &http.Client{Transport: rt},
		// The supervisor reconnects (with a new session); the SDK's own
		// retries of a broken stream would only delay noticing the loss.
		MaxRetries: -1,
	}, nil
}

// close releases the HTTP connections of the last attempt.
func (d *dialer) close() {
	d.httpMu.Lock()
	defer d.httpMu.Unlock()
	if d.httpTrs != nil {
		d.httpTrs.CloseIdleConnections()
	}
}

func isLoopbackURL(s string) bool {
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	if u.Hostname() == "localhost" {
		return true
	}
	ip := net.ParseIP(u.Hostname())
	return ip != nil && ip.IsLoopback()
}

// httpRT adds the bearer token and reads the raw initialize result from
// the response to the initialize POST (the SDK's typed result drops
// capabilities.network).
type httpRT struct {
	base   http.RoundTripper
	token  string
	onInit func(json.RawMessage)
	done   bool // the initialize response was seen (one per transport)
	mu     sync.Mutex
}

func (t *httpRT) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+t.token)
	}
	t.mu.Lock()
	sniff := !t.done && r.Method == http.MethodPost && r.GetBody != nil && isInitialize(r)
	t.mu.Unlock()
	resp, err := t.base.RoundTrip(r)
	if err != nil || !sniff || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxSniffBytes))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	if raw := initializeResult(body, strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")); raw != nil {
		t.mu.Lock()
		t.done = true
		t.mu.Unlock()
		t.onInit(raw)
	}
	return resp, nil
}

// isInitialize tells whether the request's JSON-RPC body is an initialize.
func isInitialize(r *http.Request) bool {
	b, err := r.GetBody()
	if err != nil {
		return false
	}
	defer b.Close()
	var m struct {
		Method string `json:"method"`
	}
	data, err := io.ReadAll(io.LimitReader(b, maxSniffBytes))
	return err == nil && json.Unmarshal(data, &m) == nil && m.Method == "initialize"
}

// initializeResult extracts the result of the JSON-RPC response in body
// (one JSON object, or server-sent events whose data carry it).
func initializeResult(body []byte, sse bool) json.RawMessage {
	var msgs [][]byte
	if !sse {
		msgs = append(msgs, body)
	} else {
		var data []byte
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(make([]byte, 64<<10), maxSniffBytes)
		for sc.Scan() {
			line := sc.Bytes()
			switch {
			case bytes.HasPrefix(line, []byte("data:")):
				data = append(data, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
			case len(line) == 0 && len(data) > 0:
				msgs = append(msgs, data)
				data = nil
			}
		}
		if len(data) > 0 {
			msgs = append(msgs, data)
		}
	}
	for _, m := range msgs {
		var resp struct {
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(m, &resp) == nil && len(resp.Result) > 0 {
			return resp.Result
		}
	}
	return nil
}

// sniffTransport wraps a transport whose connection is a plain message
// stream (stdio, TLS stream, in-memory) to read the raw initialize result.
type sniffTransport struct {
	inner  mcp.Transport
	onInit func(json.RawMessage)
}

func (t *sniffTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &sniffConn{Connection: c, onInit: t.onInit}, nil
}

type sniffConn struct {
	mcp.Connection
	onInit func(json.RawMessage)
	mu     sync.Mutex
	initID *jsonrpc.ID // id of the initialize request, until its response
	done   bool
}

func (c *sniffConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if r, ok := m.(*jsonrpc.Request); ok && r.Method == "initialize" {
		c.mu.Lock()
		id := r.ID
		c.initID = &id
		c.mu.Unlock()
	}
	return c.Connection.Write(ctx, m)
}

func (c *sniffConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if err != nil {
		return m, err
	}
	if r, ok := m.(*jsonrpc.Response); ok {
		c.mu.Lock()
		hit := !c.done && c.initID != nil && *c.initID == r.ID && r.Error == nil
		if hit {
			c.done = true
		}
		c.mu.Unlock()
		if hit {
			c.onInit(r.Result)
		}
	}
	return m, nil
}
