package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
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
	// Connected is called after a successful handshake with the session id
	// the MCP session will carry and the verified TLS state (peer
	// certificates); an error refuses the connection. The returned function,
	// when not nil, is called when the session ends. Use it to bind the
	// session to the identity of the client certificate.
	Connected func(sessionID string, st tls.ConnectionState) (end func(), err error)
	// OnRefused, when set, is told of every connection refused during the
	// handshake (bad or missing certificate, wrong ALPN, old TLS version).
	OnRefused func(remote net.Addr, err error)
}

// ServeTLSStream serves srv over the MCP-NET TLS stream (MCP-NET 8.1) on
// ln: each accepted connection completes a TLS 1.3 handshake that must
// negotiate ALPN "mcp" (handshakes run concurrently), then carries one MCP
// session of length-prefixed JSON-RPC frames (package tlsstream). Unlike
// tlsstream.Serve, every connection shares srv. When ctx is done, ln and
// every session are closed and ServeTLSStream returns nil after they end.
func ServeTLSStream(ctx context.Context, ln net.Listener, cfg *tls.Config, srv *mcp.Server, opts TLSStreamOptions) error {
	if cfg == nil || (len(cfg.Certificates) == 0 && cfg.GetCertificate == nil && cfg.GetConfigForClient == nil) {
		return errors.New("transport: TLS stream: the TLS config has no server certificate")
	}
	c := cfg.Clone()
	if c.MinVersion < tls.VersionTLS13 {
		c.MinVersion = tls.VersionTLS13
	}
	c.NextProtos = []string{tlsstream.ALPN}
	timeout := opts.HandshakeTimeout
	if timeout == 0 {
		timeout = tlsstream.DefaultHandshakeTimeout
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		nc, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("transport: TLS stream: accept: %w", err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			serveTLSStreamConn(ctx, tls.Server(nc, c), srv, timeout, opts)
		}()
	}
}

// serveTLSStreamConn runs the handshake and the session of one connection.
func serveTLSStreamConn(ctx context.Context, tc *tls.Conn, srv *mcp.Server, timeout time.Duration, opts TLSStreamOptions) {
	refuse := func(err error) {
		tc.Close()
		if opts.OnRefused != nil {
			opts.OnRefused(tc.RemoteAddr(), err)
		}
	}
	hctx, cancel := context.WithTimeout(ctx, timeout)
	err := tc.HandshakeContext(hctx)
	cancel()
	if err != nil {
		refuse(fmt.Errorf("tlsstream: TLS handshake with %s: %w", tc.RemoteAddr(), err))
		return
	}
	st := tc.ConnectionState()
	if st.NegotiatedProtocol != tlsstream.ALPN {
		refuse(&tlsstream.ALPNError{Negotiated: st.NegotiatedProtocol})
		return
	}
	t := tlsstream.ServerConn(tc)
	t.MaxFrameSize = opts.MaxFrameSize
	var end func()
	if opts.Connected != nil {
		if end, err = opts.Connected(t.SessionID(), st); err != nil {
			refuse(err)
			return
		}
	}
	if end != nil {
		defer end()
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
