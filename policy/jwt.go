package policy

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// JWTConfig is the jwt section of a policy file.
type JWTConfig struct {
	// Resource is this server's resource identifier (RFC 9728), the
	// default audience.
	Resource string `yaml:"resource"`
	// AuthorizationServers are advertised in the protected-resource metadata.
	AuthorizationServers []string `yaml:"authorizationServers"`
	// Leeway tolerates clock skew on exp/nbf/iat (default 30 s).
	Leeway time.Duration `yaml:"leeway"`
	// Issuers are the trusted token issuers.
	Issuers []IssuerConfig `yaml:"issuers"`
}

// IssuerConfig is one trusted issuer.
type IssuerConfig struct {
	// Issuer is the exact "iss" claim.
	Issuer string `yaml:"issuer"`
	// Audience must be in the "aud" claim (default: JWTConfig.Resource).
	Audience string `yaml:"audience"`
	// KeyFiles are PEM files of the issuer's public keys (RSA, ECDSA P-256, Ed25519).
	KeyFiles []string `yaml:"keyFiles"`
	// Keys are inline PEM public keys.
	Keys []string `yaml:"keys"`
}

// Issuer is a trusted issuer with its parsed keys.
type Issuer struct {
	Issuer   string
	Audience string
	Keys     []crypto.PublicKey
}

// Verifier verifies bearer tokens signed with RS256, ES256 or EdDSA.
type Verifier struct {
	issuers map[string]Issuer
	leeway  time.Duration
	now     func() time.Time
}

// TokenError reports a bearer token that is missing or invalid (HTTP 401).
type TokenError struct{ Reason string }

// Error implements the error interface.
func (e *TokenError) Error() string { return "policy: invalid bearer token: " + e.Reason }

// validMethods are the accepted JWS algorithms.
var validMethods = []string{"RS256", "ES256", "EdDSA"}

// NewVerifier returns a verifier trusting issuers; leeway <= 0 means 30 s.
func NewVerifier(issuers []Issuer, leeway time.Duration) (*Verifier, error) {
	if leeway <= 0 {
		leeway = 30 * time.Second
	}
	v := &Verifier{issuers: map[string]Issuer{}, leeway: leeway, now: time.Now}
	for _, is := range issuers {
		if is.Issuer == "" || is.Audience == "" || len(is.Keys) == 0 {
			return nil, fmt.Errorf("policy: issuer %q needs an issuer, an audience and at least one key", is.Issuer)
		}
		for _, k := range is.Keys {
			switch k.(type) {
			case *rsa.PublicKey, *ecdsa.PublicKey, ed25519.PublicKey:
			default:
				return nil, fmt.Errorf("policy: issuer %q: unsupported key type %T", is.Issuer, k)
			}
		}
		v.issuers[is.Issuer] = is
	}
	if len(v.issuers) == 0 {
		return nil, errors.New("policy: no trusted JWT issuer configured")
	}
	return v, nil
}

// Verifier builds the verifier of the policy's jwt section, reading key files.
func (p *Policy) Verifier() (*Verifier, error) {
	c := p.file.JWT
	if c == nil {
		return nil, errors.New("policy: the policy has no jwt section")
	}
	var issuers []Issuer
	for _, ic := range c.Issuers {
		is := Issuer{Issuer: ic.Issuer, Audience: ic.Audience}
		if is.Audience == "" {
			is.Audience = c.Resource
		}
		pems := append([]string(nil), ic.Keys...)
		for _, f := range ic.KeyFiles {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("policy: issuer %q: %w", ic.Issuer, err)
			}
			pems = append(pems, string(b))
		}
		for _, s := range pems {
			k, err := ParsePublicKeyPEM([]byte(s))
			if err != nil {
				return nil, fmt.Errorf("policy: issuer %q: %w", ic.Issuer, err)
			}
			is.Keys = append(is.Keys, k)
		}
		issuers = append(issuers, is)
	}
	return NewVerifier(issuers, c.Leeway)
}

// ParsePublicKeyPEM parses a PKIX "PUBLIC KEY" PEM block.
func ParsePublicKeyPEM(b []byte) (crypto.PublicKey, error) {
	blk, _ := pem.Decode(b)
	if blk == nil || blk.Type != "PUBLIC KEY" {
		return nil, errors.New("no PEM PUBLIC KEY block")
	}
	k, err := x509.ParsePKIXPublicKey(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("parsing public key: %w", err)
	}
	return k, nil
}

// Verify checks the token's signature (RS256, ES256 or EdDSA, with a key of
// its issuer), issuer, audience, expiry (required) and not-before, and
// returns its subject and scopes (the space-separated "scope" claim, or a
// "scp" array).
func (v *Verifier) Verify(token string) (subject string, scopes []string, err error) {
	unverified, _, err := jwt.NewParser().ParseUnverified(token, jwt.MapClaims{})
	if err != nil {
		return "", nil, &TokenError{Reason: "malformed: " + err.Error()}
	}
	iss, _ := unverified.Claims.GetIssuer()
	is, ok := v.issuers[iss]
	if !ok {
		return "", nil, &TokenError{Reason: fmt.Sprintf("issuer %q is not trusted", iss)}
	}
	parser := jwt.NewParser(
		jwt.WithValidMethods(validMethods),
		jwt.WithIssuer(is.Issuer),
		jwt.WithAudience(is.Audience),
		jwt.WithExpirationRequired(),
		jwt.WithLeeway(v.leeway),
		jwt.WithTimeFunc(v.now),
	)
	claims := jwt.MapClaims{}
	_, err = parser.ParseWithClaims(token, claims, func(t *jwt.Token) (any, error) {
		var keys []jwt.VerificationKey
		for _, k := range is.Keys {
			if keyFits(t.Method, k) {
				keys = append(keys, k)
			}
		}
		if len(keys) == 0 {
			return nil, fmt.Errorf("issuer %q has no %s key", is.Issuer, t.Method.Alg())
		}
		return jwt.VerificationKeySet{Keys: keys}, nil
	})
	if err != nil {
		return "", nil, &TokenError{Reason: err.Error()}
	}
	subject, _ = claims.GetSubject()
	if subject == "" {
		return "", nil, &TokenError{Reason: "no subject (sub) claim"}
	}
	switch s := claims["scope"].(type) {
	case string:
		scopes = strings.Fields(s)
	case nil:
	default:
		return "", nil, &TokenError{Reason: "the scope claim is not a string"}
	}
	if scp, ok := claims["scp"].([]any); ok {
		for _, s := range scp {
			if str, ok := s.(string); ok {
				scopes = append(scopes, str)
			}
		}
	}
	if scopes == nil {
		scopes = []string{}
	}
	return subject, scopes, nil
}

// keyFits reports whether key can verify tokens of method.
func keyFits(m jwt.SigningMethod, key crypto.PublicKey) bool {
	switch key.(type) {
	case *rsa.PublicKey:
		return m.Alg() == "RS256"
	case *ecdsa.PublicKey:
		return m.Alg() == "ES256"
	case ed25519.PublicKey:
		return m.Alg() == "EdDSA"
	}
	return false
}

// Authenticate verifies a bearer token with v and returns the identity of
// its subject, with the roles the policy maps it to and the token's scopes.
func (p *Policy) Authenticate(v *Verifier, token string) (Identity, error) {
	sub, scopes, err := v.Verify(token)
	if err != nil {
		return Identity{}, err
	}
	return p.Resolve(sub, SourceJWT, scopes), nil
}
