package policy

import (
	"context"
	"crypto/tls"
	"errors"
	"net/http"
	"strings"
)

// Identity sources.
const (
	SourceMTLS      = "mtls"
	SourceJWT       = "jwt"
	SourceAnonymous = "anonymous"
)

// Identity is an authenticated caller.
type Identity struct {
	// Subject is the mTLS certificate's subject CN or the JWT "sub" claim.
	Subject string
	// Roles are the caller's roles, from the policy's identity mapping.
	Roles []string
	// Scopes are the token's scopes; nil means not scoped by a token
	// (mTLS, anonymous), in which case the roles alone decide.
	Scopes []string
	// Source is mtls, jwt or anonymous.
	Source string
}

// String returns "source:subject", the form audit records carry.
func (id Identity) String() string {
	if id.Subject == "" {
		return id.Source
	}
	return id.Source + ":" + id.Subject
}

// IdentityFromTLS returns the identity of a verified mutual-TLS peer (the
// subject CN of its leaf certificate) with its roles from p, or the
// anonymous identity when the peer presented no certificate.
func (p *Policy) IdentityFromTLS(st tls.ConnectionState) Identity {
	if len(st.VerifiedChains) == 0 || len(st.PeerCertificates) == 0 {
		return p.Resolve("", SourceAnonymous, nil)
	}
	return p.Resolve(st.PeerCertificates[0].Subject.CommonName, SourceMTLS, nil)
}

// AuthenticateHTTP returns the identity an HTTP request proves: its
// "Authorization: Bearer TOKEN" header verified with v (refused when v is
// nil: the policy has no jwt section), else a client certificate the TLS
// layer verified (mutual TLS). ok is false when r carries neither (the
// caller decides whether it is anonymous or refused); err says why a
// request's Authorization header is refused.
func (p *Policy) AuthenticateHTTP(v *Verifier, r *http.Request) (id Identity, ok bool, err error) {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, token, found := strings.Cut(h, " ")
		token = strings.TrimSpace(token)
		if !found || !strings.EqualFold(scheme, "Bearer") || token == "" {
			return Identity{}, false, errors.New(`the Authorization header must be "Bearer TOKEN"`)
		}
		if v == nil {
			return Identity{}, false, errors.New("bearer tokens are not accepted: the policy has no jwt section")
		}
		id, err := p.Authenticate(v, token)
		if err != nil {
			return Identity{}, false, err
		}
		return id, true, nil
	}
	if r.TLS != nil && len(r.TLS.VerifiedChains) > 0 {
		return p.IdentityFromTLS(*r.TLS), true, nil
	}
	return Identity{}, false, nil
}

// Resolve returns the identity of subject authenticated by source, with
// the roles the policy maps it to (or the source's default roles).
func (p *Policy) Resolve(subject, source string, scopes []string) Identity {
	id := Identity{Subject: subject, Source: source, Scopes: scopes}
	for _, m := range p.identities {
		if m.Subject == subject && (m.Source == "" || m.Source == source) && source != SourceAnonymous {
			id.Roles = append(id.Roles, m.Roles...)
		}
	}
	if id.Roles == nil {
		id.Roles = append(id.Roles, p.defaultRoles[source]...)
	}
	return id
}

type identityKey struct{}

// WithIdentity returns ctx carrying id.
func WithIdentity(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityFrom returns the identity carried by ctx, if any.
func IdentityFrom(ctx context.Context) (Identity, bool) {
	id, ok := ctx.Value(identityKey{}).(Identity)
	return id, ok
}
