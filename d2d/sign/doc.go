// Package sign signs and verifies the results devices return to each other
// in device-to-device collaboration (the troubleshooting draft's section 5,
// step 3): every callee returns its result with an Ed25519 signature over
// the canonical JSON of the result body, the callee's identity, the caller's
// identity, the tool and its arguments, and a monotonic nonce.
//
// The same key signs report digests (package d2d/report), each under a
// Purpose with its own signing context: the creator's signature of what
// it produced, or a participant's countersignature of what it checked.
// There is no way to sign arbitrary bytes with it.
//
// The nonce is persisted (NonceStore), so a device never reuses one, even
// after a restart; a Verifier refuses a result that is forged, names
// another identity than the one expected, or whose nonce is not above the
// last one seen from the same signer (a replay). A key is bound to a
// device certificate (Binding); an operator's client-only certificate
// binds nothing.
package sign
