package tlsstream

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ALPN is the application protocol both ends must negotiate (MCP-NET 8.1).
const ALPN = "mcp"

// DefaultHandshakeTimeout bounds a server-side TLS handshake.
const DefaultHandshakeTimeout = 10 * time.Second

// DefaultFirstFrameTimeout bounds, on the server side, the time from the
// end of the handshake to the end of the client's first frame.
const DefaultFirstFrameTimeout = 30 * time.Second

// DefaultFrameTimeout bounds, on both sides, the time from a frame's first
// byte to its last. A connection may idle between frames as long as it
// likes, but a peer that announces a frame and then stalls (or trickles it)
// is disconnected when this runs out.
const DefaultFrameTimeout = 30 * time.Second

// frameTimeout resolves a FrameTimeout field: 0 means DefaultFrameTimeout,
// negative means no bound.
func frameTimeout(d time.Duration) time.Duration {
	if d == 0 {
		return DefaultFrameTimeout
	}
	return max(d, 0)
}

// Backoff after a failed Accept, as net/http's Server.Serve does.
const (
	acceptBackoffMin = 5 * time.Millisecond
	acceptBackoffMax = time.Second
)

// ALPNError reports a peer that did not negotiate ALPN "mcp".
type ALPNError struct {
	// Negotiated is the protocol the handshake produced ("" for none).
	Negotiated string
}

// Error implements the error interface.
func (e *ALPNError) Error() string {
	if e.Negotiated == "" {
		return `tlsstream: peer negotiated no ALPN protocol; "mcp" is required`
	}
	return fmt.Sprintf(`tlsstream: peer negotiated ALPN protocol %q; "mcp" is required`, e.Negotiated)
}

// hardenConfig returns a clone of cfg with TLS 1.3 minimum and ALPN "mcp" only.
func hardenConfig(cfg *tls.Config) *tls.Config {
	var c *tls.Config
	if cfg == nil {
		c = &tls.Config{}
	} else {
		c = cfg.Clone()
	}
	if c.MinVersion < tls.VersionTLS13 {
		c.MinVersion = tls.VersionTLS13
	}
	c.NextProtos = []string{ALPN}
	return c
}

// handshake completes the TLS handshake and checks ALPN.
func handshake(ctx context.Context, tc *tls.Conn) (tls.ConnectionState, error) {
	if err := tc.HandshakeContext(ctx); err != nil {
		return tls.ConnectionState{}, fmt.Errorf("tlsstream: TLS handshake with %s: %w", tc.RemoteAddr(), err)
	}
	st := tc.ConnectionState()
	if st.NegotiatedProtocol != ALPN {
		return st, &ALPNError{Negotiated: st.NegotiatedProtocol}
	}
	return st, nil
}

// ConnTransport is an mcp.Transport over one accepted (server side)
// connection. Connect may be called once.
type ConnTransport struct {
	// MaxFrameSize bounds inbound and outbound frames; 0 means DefaultMaxFrameSize.
	MaxFrameSize int
	// FirstFrameTimeout, when positive, bounds the time from Connect to
	// the end of the peer's first frame; a peer that sends nothing (or too
	// little) in time is disconnected. ServerConn leaves it zero (no
	// bound); Listener sets it.
	FirstFrameTimeout time.Duration
	// FrameTimeout bounds each frame from its first byte to its last; 0
	// means DefaultFrameTimeout, negative means no bound.
	FrameTimeout time.Duration

	nc        net.Conn
	session   string
	mu        sync.Mutex
	connected bool
}

// ServerConn returns the server-side transport for conn, usually a
// *tls.Conn whose handshake Connect completes (and whose ALPN it checks);
// any other net.Conn is framed as is, for tests and TLS-terminating
// proxies. Each ServerConn gets a random session id, the MCP session's ID.
func ServerConn(conn net.Conn) *ConnTransport {
	return &ConnTransport{nc: conn, session: newSessionID()}
}

// SessionID returns the id the MCP session will carry.
func (t *ConnTransport) SessionID() string { return t.session }

// ConnectionState returns the TLS state of the connection (zero when it is not TLS).
func (t *ConnTransport) ConnectionState() tls.ConnectionState {
	if tc, ok := t.nc.(*tls.Conn); ok {
		return tc.ConnectionState()
	}
	return tls.ConnectionState{}
}

// RemoteAddr returns the peer's address.
func (t *ConnTransport) RemoteAddr() net.Addr { return t.nc.RemoteAddr() }

// Connect implements mcp.Transport.
func (t *ConnTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.connected {
		return nil, errors.New("tlsstream: transport already connected")
	}
	t.connected = true
	if tc, ok := t.nc.(*tls.Conn); ok {
		if _, err := handshake(ctx, tc); err != nil {
			tc.Close()
			return nil, err
		}
	}
	return newFrameConn(t.nc, t.MaxFrameSize, t.session, t.FirstFrameTimeout, frameTimeout(t.FrameTimeout)), nil
}

// ClientTransport is the client-side mcp.Transport: it dials Addr, runs a
// TLS 1.3 handshake offering only ALPN "mcp", and frames messages.
type ClientTransport struct {
	// Addr is host:port of the MCP-NET server.
	Addr string
	// Config carries roots, client certificate and ServerName; it is cloned
	// and forced to TLS 1.3 and ALPN "mcp". nil means system roots.
	Config *tls.Config
	// MaxFrameSize bounds frames; 0 means DefaultMaxFrameSize.
	MaxFrameSize int
	// DialTimeout bounds TCP connect plus handshake; 0 means 30 s.
	DialTimeout time.Duration
	// FrameTimeout bounds each frame from the server from its first byte to
	// its last; 0 means DefaultFrameTimeout, negative means no bound.
	FrameTimeout time.Duration
	// NetDialer, when set, dials the TCP connection (e.g. from a chosen
	// local address); nil means a zero net.Dialer.
	NetDialer *net.Dialer
}

// Connect implements mcp.Transport.
func (t ClientTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	timeout := t.DialTimeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	cfg := hardenConfig(t.Config)
	if cfg.ServerName == "" {
		if host, _, err := net.SplitHostPort(t.Addr); err == nil {
			cfg.ServerName = host
		}
	}
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	d := &tls.Dialer{NetDialer: t.NetDialer, Config: cfg}
	nc, err := d.DialContext(dctx, "tcp", t.Addr)
	if err != nil {
		return nil, fmt.Errorf("tlsstream: dial %s: %w", t.Addr, err)
	}
	tc := nc.(*tls.Conn)
	if _, err := handshake(dctx, tc); err != nil {
		tc.Close()
		return nil, err
	}
	return newFrameConn(tc, t.MaxFrameSize, "", 0, frameTimeout(t.FrameTimeout)), nil
}

// Listener accepts MCP-NET TLS stream connections.
type Listener struct {
	// MaxFrameSize is copied into each accepted transport; 0 means DefaultMaxFrameSize.
	MaxFrameSize int
	// HandshakeTimeout bounds each handshake; 0 means DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
	// FirstFrameTimeout bounds the time from the end of the handshake to
	// the end of the client's first frame; 0 means DefaultFirstFrameTimeout,
	// negative means no bound.
	FirstFrameTimeout time.Duration
	// FrameTimeout is copied into each accepted transport: it bounds each
	// frame from its first byte to its last; 0 means DefaultFrameTimeout,
	// negative means no bound.
	FrameTimeout time.Duration
	// OnRefused, when set, is told of every connection refused during the
	// handshake (bad certificate, wrong ALPN, old TLS version...).
	OnRefused func(remote net.Addr, err error)
	// OnAcceptError, when set, is told of every failed Accept of the TCP
	// listener (too many open files...) and of the delay before the next
	// try. Such failures never end Accept or Serve: they back off from
	// 5 ms doubling up to 1 s, as net/http does.
	OnAcceptError func(err error, retryIn time.Duration)

	inner net.Listener
	cfg   *tls.Config
}

// Listen listens on the TCP address addr with cfg, which must hold a
// server certificate (Certificates or GetCertificate). The config is cloned
// and forced to TLS 1.3 and ALPN "mcp"; for mutual TLS set ClientAuth and
// ClientCAs in cfg.
func Listen(addr string, cfg *tls.Config) (*Listener, error) {
	if err := checkServerConfig(cfg); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("tlsstream: listen: %w", err)
	}
	return &Listener{inner: ln, cfg: hardenConfig(cfg)}, nil
}

// NewListener is Listen over ln, a TCP listener the caller already bound.
func NewListener(ln net.Listener, cfg *tls.Config) (*Listener, error) {
	if err := checkServerConfig(cfg); err != nil {
		return nil, err
	}
	return &Listener{inner: ln, cfg: hardenConfig(cfg)}, nil
}

// checkServerConfig refuses a config without a server certificate.
func checkServerConfig(cfg *tls.Config) error {
	if cfg == nil || (len(cfg.Certificates) == 0 && cfg.GetCertificate == nil && cfg.GetConfigForClient == nil) {
		return errors.New("tlsstream: listen: the TLS config has no server certificate")
	}
	return nil
}

// Addr returns the listening address.
func (l *Listener) Addr() net.Addr { return l.inner.Addr() }

// Close stops listening; established sessions are not affected.
func (l *Listener) Close() error { return l.inner.Close() }

// acceptRaw returns the next TCP connection wrapped for TLS, not yet
// handshaken. A failed Accept is retried after a backoff; only a closed
// listener ends it (with an error wrapping net.ErrClosed).
func (l *Listener) acceptRaw() (*tls.Conn, error) {
	var delay time.Duration
	for {
		nc, err := l.inner.Accept()
		if err == nil {
			return tls.Server(nc, l.cfg), nil
		}
		if errors.Is(err, net.ErrClosed) {
			return nil, err
		}
		delay = min(max(2*delay, acceptBackoffMin), acceptBackoffMax)
		if l.OnAcceptError != nil {
			l.OnAcceptError(err, delay)
		}
		time.Sleep(delay)
	}
}

// verify runs the handshake with the listener's timeout and reports refusals.
func (l *Listener) verify(ctx context.Context, tc *tls.Conn) (*ConnTransport, error) {
	timeout := l.HandshakeTimeout
	if timeout == 0 {
		timeout = DefaultHandshakeTimeout
	}
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if _, err := handshake(hctx, tc); err != nil {
		tc.Close()
		if l.OnRefused != nil {
			l.OnRefused(tc.RemoteAddr(), err)
		}
		return nil, err
	}
	t := ServerConn(tc)
	t.MaxFrameSize = l.MaxFrameSize
	t.FirstFrameTimeout = l.FirstFrameTimeout
	t.FrameTimeout = l.FrameTimeout
	if t.FirstFrameTimeout == 0 {
		t.FirstFrameTimeout = DefaultFirstFrameTimeout
	}
	return t, nil
}

// Accept waits for the next connection whose TLS handshake succeeds with
// ALPN "mcp" and returns its transport, ready for mcp.Server.Connect.
// Refused connections are closed, reported to OnRefused and skipped; Accept
// returns an error only when the listener is closed (other Accept failures
// are retried after a backoff, see OnAcceptError). Handshakes
// run one at a time here; Serve runs them concurrently.
func (l *Listener) Accept() (*ConnTransport, error) {
	for {
		tc, err := l.acceptRaw()
		if err != nil {
			return nil, err
		}
		if t, err := l.verify(context.Background(), tc); err == nil {
			return t, nil
		}
	}
}

// Serve accepts connections on l until ctx is done or l is closed, and runs
// one MCP session per connection whose handshake succeeds. newServer is
// given the connection's transport (its SessionID and verified TLS
// ConnectionState: peer certificates, ALPN) and returns the server for the
// session, which may be one server shared by every connection, and, when
// not nil, a function called when the session ends. An error (or a nil
// server) refuses the connection and is reported to l.OnRefused. A failed
// Accept (too many open files...) is retried after a backoff and reported
// to l.OnAcceptError; it never ends Serve. When ctx is done, l and every
// session are closed and Serve returns nil after they end; when l is
// closed otherwise, Serve returns an error after the sessions end.
func Serve(ctx context.Context, l *Listener, newServer func(*ConnTransport) (srv *mcp.Server, end func(), err error)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { l.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		tc, err := l.acceptRaw()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("tlsstream: accept: %w", err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.serveConn(ctx, tc, newServer)
		}()
	}
}

// serveConn runs the handshake and the session of one connection.
func (l *Listener) serveConn(ctx context.Context, tc *tls.Conn, newServer func(*ConnTransport) (*mcp.Server, func(), error)) {
	t, err := l.verify(ctx, tc)
	if err != nil {
		return
	}
	srv, end, err := newServer(t)
	if err == nil && end != nil {
		defer end()
	}
	if err == nil && srv == nil {
		err = errors.New("tlsstream: no MCP server for the connection")
	}
	if err != nil {
		tc.Close()
		if l.OnRefused != nil {
			l.OnRefused(tc.RemoteAddr(), err)
		}
		return
	}
	ss, err := srv.Connect(ctx, t, nil)
	if err != nil {
		tc.Close()
		return
	}
	stop := context.AfterFunc(ctx, func() { ss.Close() })
	defer stop()
	_ = ss.Wait()
}
