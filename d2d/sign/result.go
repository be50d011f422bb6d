package sign

import (
	"encoding/json"
)

// Result is a signed device-to-device result: what a callee returns for
// one call of a neighbour, and what the initiator keeps as evidence in its
// report.
type Result struct {
	// Signer is the identity of the callee (its certificate's common name).
	Signer string `json:"signer"`
	// Caller is the identity the result was produced for.
	Caller string `json:"caller"`
	// Tool and Args are the call.
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args,omitempty"`
	// Body is the result: the tool's structured content, or
	// {"text": ...} when it has none, or {"error": ...} for a tool error.
	Body json.RawMessage `json:"body"`
	// Nonce is the signer's monotonic nonce.
	Nonce uint64 `json:"nonce"`
	// Time is when the result was signed (RFC 3339, UTC).
	Time string `json:"time"`
	// Sig is the Ed25519 signature (base64, standard encoding) of
	// SignedBytes.
	Sig string `json:"sig,omitempty"`
}

// resultDomain separates result signatures from every other use of a key.
const resultDomain = "netmcp-d2d-result-v1\x00"

// SignedBytes returns the bytes a result's signature covers: a domain
// prefix and the canonical JSON of the result without Sig.
func (r Result) SignedBytes() ([]byte, error) {
	r.Sig = ""
	c, err := Canonical(r)
	if err != nil {
		return nil, err
	}
	return append([]byte(resultDomain), c...), nil
}
