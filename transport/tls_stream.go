package transport

import (
	"context"
	"crypto/tls"
	"net"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/transport/tlsstream"
)

// TLSStreamOptions configure ServeTLSStream.
type TLSStreamOptions struct {
	// MaxFrameSize bounds frames in both directions; 0 means
	// tlsstream.DefaultMaxFrameSize.
	MaxFrameSize int
	// HandshakeTimeout bounds each TLS handshake; 0 means
	// tlsstream.DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
	// FirstFrameTimeout bounds the time from the handshake to the client's
	// first frame; 0 means tlsstream.DefaultFirstFrameTimeout.
	FirstFrameTimeout time.Duration
	// FrameTimeout bounds each frame from its first byte to its last; 0
	// means tlsstream.DefaultFrameTimeout.
	FrameTimeout time.Duration
	// OnAcceptError, when set, is told of every failed Accept (retried
	// after a backoff; it never ends ServeTLSStream).
	OnAcceptError func(err error, retryIn time.Duration)
	// Connected is called after a successful handshake with the session id
	// the MCP session will carry and the verified TLS state (peer
	// certificates); an error refuses the connection. The returned function,
	// when not nil, is called when the session ends. Use it to bind the
	// session to the identity of the client certificate.
	Connected func(sessionID string, st tls.ConnectionState) (end func(), err error)
	// OnRefused, when set, is told of every connection refused during the
	// handshake (bad or missing certificate, wrong ALPN, old TLS version)
	// or by Connected.
	OnRefused func(remote net.Addr, err error)
}

// ServeTLSStream serves srv over the MCP-NET TLS stream (MCP-NET 8.1) on
// ln: each accepted connection completes a TLS 1.3 handshake that must
// negotiate ALPN "mcp" (handshakes run concurrently), then carries one MCP
// session of length-prefixed JSON-RPC frames (tlsstream.Serve). Every
// connection shares srv. Handshakes and the time to the first frame are
// bounded; a failed Accept is retried, never fatal. Wrap ln with
// GuardListener to bound connections per source. When ctx is done, ln and every session are closed
// and ServeTLSStream returns nil after they end.
func ServeTLSStream(ctx context.Context, ln net.Listener, cfg *tls.Config, srv *mcp.Server, opts TLSStreamOptions) error {
	l, err := tlsstream.NewListener(ln, cfg)
	if err != nil {
		return err
	}
	l.MaxFrameSize, l.HandshakeTimeout, l.OnRefused = opts.MaxFrameSize, opts.HandshakeTimeout, opts.OnRefused
	l.FirstFrameTimeout, l.FrameTimeout, l.OnAcceptError = opts.FirstFrameTimeout, opts.FrameTimeout, opts.OnAcceptError
	return tlsstream.Serve(ctx, l, func(t *tlsstream.ConnTransport) (*mcp.Server, func(), error) {
		if opts.Connected == nil {
			return srv, nil, nil
		}
		end, err := opts.Connected(t.SessionID(), t.ConnectionState())
		return srv, end, err
	})
}
