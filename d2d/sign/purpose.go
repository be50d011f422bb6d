package sign

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
)

// Purpose is what a signature over a report digest says of its signer. A
// device signs only what it produced or checked itself, and says which:
// each purpose has its own signing context, so a signature given for one
// never verifies as the other.
type Purpose int

// The purposes of a report signature.
const (
	// PurposeCreate: the signer produced the report (its creator).
	PurposeCreate Purpose = iota + 1
	// PurposeCountersign: the signer checked that the results the report
	// carries under its name are ones it issued to the report's creator.
	PurposeCountersign
)

// The signing contexts: what precedes the digest in the bytes each
// purpose signs. Like the result domain, each ends with a NUL and none is
// a prefix of another.
const (
	ContextCreate      = "netmcp-d2d-report-create-v2\x00"
	ContextCountersign = "netmcp-d2d-report-countersign-v2\x00"
)

// String names the purpose.
func (p Purpose) String() string {
	switch p {
	case PurposeCreate:
		return "create"
	case PurposeCountersign:
		return "countersign"
	}
	return fmt.Sprintf("purpose(%d)", int(p))
}

// message returns the bytes signed for digest under p.
func (p Purpose) message(digest []byte) ([]byte, error) {
	if len(digest) != sha256.Size {
		return nil, fmt.Errorf("sign: a report digest is %d bytes, not %d", sha256.Size, len(digest))
	}
	var ctx string
	switch p {
	case PurposeCreate:
		ctx = ContextCreate
	case PurposeCountersign:
		ctx = ContextCountersign
	default:
		return nil, fmt.Errorf("sign: unknown signature purpose %d", int(p))
	}
	return append([]byte(ctx), digest...), nil
}

// SignDigest signs a report digest (SHA-256) for purpose p: the Ed25519
// signature, base64, of p's signing context followed by the digest.
func (s *Signer) SignDigest(p Purpose, digest []byte) (string, error) {
	msg, err := p.message(digest)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(ed25519.Sign(s.key, msg)), nil
}

// VerifyDigest checks sig (base64) as key's signature of digest for
// purpose p.
func VerifyDigest(key ed25519.PublicKey, p Purpose, digest []byte, sig string) error {
	msg, err := p.message(digest)
	if err != nil {
		return err
	}
	raw, err := base64.StdEncoding.DecodeString(sig)
	if err != nil || len(raw) != ed25519.SignatureSize || len(key) != ed25519.PublicKeySize {
		return errors.New("sign: malformed signature")
	}
	if !ed25519.Verify(key, msg, raw) {
		return fmt.Errorf("sign: not a valid %s signature of this digest", p)
	}
	return nil
}
