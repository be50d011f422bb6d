package transport

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"

	"github.com/netmcp/netmcp/pki"
)

// LoadServerTLS reads a server certificate and key (PEM files) and returns
// a TLS 1.3 server configuration. With clientCAFile set, clients must
// present a certificate signed by one of its CAs (mutual TLS,
// RequireAndVerifyClientCert); the verified certificate names the caller.
func LoadServerTLS(certFile, keyFile, clientCAFile string) (*tls.Config, error) {
	if certFile == "" || keyFile == "" {
		return nil, errors.New("transport: TLS needs both a certificate and a key file")
	}
	cert, err := os.ReadFile(certFile)
	if err != nil {
		return nil, fmt.Errorf("transport: TLS certificate: %w", err)
	}
	key, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("transport: TLS key: %w", err)
	}
	var ca []byte
	if clientCAFile != "" {
		if ca, err = os.ReadFile(clientCAFile); err != nil {
			return nil, fmt.Errorf("transport: client CA: %w", err)
		}
	}
	cfg, err := pki.ServerTLSConfig(cert, key, ca)
	if err != nil {
		return nil, fmt.Errorf("transport: %w", err)
	}
	return cfg, nil
}

// TLSListener returns ln wrapped for Streamable HTTP over TLS: a clone of
// cfg with TLS 1.3 as the minimum and ALPN http/1.1 (the SSE streams of
// Streamable HTTP are served over HTTP/1.1).
func TLSListener(ln net.Listener, cfg *tls.Config) net.Listener {
	c := cfg.Clone()
	if c.MinVersion < tls.VersionTLS13 {
		c.MinVersion = tls.VersionTLS13
	}
	c.NextProtos = []string{"http/1.1"}
	return tls.NewListener(ln, c)
}
