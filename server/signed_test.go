package server

import (
	"strings"
	"testing"
)

// TestSignedJSON checks the tokens of cursors and request states: one
// comes back as it was signed, and any change, another key or a malformed
// token is refused.
func TestSignedJSON(t *testing.T) {
	key, other := []byte("key-one"), []byte("key-two")
	tok := signJSON(key, cursor{URI: "network:///interfaces", Offset: 100})
	payload, sig, _ := strings.Cut(tok, ".")
	flip := func(s string) string { // change one base64url character
		if s[0] == 'A' {
			return "B" + s[1:]
		}
		return "A" + s[1:]
	}
	for _, tc := range []struct {
		name string
		key  []byte
		tok  string
		ok   bool
	}{
		{"as signed", key, tok, true},
		{"other key", other, tok, false},
		{"payload altered", key, flip(payload) + "." + sig, false},
		{"signature altered", key, payload + "." + flip(sig), false},
		{"no separator", key, payload + sig, false},
		{"not base64", key, "%%%." + sig, false},
		{"empty", key, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c cursor
			ok := openJSON(tc.key, tc.tok, &c)
			if ok != tc.ok {
				t.Fatalf("openJSON(%q) = %v, want %v", tc.tok, ok, tc.ok)
			}
			if ok && (c.URI != "network:///interfaces" || c.Offset != 100) {
				t.Fatalf("decoded %+v", c)
			}
		})
	}
}
