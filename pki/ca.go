package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/netmcp/netmcp/internal/atomicfile"
)

// Kind is the purpose of an issued certificate.
type Kind string

// Certificate kinds.
const (
	// KindServer is a device (MCP server) certificate: server authentication.
	KindServer Kind = "server"
	// KindClient is an MCP client certificate: client authentication.
	KindClient Kind = "client"
)

// Default lifetimes.
const (
	DefaultTTL   = 24 * time.Hour
	DefaultCATTL = 365 * 24 * time.Hour
)

// File names of a CA in a directory.
const (
	CACertFile = "ca.pem"
	CAKeyFile  = "ca.key"
)

// CA is a certificate authority able to issue certificates.
type CA struct {
	// Cert is the CA certificate.
	Cert *x509.Certificate
	// CertPEM is Cert in PEM form, the trust anchor to hand to peers.
	CertPEM []byte
	key     crypto.Signer
}

// NewCA creates a self-signed CA named name, valid for DefaultCATTL.
func NewCA(name string) (*CA, error) {
	now := time.Now()
	return NewCAWindow(name, now.Add(-5*time.Minute), now.Add(DefaultCATTL))
}

// NewCAWindow is NewCA with an explicit validity window, e.g. one that
// began long ago, to test certificates it issued in the past.
func NewCAWindow(name string, notBefore, notAfter time.Time) (*CA, error) {
	if name == "" {
		return nil, errors.New("pki: CA name is empty")
	}
	if !notAfter.After(notBefore) {
		return nil, fmt.Errorf("pki: NotAfter %s is not after NotBefore %s", notAfter, notBefore)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("pki: generating CA key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          randomSerial(),
		Subject:               pkix.Name{CommonName: name, Organization: []string{"netmcp lab"}},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("pki: self-signing CA: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{Cert: cert, CertPEM: pemBlock("CERTIFICATE", der), key: key}, nil
}

// Issue returns a certificate and private key (PEM) for name, valid from
// now for ttl (DefaultTTL when ttl <= 0).
func (ca *CA) Issue(name string, kind Kind, ttl time.Duration) (certPEM, keyPEM []byte, err error) {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	now := time.Now()
	return ca.IssueWindow(name, kind, now.Add(-time.Minute), now.Add(ttl))
}

// IssueWindow is Issue with an explicit validity window, e.g. one already
// past to test expiry handling.
func (ca *CA) IssueWindow(name string, kind Kind, notBefore, notAfter time.Time) (certPEM, keyPEM []byte, err error) {
	if name == "" {
		return nil, nil, errors.New("pki: certificate name is empty")
	}
	if !notAfter.After(notBefore) {
		return nil, nil, fmt.Errorf("pki: NotAfter %s is not after NotBefore %s", notAfter, notBefore)
	}
	var eku x509.ExtKeyUsage
	switch kind {
	case KindServer:
		eku = x509.ExtKeyUsageServerAuth
	case KindClient:
		eku = x509.ExtKeyUsageClientAuth
	default:
		return nil, nil, fmt.Errorf("pki: unknown certificate kind %q (want %q or %q)", kind, KindServer, KindClient)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("pki: generating key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: randomSerial(),
		Subject:      pkix.Name{CommonName: name, Organization: []string{"netmcp lab"}},
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{eku},
	}
	if kind == KindServer {
		tmpl.DNSNames = []string{"localhost"}
		tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	}
	if ip := net.ParseIP(name); ip != nil {
		tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
	} else if name != "localhost" && validDNSName(name) {
		tmpl.DNSNames = append(tmpl.DNSNames, name)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, key.Public(), ca.key)
	if err != nil {
		return nil, nil, fmt.Errorf("pki: signing certificate for %q: %w", name, err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pemBlock("CERTIFICATE", der), pemBlock("PRIVATE KEY", keyDER), nil
}

// Save writes the CA to dir as ca.pem (0644) and ca.key (0600), creating
// dir (0700) if needed. It refuses to overwrite an existing key.
func (ca *CA) Save(dir string) error {
	keyDER, err := x509.MarshalPKCS8PrivateKey(ca.key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("pki: %w", err)
	}
	if _, err := os.Stat(filepath.Join(dir, CAKeyFile)); err == nil {
		return fmt.Errorf("pki: %s already exists; refusing to overwrite a CA key", filepath.Join(dir, CAKeyFile))
	}
	if err := WriteFile(filepath.Join(dir, CAKeyFile), pemBlock("PRIVATE KEY", keyDER), 0o600); err != nil {
		return err
	}
	return WriteFile(filepath.Join(dir, CACertFile), ca.CertPEM, 0o644)
}

// LoadCA reads a CA saved by Save from dir.
func LoadCA(dir string) (*CA, error) {
	certPEM, err := os.ReadFile(filepath.Join(dir, CACertFile))
	if err != nil {
		return nil, fmt.Errorf("pki: %w (run `netmcp pki init` first)", err)
	}
	keyPEM, err := os.ReadFile(filepath.Join(dir, CAKeyFile))
	if err != nil {
		return nil, fmt.Errorf("pki: %w", err)
	}
	cert, err := parseCert(certPEM)
	if err != nil {
		return nil, err
	}
	if !cert.IsCA {
		return nil, fmt.Errorf("pki: %s is not a CA certificate", filepath.Join(dir, CACertFile))
	}
	key, err := parseKey(keyPEM)
	if err != nil {
		return nil, err
	}
	return &CA{Cert: cert, CertPEM: certPEM, key: key}, nil
}

// WriteFile writes data to path atomically and durably (see
// atomicfile.WriteFile) with the given mode.
func WriteFile(path string, data []byte, mode os.FileMode) error {
	if err := atomicfile.WriteFile(path, data, mode); err != nil {
		return fmt.Errorf("pki: %w", err)
	}
	return nil
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

func randomSerial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return n.Add(n, big.NewInt(1))
}

func validDNSName(s string) bool {
	if len(s) > 253 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '-' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}

func parseCert(certPEM []byte) (*x509.Certificate, error) {
	b, _ := pem.Decode(certPEM)
	if b == nil || b.Type != "CERTIFICATE" {
		return nil, errors.New("pki: no PEM CERTIFICATE block")
	}
	return x509.ParseCertificate(b.Bytes)
}

func parseKey(keyPEM []byte) (crypto.Signer, error) {
	b, _ := pem.Decode(keyPEM)
	if b == nil {
		return nil, errors.New("pki: no PEM private key block")
	}
	k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		if ek, err2 := x509.ParseECPrivateKey(b.Bytes); err2 == nil {
			return ek, nil
		}
		return nil, fmt.Errorf("pki: parsing private key: %w", err)
	}
	s, ok := k.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("pki: private key of type %T cannot sign", k)
	}
	return s, nil
}
