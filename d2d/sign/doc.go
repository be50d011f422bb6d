// Package sign signs and verifies the results devices return to each other
// in device-to-device collaboration (the troubleshooting draft's section 5,
// step 3): every callee returns its result with an Ed25519 signature over
// the canonical JSON of the result body, the callee's identity, the caller's
// identity, the tool and its arguments, and a monotonic nonce.
//
// The nonce is persisted (NonceStore), so a device never reuses one, even
// after a restart; a Verifier refuses a result that is forged, names
// another identity than the one expected, or whose nonce is not above the
// last one seen from the same signer (a replay).
package sign
