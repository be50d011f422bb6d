package sign

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"time"

	"github.com/netmcp/netmcp/pki"
)

// Binding ties a signer's Ed25519 key to its X.509 device certificate: the
// certificate's own key signs the identity and the Ed25519 public key, so
// anyone trusting the CA can check a report's signatures offline.
type Binding struct {
	// Identity is the signer's identity, the certificate's common name.
	Identity string `json:"identity"`
	// PublicKey is the Ed25519 public key, base64.
	PublicKey string `json:"publicKey"`
	// Cert is the device certificate, PEM.
	Cert string `json:"cert"`
	// Sig is the certificate key's signature (ECDSA P-256 SHA-256, ASN.1,
	// base64) of bindingBytes.
	Sig string `json:"sig"`
}

const bindingDomain = "netmcp-d2d-key-v1\x00"

func bindingDigest(id string, pub ed25519.PublicKey) []byte {
	h := sha256.New()
	h.Write([]byte(bindingDomain))
	h.Write([]byte(id))
	h.Write([]byte{0})
	h.Write(pub)
	return h.Sum(nil)
}

// Bind returns the binding of s's key to certPEM, signed by certKey (the
// certificate's private key; ECDSA as netmcp pki issues).
func (s *Signer) Bind(certPEM []byte, certKey crypto.Signer) (Binding, error) {
	sig, err := certKey.Sign(rand.Reader, bindingDigest(s.id, s.PublicKey()), crypto.SHA256)
	if err != nil {
		return Binding{}, fmt.Errorf("sign: binding key to certificate: %w", err)
	}
	return Binding{Identity: s.id, PublicKey: base64.StdEncoding.EncodeToString(s.PublicKey()),
		Cert: string(certPEM), Sig: base64.StdEncoding.EncodeToString(sig)}, nil
}

// MaxClockSkew is how far a verifier's clock may be from a signer's: a
// certificate is taken as valid from MaxClockSkew before its NotBefore to
// MaxClockSkew after its NotAfter, and no further.
const MaxClockSkew = 5 * time.Minute

// Verify checks b against the CA roots and returns the bound Ed25519 key:
// the certificate is a device certificate (server authentication, as
// `netmcp pki issue --kind server` makes; an operator's client-only
// certificate signs nothing of D2D), chains to roots, is valid at time at
// (give or take MaxClockSkew; callers pass the time of verification, never
// a time the signer chose), and is named b.Identity; its key signed the
// binding.
func (b Binding) Verify(roots *x509.CertPool, at time.Time) (ed25519.PublicKey, error) {
	blk, _ := pem.Decode([]byte(b.Cert))
	if blk == nil {
		return nil, errors.New("sign: binding certificate is not PEM")
	}
	cert, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("sign: binding certificate: %w", err)
	}
	if !pki.IsDevice(cert) {
		return nil, fmt.Errorf("sign: certificate of %q is not a device certificate (no server-authentication key usage): only devices sign D2D results and reports", b.Identity)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, CurrentTime: withinSkew(at, cert), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
		return nil, fmt.Errorf("sign: certificate of %q: %w", b.Identity, err)
	}
	if cert.Subject.CommonName != b.Identity {
		return nil, fmt.Errorf("sign: certificate names %q, binding claims %q", cert.Subject.CommonName, b.Identity)
	}
	pub, err := base64.StdEncoding.DecodeString(b.PublicKey)
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return nil, errors.New("sign: binding public key is not an Ed25519 key")
	}
	sig, err := base64.StdEncoding.DecodeString(b.Sig)
	if err != nil {
		return nil, errors.New("sign: binding signature is not base64")
	}
	ck, ok := cert.PublicKey.(*ecdsa.PublicKey)
	if !ok {
		return nil, fmt.Errorf("sign: certificate key %T is not ECDSA", cert.PublicKey)
	}
	if !ecdsa.VerifyASN1(ck, bindingDigest(b.Identity, pub), sig) {
		return nil, fmt.Errorf("sign: binding of %q does not verify against its certificate", b.Identity)
	}
	return ed25519.PublicKey(pub), nil
}

// ParseCertKey parses a PEM private key (PKCS#8 or SEC 1 EC) of a device
// certificate.
func ParseCertKey(keyPEM []byte) (crypto.Signer, error) {
	blk, _ := pem.Decode(keyPEM)
	if blk == nil {
		return nil, errors.New("sign: no PEM private key block")
	}
	if k, err := x509.ParsePKCS8PrivateKey(blk.Bytes); err == nil {
		if s, ok := k.(crypto.Signer); ok {
			return s, nil
		}
		return nil, fmt.Errorf("sign: private key of type %T cannot sign", k)
	}
	k, err := x509.ParseECPrivateKey(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("sign: parsing private key: %w", err)
	}
	return k, nil
}

// withinSkew returns at, moved onto c's validity window when it lies
// outside it by no more than MaxClockSkew.
func withinSkew(at time.Time, c *x509.Certificate) time.Time {
	switch {
	case at.After(c.NotAfter) && at.Sub(c.NotAfter) <= MaxClockSkew:
		return c.NotAfter
	case at.Before(c.NotBefore) && c.NotBefore.Sub(at) <= MaxClockSkew:
		return c.NotBefore
	}
	return at
}
