package sign

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"sync"
)

// Reasons a Verifier refuses a result.
const (
	ReasonForged   = "forged"         // the signature does not verify
	ReasonReplayed = "replayed"       // nonce not above the last seen from the signer
	ReasonIdentity = "wrong-identity" // signed by, or for, another identity than expected
	ReasonUnknown  = "unknown-signer" // no key for the signer
)

// Error is a refused result.
type Error struct {
	Reason string // one of the Reason constants
	Signer string
	Detail string
}

// Error says whose result was refused and why.
func (e *Error) Error() string {
	return fmt.Sprintf("sign: result from %q refused (%s): %s", e.Signer, e.Reason, e.Detail)
}

// ReplayWindow is how far below the highest nonce seen from a signer a
// nonce is still accepted (once): an initiator calls a neighbour several
// times at once, and the results may arrive out of nonce order. As in
// IPsec's anti-replay window, a nonce already seen, or at or below
// highest - ReplayWindow, is refused as a replay.
const ReplayWindow = 256

// Verifier checks results: each signer's key, and the nonces seen from
// each, so a replayed result is refused. It is safe for concurrent use.
type Verifier struct {
	mu   sync.Mutex
	keys map[string]ed25519.PublicKey
	seen map[string]*window
}

// window is the anti-replay state of one signer.
type window struct {
	high uint64
	got  map[uint64]bool // nonces in (high-ReplayWindow, high] seen
}

// admit records n, reporting false for a replay.
func (w *window) admit(n uint64) (ok bool, detail string) {
	switch {
	case w.got[n]:
		return false, fmt.Sprintf("nonce %d was already accepted", n)
	case w.high >= ReplayWindow && n <= w.high-ReplayWindow:
		return false, fmt.Sprintf("nonce %d is not above the last seen, %d, by more than the replay window", n, w.high)
	case n == 0:
		return false, "nonce 0 is never issued"
	}
	w.got[n] = true
	if n > w.high {
		w.high = n
		for k := range w.got {
			if w.high >= ReplayWindow && k <= w.high-ReplayWindow {
				delete(w.got, k)
			}
		}
	}
	return true, ""
}

// NewVerifier returns a verifier knowing no signer.
func NewVerifier() *Verifier {
	return &Verifier{keys: map[string]ed25519.PublicKey{}, seen: map[string]*window{}}
}

// Trust records the key of identity id (learnt over the authenticated
// session, or from a certificate-bound key binding).
func (v *Verifier) Trust(id string, key ed25519.PublicKey) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.keys[id] = key
}

// Key returns the key trusted for id.
func (v *Verifier) Key(id string) (ed25519.PublicKey, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	k, ok := v.keys[id]
	return k, ok
}

// Verify checks r: signed by signer for caller, a valid signature by
// signer's key, and a nonce never accepted from signer before and within
// ReplayWindow of the highest one (which it then records).
func (v *Verifier) Verify(r Result, signer, caller string) error {
	if r.Signer != signer {
		return &Error{Reason: ReasonIdentity, Signer: r.Signer, Detail: fmt.Sprintf("expected a result signed by %q", signer)}
	}
	if caller != "" && r.Caller != caller {
		return &Error{Reason: ReasonIdentity, Signer: r.Signer, Detail: fmt.Sprintf("result made for %q, not for %q", r.Caller, caller)}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	key, ok := v.keys[signer]
	if !ok {
		return &Error{Reason: ReasonUnknown, Signer: signer, Detail: "no key known for this identity"}
	}
	if err := CheckSignature(r, key); err != nil {
		return err
	}
	w := v.seen[signer]
	if w == nil {
		w = &window{got: map[uint64]bool{}}
		v.seen[signer] = w
	}
	if ok, detail := w.admit(r.Nonce); !ok {
		return &Error{Reason: ReasonReplayed, Signer: signer, Detail: detail}
	}
	return nil
}

// CheckSignature checks only r's signature with key (no identity or
// nonce check): for verifying a stored report.
func CheckSignature(r Result, key ed25519.PublicKey) error {
	sig, err := base64.StdEncoding.DecodeString(r.Sig)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return &Error{Reason: ReasonForged, Signer: r.Signer, Detail: "malformed signature"}
	}
	b, err := r.SignedBytes()
	if err != nil {
		return &Error{Reason: ReasonForged, Signer: r.Signer, Detail: err.Error()}
	}
	if !ed25519.Verify(key, b, sig) {
		return &Error{Reason: ReasonForged, Signer: r.Signer, Detail: "Ed25519 signature does not verify"}
	}
	return nil
}
