package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Digest is the SHA-256, in hex, of the policy as parsed (its File as
// JSON): two policies with the same digest decide alike, whatever the
// layout and comments of their YAML. Controller replicas compare it
// before they share a fleet.
func (p *Policy) Digest() string {
	b, err := json.Marshal(p.file)
	if err != nil {
		// A parsed File always marshals; an error would make every
		// policy look alike, so it yields a digest nobody shares.
		return "unmarshalable:" + err.Error()
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
