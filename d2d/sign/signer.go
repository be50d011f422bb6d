package sign

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/netmcp/netmcp/internal/atomicfile"
)

// File names in a signer's state directory.
const (
	KeyFile   = "d2d-ed25519.key"
	NonceFile = "d2d-nonce"
)

// Signer signs the results of one device.
type Signer struct {
	id     string
	key    ed25519.PrivateKey
	nonces *NonceStore
	now    func() time.Time
}

// NewSigner returns a signer for identity id with key and nonces.
func NewSigner(id string, key ed25519.PrivateKey, nonces *NonceStore) (*Signer, error) {
	if id == "" {
		return nil, errors.New("sign: empty identity")
	}
	if len(key) != ed25519.PrivateKeySize {
		return nil, errors.New("sign: not an Ed25519 private key")
	}
	if nonces == nil {
		return nil, errors.New("sign: no nonce store")
	}
	return &Signer{id: id, key: key, nonces: nonces, now: time.Now}, nil
}

// OpenSigner returns the signer of identity id whose key and nonce live
// in dir (created 0700 if needed): the key is generated on first use and
// kept in dir/d2d-ed25519.key (0600); nonces continue above dir/d2d-nonce.
func OpenSigner(dir, id string) (*Signer, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	key, err := loadOrCreateKey(filepath.Join(dir, KeyFile))
	if err != nil {
		return nil, err
	}
	ns, err := OpenNonceStore(filepath.Join(dir, NonceFile))
	if err != nil {
		return nil, err
	}
	return NewSigner(id, key, ns)
}

// NewEphemeralSigner returns a signer with a fresh key and in-memory
// nonces, for tests and benchmarks.
func NewEphemeralSigner(id string) (*Signer, error) {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	ns, _ := OpenNonceStore("")
	return NewSigner(id, key, ns)
}

// ID is the signer's identity.
func (s *Signer) ID() string { return s.id }

// PublicKey is the signer's Ed25519 public key.
func (s *Signer) PublicKey() ed25519.PublicKey { return s.key.Public().(ed25519.PublicKey) }

// Sign fills r's Signer, Nonce and Time and signs it.
func (s *Signer) Sign(r *Result) error {
	n, err := s.nonces.Next()
	if err != nil {
		return err
	}
	r.Signer, r.Nonce, r.Time = s.id, n, s.now().UTC().Format(time.RFC3339Nano)
	b, err := r.SignedBytes()
	if err != nil {
		return err
	}
	r.Sig = base64.StdEncoding.EncodeToString(ed25519.Sign(s.key, b))
	return nil
}

func loadOrCreateKey(path string) (ed25519.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		blk, _ := pem.Decode(b)
		if blk == nil {
			return nil, fmt.Errorf("sign: %s holds no PEM block", path)
		}
		k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("sign: %s: %w", path, err)
		}
		ek, ok := k.(ed25519.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("sign: %s holds a %T key, not Ed25519", path, k)
		}
		return ek, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("sign: %w", err)
	}
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	return key, nil
}
