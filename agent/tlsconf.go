package agent

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
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

// checkPeer verifies a peer's certificate chain against the CA (accepting a
// device certificate as a TLS client: devices call each other with the
// certificate they serve with) and, for a device whose TLV advertised a
// thumbprint, that the certificate is that one.
func (a *Agent) checkPeer(certs []*x509.Certificate) (peer, error) {
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
	p := peer{name: leaf.Subject.CommonName, role: RoleOperator, thumb: sha256.Sum256(leaf.Raw), cert: leaf}
	if slices.Contains(leaf.ExtKeyUsage, x509.ExtKeyUsageServerAuth) {
		p.role = RoleDevice
	}
	if p.name == "" {
		return peer{}, errors.New("agent: peer certificate has no common name (its identity)")
	}
	if p.role == RoleDevice {
		if want, ok := a.pin(p.name); ok && want != p.thumb {
			a.markUntrusted(p.name, "certificate thumbprint differs from its advertised TLV")
			return peer{}, &ThumbprintError{Peer: p.name, Advertised: want, Presented: p.thumb}
		}
	}
	return p, nil
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
// client certificate checked by checkPeer during the handshake.
func (a *Agent) serverTLS() *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{a.pair},
		ClientAuth:   tls.RequireAnyClientCert,
		VerifyConnection: func(cs tls.ConnectionState) error {
			_, err := a.checkPeer(cs.PeerCertificates)
			return err
		},
	}
}

// clientTLS is the configuration to call neighbour name, whose certificate
// must chain to the CA, be named name and have the advertised thumbprint.
func (a *Agent) clientTLS(name string, thumb [sha256.Size]byte) *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{a.pair},
		RootCAs:      a.roots,
		ServerName:   name,
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("agent: neighbour presented no certificate")
			}
			leaf := cs.PeerCertificates[0]
			if leaf.Subject.CommonName != name {
				return fmt.Errorf("agent: called %s but its certificate names %q", name, leaf.Subject.CommonName)
			}
			if got := sha256.Sum256(leaf.Raw); got != thumb {
				return &ThumbprintError{Peer: name, Advertised: thumb, Presented: got}
			}
			return nil
		},
	}
}

func parseCertPEM(b []byte) (*x509.Certificate, error) {
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, errors.New("agent: not a PEM certificate")
	}
	return x509.ParseCertificate(blk.Bytes)
}
