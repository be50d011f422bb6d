package tlv

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	a := Advert{Port: 9514, CapDigest: CapabilityDigest([]string{"ping", "interface-counters", "ping"}), Thumbprint: sha256.Sum256([]byte("cert"))}
	if len(a.Encode()) != Size || Size > MaxValue {
		t.Fatalf("size %d", len(a.Encode()))
	}
	for _, s := range []string{a.Hex(), strings.ReplaceAll(a.Hex(), ":", ""), strings.ToUpper(a.Hex())} {
		got, err := DecodeHex(s)
		if err != nil || got != a {
			t.Fatalf("DecodeHex(%s) = %+v, %v", s, got, err)
		}
	}
	if CapabilityDigest([]string{"b", "a"}) != CapabilityDigest([]string{"a", "b"}) {
		t.Error("digest depends on order")
	}
	if CapabilityDigest([]string{"a"}) == CapabilityDigest([]string{"a", "b"}) {
		t.Error("digest ignores a capability")
	}
}

func TestDecodeRefuses(t *testing.T) {
	good := Advert{Port: 1, Thumbprint: sha256.Sum256(nil)}.Encode()
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"other version", append([]byte{2}, good[1:]...)},
		{"short", good[:Size-1]},
		{"port 0", append([]byte{1, 0, 0}, good[3:]...)},
		{"over 507 bytes", append(append([]byte{}, good...), make([]byte, MaxValue)...)},
	} {
		if _, err := Decode(tc.b); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
	if _, err := DecodeHex("6e:65:74:6d:63:70"); err == nil { // the lab's plain "netmcp" marker
		t.Error("the subtype-1 marker decoded as an advert")
	}
}

// TestDecodeValue reads the value in every form a YANG or lldpd source
// writes it: colon hex, plain hex, base64 (RFC 7951 binary); anything else
// is refused.
func TestDecodeValue(t *testing.T) {
	a := Advert{Port: 9514, CapDigest: CapabilityDigest([]string{"ietf-ping"}), Thumbprint: sha256.Sum256([]byte("c"))}
	for _, tc := range []struct {
		name, in string
		ok       bool
	}{
		{"colon hex", a.Hex(), true},
		{"plain hex", strings.ReplaceAll(a.Hex(), ":", ""), true},
		{"base64", base64.StdEncoding.EncodeToString(a.Encode()), true},
		{"marker", base64.StdEncoding.EncodeToString([]byte("netmcp")), false},
		{"garbage", "not a value!", false},
	} {
		got, err := DecodeValue(tc.in)
		if tc.ok && (err != nil || got != a) {
			t.Errorf("%s: %+v, %v", tc.name, got, err)
		}
		if !tc.ok && err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
}
