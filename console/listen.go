package console

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"
)

// Off is the address that turns a command's console off (--console=off).
const Off = "off"

// Listen serves a new console of opts over HTTP on addr (host:port; port
// 0 picks a free one) until Close, and sets opts.BaseURL, when empty, to
// the address it listens on, so that LoginURL is the URL to print. With
// opts.TLS it serves HTTPS (client certificates asked for, not required).
// Unless opts.AllowRemote is set, addr must be a loopback address or
// localhost.
func Listen(addr string, opts Options) (*Console, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("console: address %q: want HOST:PORT", addr)
	}
	if !opts.AllowRemote && !loopbackHost(host) {
		return nil, fmt.Errorf("console: %s is not a loopback address: the console serves loopback only", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("console: %w", err)
	}
	scheme := "http"
	if opts.TLS != nil {
		cfg := opts.TLS.Clone()
		if cfg.ClientAuth == tls.RequireAndVerifyClientCert {
			cfg.ClientAuth = tls.VerifyClientCertIfGiven
		}
		cfg.NextProtos = []string{"http/1.1"} // server-sent events
		ln, scheme = tls.NewListener(ln, cfg), "https"
	}
	if opts.BaseURL == "" {
		opts.BaseURL = scheme + "://" + ln.Addr().String()
	}
	c, err := New(opts)
	if err != nil {
		ln.Close()
		return nil, err
	}
	// A refused TLS handshake (a scanner, a browser that does not trust
	// the certificate yet) is the server's business, not the terminal's.
	c.hs = &http.Server{Handler: c.Handler(), ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(c.log.Handler(), slog.LevelDebug)}
	c.served = make(chan struct{})
	go func() {
		defer close(c.served)
		if err := c.hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			c.log.Error("console: serving stopped", "err", err)
		}
	}()
	return c, nil
}

// loopbackHost tells whether host is a loopback address or localhost.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
