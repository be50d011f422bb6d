package policy

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

const (
	testIssuer   = "https://idp.lab.example"
	testResource = "https://r1.lab.example/mcp"
)

func pubPEM(t *testing.T, k crypto.PublicKey) string {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

// jwtLab holds one key of each algorithm, trusted through a policy file.
type jwtLab struct {
	rsaKey *rsa.PrivateKey
	ecKey  *ecdsa.PrivateKey
	edKey  ed25519.PrivateKey
	other  *ecdsa.PrivateKey
	policy *Policy
	v      *Verifier
	now    time.Time
}

func newJWTLab(t *testing.T) *jwtLab {
	t.Helper()
	l := &jwtLab{now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	var err error
	if l.rsaKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		t.Fatal(err)
	}
	l.ecKey, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	l.other, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	_, l.edKey, _ = ed25519.GenerateKey(rand.Reader)
	dir := t.TempDir()
	ecFile := filepath.Join(dir, "idp-es256.pub.pem")
	os.WriteFile(ecFile, []byte(pubPEM(t, l.ecKey.Public())), 0o644)
	indent := func(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n          ") }
	yml := fmt.Sprintf(`
identities:
  - {subject: alice, source: jwt, roles: [operator]}
jwt:
  resource: %s
  authorizationServers: [%s]
  issuers:
    - issuer: %s
      keyFiles: [%s]
      keys:
        - |
          %s
        - |
          %s
`, testResource, testIssuer, testIssuer, ecFile, indent(pubPEM(t, l.rsaKey.Public())), indent(pubPEM(t, l.edKey.Public())))
	if l.policy, err = Parse([]byte(yml)); err != nil {
		t.Fatal(err)
	}
	if l.v, err = l.policy.Verifier(); err != nil {
		t.Fatal(err)
	}
	l.v.now = func() time.Time { return l.now }
	return l
}

func (l *jwtLab) sign(t *testing.T, method jwt.SigningMethod, key any, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(method, claims).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (l *jwtLab) claims(mod func(jwt.MapClaims)) jwt.MapClaims {
	c := jwt.MapClaims{"iss": testIssuer, "aud": testResource, "sub": "alice",
		"exp": l.now.Add(time.Hour).Unix(), "iat": l.now.Unix(),
		"scope": "tool:network.yang.get yang:/ietf-interfaces:interfaces openid"}
	if mod != nil {
		mod(c)
	}
	return c
}

func TestJWTVerify(t *testing.T) {
	l := newJWTLab(t)
	ok := func(m jwt.MapClaims) {}
	tests := []struct {
		name   string
		method jwt.SigningMethod
		key    any
		mod    func(jwt.MapClaims)
		want   string // "" = valid
	}{
		{"ES256", jwt.SigningMethodES256, l.ecKey, ok, ""},
		{"RS256", jwt.SigningMethodRS256, l.rsaKey, ok, ""},
		{"EdDSA", jwt.SigningMethodEdDSA, l.edKey, ok, ""},
		{"audience list", jwt.SigningMethodES256, l.ecKey, func(c jwt.MapClaims) { c["aud"] = []string{"x", testResource} }, ""},
		{"expired", jwt.SigningMethodES256, l.ecKey, func(c jwt.MapClaims) { c["exp"] = l.now.Add(-time.Minute).Unix() }, "expired"},
		{"within leeway", jwt.SigningMethodES256, l.ecKey, func(c jwt.MapClaims) { c["exp"] = l.now.Add(-10 * time.Second).Unix() }, ""},
		{"no exp", jwt.SigningMethodES256, l.ecKey, func(c jwt.MapClaims) { delete(c, "exp") }, "exp claim is required"},
		{"not yet valid", jwt.SigningMethodES256, l.ecKey, func(c jwt.MapClaims) { c["nbf"] = l.now.Add(time.Hour).Unix() }, "not valid yet"},
		{"wrong audience", jwt.SigningMethodES256, l.ecKey, func(c jwt.MapClaims) { c["aud"] = "https://r2.lab.example/mcp" }, "audience"},
		{"untrusted issuer", jwt.SigningMethodES256, l.ecKey, func(c jwt.MapClaims) { c["iss"] = "https://evil.example" }, `issuer "https://evil.example" is not trusted`},
		{"signed by another key", jwt.SigningMethodES256, l.other, ok, "signature is invalid"},
		{"HS256 with the public key as secret", jwt.SigningMethodHS256, []byte(pubPEM(t, l.ecKey.Public())), ok, "signing method HS256 is invalid"},
		{"no subject", jwt.SigningMethodES256, l.ecKey, func(c jwt.MapClaims) { delete(c, "sub") }, "no subject"},
		{"scope not a string", jwt.SigningMethodES256, l.ecKey, func(c jwt.MapClaims) { c["scope"] = 5 }, "scope claim is not a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := l.sign(t, tt.method, tt.key, l.claims(tt.mod))
			id, err := l.policy.Authenticate(l.v, tok)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				if id.Subject != "alice" || id.Source != SourceJWT || strings.Join(id.Roles, ",") != "operator" ||
					strings.Join(id.Scopes, " ") != "tool:network.yang.get yang:/ietf-interfaces:interfaces openid" {
					t.Fatalf("identity %+v", id)
				}
				return
			}
			var te *TokenError
			if !errors.As(err, &te) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want TokenError mentioning %q", err, tt.want)
			}
		})
	}
	if _, err := l.policy.Authenticate(l.v, "not.a.jwt"); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("garbage: %v", err)
	}
	none := l.sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, l.claims(nil))
	if _, err := l.policy.Authenticate(l.v, none); err == nil {
		t.Error("alg none accepted")
	}
	// scp array form, and a token without scope (scoped to nothing).
	id, err := l.policy.Authenticate(l.v, l.sign(t, jwt.SigningMethodES256, l.ecKey, l.claims(func(c jwt.MapClaims) {
		delete(c, "scope")
		c["scp"] = []string{"tool:ping"}
	})))
	if err != nil || strings.Join(id.Scopes, ",") != "tool:ping" {
		t.Errorf("scp: %+v %v", id, err)
	}
	id, _ = l.policy.Authenticate(l.v, l.sign(t, jwt.SigningMethodES256, l.ecKey, l.claims(func(c jwt.MapClaims) { delete(c, "scope") })))
	if id.Scopes == nil || len(id.Scopes) != 0 || l.policy.Decide(id, Action{Kind: CallTool, Tool: "network.yang.get"}) == nil {
		t.Errorf("token without scope must grant nothing: %+v", id)
	}
}

func TestVerifierConfigErrors(t *testing.T) {
	if _, err := NewVerifier(nil, 0); err == nil {
		t.Error("no issuers accepted")
	}
	if _, err := NewVerifier([]Issuer{{Issuer: "i", Audience: "a"}}, 0); err == nil {
		t.Error("issuer without keys accepted")
	}
	if _, err := NewVerifier([]Issuer{{Issuer: "i", Audience: "a", Keys: []crypto.PublicKey{"k"}}}, 0); err == nil {
		t.Error("bad key type accepted")
	}
	if _, err := Default().Verifier(); err == nil {
		t.Error("policy without jwt section gave a verifier")
	}
	p, _ := Parse([]byte("jwt: {resource: r, issuers: [{issuer: i, keyFiles: [/nonexistent.pem]}]}"))
	if _, err := p.Verifier(); err == nil || !strings.Contains(err.Error(), "nonexistent") {
		t.Errorf("missing key file: %v", err)
	}
}

func TestProtectedResourceMetadataAndBearer(t *testing.T) {
	l := newJWTLab(t)
	md, err := l.policy.ResourceMetadata()
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(WellKnownPath, MetadataHandler(md))
	var seen Identity
	mux.Handle("/mcp", l.policy.BearerMiddleware(l.v, "https://r1.lab.example"+WellKnownPath,
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen, _ = IdentityFrom(r.Context())
			w.Write([]byte("ok"))
		})))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	resp, err := http.Get(srv.URL + WellKnownPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	json.NewDecoder(resp.Body).Decode(&doc)
	resp.Body.Close()
	if resp.Header.Get("Content-Type") != "application/json" || doc["resource"] != testResource ||
		fmt.Sprint(doc["authorization_servers"]) != "["+testIssuer+"]" || fmt.Sprint(doc["bearer_methods_supported"]) != "[header]" ||
		!strings.Contains(fmt.Sprint(doc["scopes_supported"]), "tool:network.yang.get") {
		t.Errorf("metadata %v", doc)
	}
	if resp, _ := http.Post(srv.URL+WellKnownPath, "text/plain", nil); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST metadata: %d", resp.StatusCode)
	}

	call := func(auth string) *http.Response {
		req, _ := http.NewRequest("POST", srv.URL+"/mcp", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if r := call(""); r.StatusCode != 401 || r.Header.Get("WWW-Authenticate") != `Bearer resource_metadata="https://r1.lab.example/.well-known/oauth-protected-resource"` {
		t.Errorf("no token: %d %q", r.StatusCode, r.Header.Get("WWW-Authenticate"))
	}
	expired := l.sign(t, jwt.SigningMethodES256, l.ecKey, l.claims(func(c jwt.MapClaims) { c["exp"] = l.now.Add(-time.Hour).Unix() }))
	if r := call("Bearer " + expired); r.StatusCode != 401 || !strings.Contains(r.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Errorf("expired token: %d %q", r.StatusCode, r.Header.Get("WWW-Authenticate"))
	}
	good := l.sign(t, jwt.SigningMethodEdDSA, l.edKey, l.claims(nil))
	if r := call("bearer " + good); r.StatusCode != 200 || seen.Subject != "alice" || seen.Source != SourceJWT {
		t.Errorf("good token: %d, identity %+v", r.StatusCode, seen)
	}
	if _, err := Default().ResourceMetadata(); err == nil {
		t.Error("metadata without jwt section")
	}
}
