package agent

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/netmcp/netmcp/pki"
)

// Role is what a peer certificate makes its holder.
type Role string

// Roles of a peer.
const (
	// RoleDevice is a neighbour agent: a device certificate (server
	// authentication, as netmcp pki issue --kind server makes).
	RoleDevice Role = "device"
	// RoleOperator is a person or controller: a client-only certificate.
	RoleOperator Role = "operator"
)

// peer is an authenticated TLS peer.
type peer struct {
	name  string
	role  Role
	thumb [sha256.Size]byte
	cert  *x509.Certificate
}

// verifyPeer verifies a peer's certificate chain against the CA (accepting
// a device certificate as a TLS client: devices call each other with the
// certificate they serve with) and returns who it names. It judges
// nothing else and marks no one: it runs inside the handshake, before the
// peer has proved it holds the certificate's key.
func (a *Agent) verifyPeer(certs []*x509.Certificate) (peer, error) {
	if len(certs) == 0 {
		return peer{}, errors.New("agent: peer presented no certificate")
	}
	leaf := certs[0]
	inter := x509.NewCertPool()
	for _, c := range certs[1:] {
		inter.AddCert(c)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: a.roots, Intermediates: inter,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth}}); err != nil {
		return peer{}, fmt.Errorf("agent: peer certificate: %w", err)
	}
	return peerOf(leaf)
}

// peerOf is the peer a certificate names: its common name, and its role
// by kind (a device certificate is a neighbour, any other an operator).
func peerOf(leaf *x509.Certificate) (peer, error) {
	p := peer{name: leaf.Subject.CommonName, role: RoleOperator, thumb: sha256.Sum256(leaf.Raw), cert: leaf}
	if pki.IsDevice(leaf) {
		p.role = RoleDevice
	}
	if p.name == "" {
		return peer{}, errors.New("agent: peer certificate has no common name (its identity)")
	}
	return p, nil
}

// judgePin checks, once a handshake has completed (so the peer proved it
// holds the key of the certificate it presented), that a device whose TLV
// this agent heard presented the certificate the TLV advertised; one that
// did not is marked untrusted.
func (a *Agent) judgePin(p peer) error {
	if p.role != RoleDevice {
		return nil
	}
	if want, ok := a.pin(p.name); ok && want != p.thumb {
		err := &ThumbprintError{Peer: p.name, Advertised: want, Presented: p.thumb}
		a.markUntrusted(p.name, "certificate thumbprint differs from its advertised TLV")
		return err
	}
	return nil
}

// pinned serves only requests whose TLS handshake has completed, from a
// peer judgePin accepts; others get 403 and their connection is closed.
func (a *Agent) pinned(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var err error
		if r.TLS == nil || !r.TLS.HandshakeComplete || len(r.TLS.PeerCertificates) == 0 {
			err = errors.New("agent: mutual TLS required")
		} else {
			var p peer
			if p, err = peerOf(r.TLS.PeerCertificates[0]); err == nil {
				err = a.judgePin(p)
			}
		}
		if err != nil {
			a.log.Warn("d2d request refused", "err", err)
			w.Header().Set("Connection", "close")
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ThumbprintError is a peer whose certificate is not the one its LLDP TLV
// advertised.
type ThumbprintError struct {
	Peer                  string
	Advertised, Presented [sha256.Size]byte
}

// Error names the peer and both thumbprints (their first 8 bytes).
func (e *ThumbprintError) Error() string {
	return fmt.Sprintf("agent: %s presented certificate %s but advertised %s in its LLDP TLV: refused",
		e.Peer, hex.EncodeToString(e.Presented[:8]), hex.EncodeToString(e.Advertised[:8]))
}

// serverTLS is the listener's TLS 1.3 configuration: mutual TLS, every
// client certificate's chain checked by verifyPeer during the handshake
// (the advertised thumbprint is judged after it, by pinned).
func (a *Agent) serverTLS() *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{a.pair},
		ClientAuth:   tls.RequireAnyClientCert,
		VerifyConnection: func(cs tls.ConnectionState) error {
			_, err := a.verifyPeer(cs.PeerCertificates)
			return err
		},
	}
}

// handshakeTimeout bounds the TLS handshake with a neighbour.
const handshakeTimeout = 10 * time.Second

// clientTLS is the configuration to call neighbour name, whose certificate
// must chain to the CA and be named name (its thumbprint is judged once
// the handshake has completed: dialTLS).
func (a *Agent) clientTLS(name string) *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{a.pair},
		RootCAs:      a.roots,
		ServerName:   name,
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("agent: neighbour presented no certificate")
			}
			if cn := cs.PeerCertificates[0].Subject.CommonName; cn != name {
				return fmt.Errorf("agent: called %s but its certificate names %q", name, cn)
			}
			return nil
		},
	}
}

// dialTLS returns the TLS dialler of neighbour name: it completes the
// handshake (the neighbour proves it holds the key of the certificate it
// presents), and only then compares the certificate with the thumbprint
// its TLV advertised, a mismatch being a *ThumbprintError. A handshake
// that fails judges no one.
func (a *Agent) dialTLS(name string, thumb [sha256.Size]byte) func(ctx context.Context, network, addr string) (net.Conn, error) {
	cfg := a.clientTLS(name)
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		dial := a.cfg.Dial
		if dial == nil {
			dial = (&net.Dialer{}).DialContext
		}
		raw, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		tc := tls.Client(raw, cfg)
		hctx, cancel := context.WithTimeout(ctx, handshakeTimeout)
		defer cancel()
		if err := tc.HandshakeContext(hctx); err != nil {
			raw.Close()
			return nil, err
		}
		if got := sha256.Sum256(tc.ConnectionState().PeerCertificates[0].Raw); got != thumb {
			tc.Close()
			return nil, &ThumbprintError{Peer: name, Advertised: thumb, Presented: got}
		}
		return tc, nil
	}
}

func parseCertPEM(b []byte) (*x509.Certificate, error) {
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, errors.New("agent: not a PEM certificate")
	}
	return x509.ParseCertificate(blk.Bytes)
}
