package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// signJSON returns v as an opaque token the server can trust when it comes
// back: base64url(JSON) "." base64url(HMAC-SHA256 of the JSON with key).
// Resource cursors and multi round-trip request states are such tokens.
func signJSON(key []byte, v any) string {
	b, _ := json.Marshal(v)
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(mac(key, b))
}

// openJSON verifies a token of signJSON made with key and decodes its JSON
// into v. It reports false for a token that is malformed, was altered or
// was signed with another key.
func openJSON(key []byte, tok string, v any) bool {
	payload, sig, ok := strings.Cut(tok, ".")
	if !ok {
		return false
	}
	b, err1 := base64.RawURLEncoding.DecodeString(payload)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(got, mac(key, b)) {
		return false
	}
	return json.Unmarshal(b, v) == nil
}

// mac is the HMAC-SHA256 of b with key.
func mac(key, b []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write(b)
	return h.Sum(nil)
}
