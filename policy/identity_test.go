package policy

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// TestAuthenticateHTTP: a bearer token is verified (refused when
// malformed, invalid or when no verifier accepts tokens), a client
// certificate the TLS layer verified names an mTLS caller, and a request
// with neither is left to the caller (ok false, no error).
func TestAuthenticateHTTP(t *testing.T) {
	l := newJWTLab(t)
	good := l.sign(t, jwt.SigningMethodES256, l.ecKey, l.claims(nil))
	forged := l.sign(t, jwt.SigningMethodES256, l.other, l.claims(nil))
	cert := &x509.Certificate{Subject: pkix.Name{CommonName: "bob"}}
	for _, tc := range []struct {
		name    string
		auth    string
		tls     *tls.ConnectionState
		noVerif bool
		want    string // identity, "" when none
		err     string // part of the refusal
	}{
		{name: "nothing"},
		{name: "bearer", auth: "Bearer " + good, want: "jwt:alice"},
		{name: "bearer wins over a certificate", auth: "bearer " + good, tls: &tls.ConnectionState{VerifiedChains: [][]*x509.Certificate{{cert}}, PeerCertificates: []*x509.Certificate{cert}}, want: "jwt:alice"},
		{name: "forged token", auth: "Bearer " + forged, err: "invalid bearer token"},
		{name: "no verifier", auth: "Bearer " + good, noVerif: true, err: "no jwt section"},
		{name: "basic", auth: "Basic YWxpY2U6eA==", err: `must be "Bearer TOKEN"`},
		{name: "empty bearer", auth: "Bearer  ", err: `must be "Bearer TOKEN"`},
		{name: "verified certificate", tls: &tls.ConnectionState{VerifiedChains: [][]*x509.Certificate{{cert}}, PeerCertificates: []*x509.Certificate{cert}}, want: "mtls:bob"},
		{name: "unverified certificate", tls: &tls.ConnectionState{PeerCertificates: []*x509.Certificate{cert}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/mcp", nil)
			if tc.auth != "" {
				r.Header.Set("Authorization", tc.auth)
			}
			r.TLS = tc.tls
			v := l.v
			if tc.noVerif {
				v = nil
			}
			id, ok, err := l.policy.AuthenticateHTTP(v, r)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || ok {
					t.Fatalf("got %v %v %v, want a refusal with %q", id, ok, err, tc.err)
				}
				return
			}
			if err != nil || ok != (tc.want != "") || (ok && id.String() != tc.want) {
				t.Fatalf("got %v %v %v, want %q", id, ok, err, tc.want)
			}
		})
	}
}
