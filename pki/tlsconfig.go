package pki

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
)

// ServerTLSConfig returns a TLS 1.3 server configuration presenting
// certPEM/keyPEM. With clientCAPEM non-empty, clients must present a
// certificate signed by one of those CAs (mutual TLS,
// RequireAndVerifyClientCert).
func ServerTLSConfig(certPEM, keyPEM, clientCAPEM []byte) (*tls.Config, error) {
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("pki: server key pair: %w", err)
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{pair}}
	if len(clientCAPEM) > 0 {
		pool, err := certPool(clientCAPEM)
		if err != nil {
			return nil, fmt.Errorf("pki: client CA: %w", err)
		}
		cfg.ClientCAs = pool
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}

// ClientTLSConfig returns a TLS 1.3 client configuration trusting caPEM
// and, when certPEM/keyPEM are given, presenting that client certificate.
// serverName, when set, is the name checked in the server certificate.
func ClientTLSConfig(caPEM, certPEM, keyPEM []byte, serverName string) (*tls.Config, error) {
	pool, err := certPool(caPEM)
	if err != nil {
		return nil, fmt.Errorf("pki: server CA: %w", err)
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS13, RootCAs: pool, ServerName: serverName}
	if len(certPEM) > 0 || len(keyPEM) > 0 {
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("pki: client key pair: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

func certPool(caPEM []byte) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, errors.New("no certificate found in the CA PEM")
	}
	return pool, nil
}
