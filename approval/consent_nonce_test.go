package approval

import (
	"crypto/ed25519"
	"encoding/json"
	"testing"
	"time"
)

func TestConsentNonce(t *testing.T) {
	_, key, _ := ed25519.GenerateKey(nil)
	ts := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := Consent{Tool: "network.yang.edit", Parameters: json.RawMessage(`{}`), User: "ann", Timestamp: ts, Nonce: "n1", Device: "r1", Expires: ts.Add(time.Minute)}
	obj, err := c.Sign("k1", key)
	if err != nil {
		t.Fatal(err)
	}
	jwtStr, err := c.SignJWT("k1", key)
	if err != nil {
		t.Fatal(err)
	}
	jwtRaw, _ := json.Marshal(jwtStr)
	late := c
	late.Expires = ts.Add(time.Hour)
	lateObj, _ := late.Sign("k1", key)
	noNonce := c
	noNonce.Nonce = ""
	noNonceObj, _ := noNonce.Sign("k1", key)
	for _, tc := range []struct {
		name  string
		raw   json.RawMessage
		id    string
		until time.Time
		bad   bool
	}{
		{"object", obj, "k1/n1", ts.Add(time.Minute + clockSkew), false},
		{"jwt", jwtRaw, "k1/n1", ts.Add(time.Minute + clockSkew), false},
		{"expiry after max age", lateObj, "k1/n1", ts.Add(5*time.Minute + clockSkew), false},
		{"no nonce", noNonceObj, "", time.Time{}, true},
		{"not a consent", json.RawMessage(`[1]`), "", time.Time{}, true},
		{"bad jwt", json.RawMessage(`"a.b"`), "", time.Time{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, until, err := ConsentNonce(tc.raw, 5*time.Minute)
			if tc.bad {
				if err == nil {
					t.Fatalf("accepted: %s %v", id, until)
				}
				return
			}
			if err != nil || id != tc.id || !until.Equal(tc.until) {
				t.Fatalf("got %q %v %v, want %q %v", id, until, err, tc.id, tc.until)
			}
		})
	}
}
