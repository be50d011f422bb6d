package serve_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/controller/serve"
	"github.com/netmcp/netmcp/policy"
)

// TestControllerServeOAuthMetadata: with a policy that accepts bearer
// tokens, controller serve publishes the RFC 9728 protected-resource
// metadata as netmcp serve does, and a refused token's challenge points
// to it; without a jwt section there is no metadata and no pointer.
func TestControllerServeOAuthMetadata(t *testing.T) {
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	der, _ := x509.MarshalPKIXPublicKey(pub)
	withJWT := policy.File{JWT: &policy.JWTConfig{Resource: "https://controller.lab.example/mcp", AuthorizationServers: []string{"https://idp.lab.example"},
		Issuers: []policy.IssuerConfig{{Issuer: "https://idp.lab.example", Keys: []string{string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))}}}}}
	for _, tc := range []struct {
		name     string
		file     policy.File
		metadata bool
	}{
		{"jwt", withJWT, true},
		{"no jwt", policy.File{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pol, err := policy.New(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			opts := serve.AccessOptions{Policy: pol}
			if tc.metadata {
				if opts.Verifier, err = pol.Verifier(); err != nil {
					t.Fatal(err)
				}
			}
			srv := serve.New(&controller.Controller{}, controller.Store{}, "test")
			srv.SetAccess(opts)
			reached := false
			h := srv.HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached = true }))

			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://controller.lab.example"+policy.WellKnownPath, nil))
			var md policy.ResourceMetadata
			switch {
			case tc.metadata && (rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &md) != nil || md.Resource != "https://controller.lab.example/mcp" || len(md.AuthorizationServers) != 1):
				t.Fatalf("metadata: HTTP %d %s", rec.Code, rec.Body)
			case !tc.metadata && rec.Code != http.StatusNotFound:
				t.Fatalf("metadata without a jwt section: HTTP %d, want 404", rec.Code)
			}

			req := httptest.NewRequest(http.MethodPost, "http://controller.lab.example/mcp", strings.NewReader("{}"))
			req.Header.Set("Authorization", "Bearer not.a.token")
			rec = httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			challenge := rec.Header().Get("WWW-Authenticate")
			pointer := strings.Contains(challenge, `resource_metadata="http://controller.lab.example`+policy.WellKnownPath+`"`)
			if rec.Code != http.StatusUnauthorized || reached || !strings.Contains(challenge, `error="invalid_token"`) || pointer != tc.metadata {
				t.Fatalf("bad token: HTTP %d, reached %v, challenge %q (want the metadata pointer: %v)", rec.Code, reached, challenge, tc.metadata)
			}
		})
	}
}
