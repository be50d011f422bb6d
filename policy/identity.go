package policy

import (
	"context"
	"crypto/tls"
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
