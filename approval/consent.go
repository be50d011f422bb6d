package approval

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Consent is the signed consent object of the troubleshooting draft,
// section 7.1: the tool and its parameters, the impact window (rollback
// timer), the user's identity and role, and a signed timestamp. Nonce makes
// each consent single-use (the gate remembers used nonces, across restarts
// when it has a state directory); Device and Expires bind it to one device
// and a lifetime, so that it cannot be replayed on another device or later.
type Consent struct {
	Tool         string          `json:"tool"`
	Parameters   json.RawMessage `json:"parameters"`
	ImpactWindow int             `json:"impactWindow"`
	User         string          `json:"user"`
	Role         string          `json:"role"`
	Timestamp    time.Time       `json:"timestamp"`
	Nonce        string          `json:"nonce"`
	// Device names the one device the consent is for: its name or the
	// identity of its certificate (see Options.DeviceIDs). Required.
	Device string `json:"device"`
	// Expires is when the consent stops being valid. Required; the gate
	// also refuses a consent older than Options.ConsentMaxAge.
	Expires time.Time `json:"expires,omitzero"`
	// KeyID names the approver key in the server's trusted keys.
	KeyID string `json:"keyId"`
	// Signature is the base64 Ed25519 signature of the canonical JSON of
	// the consent without this member.
	Signature string `json:"signature,omitempty"`
}

// signedBytes is the canonical JSON that the signature covers.
func (c Consent) signedBytes() ([]byte, error) {
	c.Signature = ""
	params, err := canonicalArguments(c.Parameters)
	if err != nil {
		return nil, err
	}
	c.Parameters = params
	c.Timestamp = c.Timestamp.UTC()
	c.Expires = c.Expires.UTC()
	return json.Marshal(c)
}

// Sign returns the consent as a signed JSON object, ready to be sent as the
// "consent" argument of a tool call.
func (c Consent) Sign(keyID string, key ed25519.PrivateKey) (json.RawMessage, error) {
	c.KeyID = keyID
	msg, err := c.signedBytes()
	if err != nil {
		return nil, err
	}
	c.Signature = base64.StdEncoding.EncodeToString(ed25519.Sign(key, msg))
	return json.Marshal(c)
}

// consentClaims is the JWT form of a Consent (EdDSA, kid = key id).
type consentClaims struct {
	Tool         string          `json:"tool"`
	Parameters   json.RawMessage `json:"parameters"`
	ImpactWindow int             `json:"impactWindow"`
	Role         string          `json:"role"`
	jwt.RegisteredClaims
}

// SignJWT returns the consent as a compact JWT signed with EdDSA, the
// alternative form of section 7.1 ("signed JWT").
func (c Consent) SignJWT(keyID string, key ed25519.PrivateKey) (string, error) {
	params, err := canonicalArguments(c.Parameters)
	if err != nil {
		return "", err
	}
	claims := consentClaims{
		Tool: c.Tool, Parameters: params, ImpactWindow: c.ImpactWindow, Role: c.Role,
		RegisteredClaims: jwt.RegisteredClaims{
			Subject:  c.User,
			IssuedAt: jwt.NewNumericDate(c.Timestamp),
			ID:       c.Nonce,
		},
	}
	if c.Device != "" {
		claims.Audience = jwt.ClaimStrings{c.Device}
	}
	if !c.Expires.IsZero() {
		claims.ExpiresAt = jwt.NewNumericDate(c.Expires)
	}
	t := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims)
	t.Header["kid"] = keyID
	return t.SignedString(key)
}

// parseConsent reads either form and checks its signature.
func (g *Authority) parseConsent(raw json.RawMessage) (Consent, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return g.parseConsentJWT(s)
	}
	var c Consent
	if err := json.Unmarshal(raw, &c); err != nil {
		return c, denied("consent is neither a signed JSON object nor a JWT: %v", err)
	}
	key, ok := g.opts.TrustedKeys[c.KeyID]
	if !ok {
		return c, denied("consent is signed by key %q, which is not a trusted approver key", c.KeyID)
	}
	sig, err := base64.StdEncoding.DecodeString(c.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return c, denied("consent signature is not a base64 Ed25519 signature")
	}
	msg, err := c.signedBytes()
	if err != nil {
		return c, denied("consent parameters are not JSON: %v", err)
	}
	if !ed25519.Verify(key, msg, sig) {
		return c, denied("consent signature does not verify with key %q", c.KeyID)
	}
	return c, nil
}

func (g *Authority) parseConsentJWT(s string) (Consent, error) {
	var claims consentClaims
	var kid string
	_, err := jwt.ParseWithClaims(s, &claims, func(t *jwt.Token) (any, error) {
		kid, _ = t.Header["kid"].(string)
		key, ok := g.opts.TrustedKeys[kid]
		if !ok {
			return nil, fmt.Errorf("key %q is not a trusted approver key", kid)
		}
		return key, nil
	}, jwt.WithValidMethods([]string{jwt.SigningMethodEdDSA.Alg()}), jwt.WithTimeFunc(g.opts.Now))
	if err != nil {
		return Consent{}, denied("consent JWT refused: %v", err)
	}
	if claims.IssuedAt == nil {
		return Consent{}, denied("consent JWT has no iat (signed timestamp)")
	}
	if len(claims.Audience) > 1 {
		return Consent{}, denied("consent JWT names %d devices in aud; a consent is for one device", len(claims.Audience))
	}
	c := Consent{
		Tool: claims.Tool, Parameters: claims.Parameters, ImpactWindow: claims.ImpactWindow,
		User: claims.Subject, Role: claims.Role, Timestamp: claims.IssuedAt.Time,
		Nonce: claims.ID, KeyID: kid,
	}
	if len(claims.Audience) == 1 {
		c.Device = claims.Audience[0]
	}
	if claims.ExpiresAt != nil {
		c.Expires = claims.ExpiresAt.Time
	}
	return c, nil
}

// verifyConsent checks a consent against the call and consumes its nonce:
// signed by a trusted key, for this tool, these parameters and this device,
// within its expiry and age, with an impact window covering the call's
// rollback window, and never used before (on this server, before or after
// a restart when Options.StateDir is set).
func (g *Authority) verifyConsent(req Request, hash string, raw json.RawMessage) (string, error) {
	c, err := g.parseConsent(raw)
	if err != nil {
		return "", err
	}
	now := g.opts.Now()
	until := c.Timestamp.Add(g.opts.ConsentMaxAge)
	if !c.Expires.IsZero() && c.Expires.Before(until) {
		until = c.Expires
	}
	switch {
	case c.Tool != req.Tool:
		return "", denied("consent is for %s, not %s", c.Tool, req.Tool)
	case c.Nonce == "":
		return "", denied("consent has no nonce; it could be replayed")
	case c.User == "":
		return "", denied("consent names no user")
	case c.Device == "":
		return "", denied("consent names no device; it could be replayed on another device (sign it for this device: %s)", g.deviceList(req))
	case !g.isDevice(req, c.Device):
		return "", denied("consent is for device %q, not this device (%s)", c.Device, g.deviceList(req))
	case c.Expires.IsZero():
		return "", denied("consent has no expiry; it could be replayed later")
	case c.Timestamp.After(now.Add(clockSkew)):
		return "", denied("consent timestamp %s is in the future", c.Timestamp.UTC().Format(time.RFC3339))
	case !now.Before(c.Expires):
		return "", denied("consent expired at %s", c.Expires.UTC().Format(time.RFC3339))
	case now.Sub(c.Timestamp) > g.opts.ConsentMaxAge:
		return "", denied("consent signed at %s is older than %s", c.Timestamp.UTC().Format(time.RFC3339), g.opts.ConsentMaxAge)
	case req.RollbackWindow > c.ImpactWindow && c.ImpactWindow >= 0:
		return "", denied("call asks a %d s rollback window; consent allows an impact window of %d s", req.RollbackWindow, c.ImpactWindow)
	}
	consentHash, err := ArgumentsHash(c.Parameters)
	if err != nil {
		return "", denied("consent parameters are not JSON")
	}
	if consentHash != hash {
		return "", denied("consent parameters differ from the call's arguments")
	}
	if err := g.useNonce(c.KeyID+"/"+c.Nonce, until.Add(clockSkew), now); err != nil {
		return "", err
	}
	return c.User, nil
}

// clockSkew is how far in the future a consent's timestamp may be.
const clockSkew = 30 * time.Second

// isDevice reports whether name is this device: the request's device or
// one of Options.DeviceIDs.
func (g *Authority) isDevice(req Request, name string) bool {
	if req.Device != "" && name == req.Device {
		return true
	}
	for _, id := range g.opts.DeviceIDs {
		if id != "" && name == id {
			return true
		}
	}
	return false
}

// deviceList names this device's identities for messages.
func (g *Authority) deviceList(req Request) string {
	var names []string
	if req.Device != "" {
		names = append(names, fmt.Sprintf("%q", req.Device))
	}
	for _, id := range g.opts.DeviceIDs {
		if id != "" && id != req.Device {
			names = append(names, fmt.Sprintf("%q", id))
		}
	}
	if len(names) == 0 {
		return "this server has no device identity, so it accepts no consent"
	}
	return strings.Join(names, " or ")
}
