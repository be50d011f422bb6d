package approval

import (
	"encoding/json"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// ConsentNonce reads a signed consent's single-use identity, "keyId/nonce",
// and the time after which no server can accept it any more (its expiry,
// or its timestamp plus maxAge if sooner), without checking its signature.
// It is for a relay that records the consents it forwards as used across
// several processes (controller replicas) before the device, which checks
// the consent itself, sees it.
func ConsentNonce(raw json.RawMessage, maxAge time.Duration) (string, time.Time, error) {
	var c Consent
	var s string
	if json.Unmarshal(raw, &s) == nil {
		var claims consentClaims
		t, _, err := jwt.NewParser().ParseUnverified(s, &claims)
		if err != nil {
			return "", time.Time{}, denied("consent JWT unreadable: %v", err)
		}
		c.KeyID, _ = t.Header["kid"].(string)
		c.Nonce = claims.ID
		if claims.IssuedAt != nil {
			c.Timestamp = claims.IssuedAt.Time
		}
		if claims.ExpiresAt != nil {
			c.Expires = claims.ExpiresAt.Time
		}
	} else if err := json.Unmarshal(raw, &c); err != nil {
		return "", time.Time{}, denied("consent is neither a signed JSON object nor a JWT: %v", err)
	}
	if c.Nonce == "" {
		return "", time.Time{}, denied("consent has no nonce; it could be replayed")
	}
	until := c.Timestamp.Add(maxAge)
	if !c.Expires.IsZero() && (c.Timestamp.IsZero() || c.Expires.Before(until)) {
		until = c.Expires
	}
	return c.KeyID + "/" + c.Nonce, until.Add(clockSkew), nil
}
