package sign

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Canonical returns the canonical JSON of v: object members sorted by
// name, no insignificant white space, no HTML escaping, and numbers kept
// as their literal text. It is the same form the audit log hashes
// (audit.canonicalJSON): v is encoded, decoded with json.Number, and
// encoded again, so two values that encode to equal JSON objects have
// equal canonical forms whatever their Go types or member order.
func Canonical(v any) ([]byte, error) {
	raw, ok := v.(json.RawMessage)
	if !ok {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("sign: encoding: %w", err)
		}
		raw = b
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, fmt.Errorf("sign: decoding: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("sign: trailing data after the JSON value")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return nil, fmt.Errorf("sign: encoding: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
