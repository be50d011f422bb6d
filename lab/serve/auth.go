package serve

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/policy"
	"github.com/netmcp/netmcp/server"
)

// TokenFile is the name of the lab's bearer token in its state directory
// (mode 0600). Every client of the lab's devices sends it: the inventory
// names it (credentials: token-file), never the token itself.
const TokenFile = "token"

// TokenSubject is the identity the lab's token proves to its devices
// (audit records name the caller jwt:netmcp-lab).
const TokenSubject = "netmcp-lab"

// RoleLab is the role of the lab token's holder unless Options.Role names
// another: every tool, resource and YANG path, read and written (changes
// still pass each device's approval gate), but not the secrets scope:
// passwords, keys and communities are masked in what the devices answer.
const RoleLab = "lab"

// labScopes are RoleLab's scopes.
var labScopes = []string{"tool:*", "resource:*", "yang-write:*"}

// tokenIssuer is the issuer of the lab's tokens.
const tokenIssuer = "netmcp-lab"

// tokenLifetime bounds the token's validity; in practice it lasts as long
// as the lab: the key that signed it lives only in the lab's process.
const tokenLifetime = 10 * 365 * 24 * time.Hour

// Auth is a lab's access control: a bearer token (a JWT signed by a key
// made at start and kept in memory only) written 0600 to a file, and the
// policy and verifier with which every device's server checks it through
// server.Secure, the security layer of `netmcp serve`. A request without
// the token, or with another, gets 401 and reaches no device. Up makes
// one for its lab; a program serving a lab's devices itself makes its own
// with NewAuth.
type Auth struct {
	pol      *policy.Policy
	verifier *policy.Verifier
	token    string
	file     string // the token's file
	tmp      string // the temporary directory holding it, removed by Close ("" in a state directory)
	audit    func(device string) (*audit.Log, error)
}

// NewAuth mints a lab's token and writes it to dir/TokenFile, or, with no
// dir, to a private temporary directory that Close removes. The token's
// holder gets role (RoleLab when empty; policy.RoleAdmin adds the secrets
// scope).
func NewAuth(dir, role string) (*Auth, error) { return newLabAuth(dir, role, nil) }

// newLabAuth is NewAuth with, when auditLog is set, an audit log per
// device (auditLog(name) when its server is secured).
func newLabAuth(dir, role string, auditLog func(string) (*audit.Log, error)) (*Auth, error) {
	if role == "" {
		role = RoleLab
	}
	pol, err := policy.New(policy.File{
		Roles:      map[string][]string{RoleLab: labScopes},
		Identities: []policy.IdentityMapping{{Subject: TokenSubject, Source: policy.SourceJWT, Roles: []string{role}}},
	})
	if err != nil {
		return nil, fmt.Errorf("lab role %q: %w", role, err)
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, err
	}
	// The audience is this lab's own: a token of another lab is refused
	// by its issuer's key and by its audience.
	aud := tokenIssuer + ":" + hex.EncodeToString(nonce[:])
	now := time.Now()
	token, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.MapClaims{
		"iss": tokenIssuer, "aud": aud, "sub": TokenSubject,
		"iat": now.Unix(), "exp": now.Add(tokenLifetime).Unix(),
		// Every scope: the role decides what the holder may do.
		"scope": strings.Join(append(append([]string(nil), labScopes...), policy.ScopeSecrets), " "),
	}).SignedString(priv)
	if err != nil {
		return nil, err
	}
	v, err := policy.NewVerifier([]policy.Issuer{{Issuer: tokenIssuer, Audience: aud, Keys: []crypto.PublicKey{pub}}}, 0)
	if err != nil {
		return nil, err
	}
	a := &Auth{pol: pol, verifier: v, token: token, audit: auditLog}
	if dir == "" {
		if a.tmp, err = os.MkdirTemp("", "netmcp-lab-"); err != nil {
			return nil, err
		}
		dir = a.tmp
	}
	a.file = filepath.Join(dir, TokenFile)
	if err := writePrivate(a.file, []byte(token+"\n")); err != nil {
		a.Close()
		return nil, fmt.Errorf("lab token: %w", err)
	}
	return a, nil
}

// Secure installs the security layer on device name's server and returns
// what wraps its HTTP handler: bearer-token authentication, the policy,
// masking, limits and, when the lab keeps one, the device's audit log.
// Call it once per server, after server.New and before any session.
func (a *Auth) Secure(name string, srv *server.Server) (func(http.Handler) http.Handler, error) {
	opts := server.SecurityOptions{Policy: a.pol, Verifier: a.verifier, LocalRole: server.NoRole}
	if a.audit != nil {
		log, err := a.audit(name)
		if err != nil {
			return nil, err
		}
		opts.Audit = log
	}
	sec, err := srv.Secure(opts)
	if err != nil {
		return nil, err
	}
	return sec.HTTPHandler, nil
}

// Credentials are what an inventory entry of the lab's devices names:
// the token's file.
func (a *Auth) Credentials() inventory.Credentials {
	return inventory.Credentials{TokenFile: a.file}
}

// Close removes the token's file (unless a newer lab of the same state
// directory has replaced it) or its temporary directory: the token is
// worthless once its lab has stopped, its key gone with the process.
func (a *Auth) Close() error {
	switch {
	case a == nil:
		return nil
	case a.tmp != "":
		return os.RemoveAll(a.tmp)
	}
	if b, err := os.ReadFile(a.file); err == nil && bytes.Equal(bytes.TrimSpace(b), []byte(a.token)) {
		return os.Remove(a.file)
	}
	return nil
}

// TokenFile is the file holding the token.
func (a *Auth) TokenFile() string { return a.file }

// HTTPClient returns a new HTTP client, with connections of its own, that
// sends the token (and refuses any other host than loopback).
func (a *Auth) HTTPClient() *http.Client {
	return &http.Client{Transport: &bearer{token: a.token, next: http.DefaultTransport.(*http.Transport).Clone()}}
}

// bearer is an http.RoundTripper that sends the lab's token.
type bearer struct {
	token string
	next  *http.Transport
}

// CloseIdleConnections closes the idle connections of its transport (as
// http.Client.CloseIdleConnections asks).
func (b *bearer) CloseIdleConnections() { b.next.CloseIdleConnections() }

// RoundTrip implements http.RoundTripper.
func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if !isLoopbackHost(r.URL.Hostname()) {
		return nil, errors.New("the lab's token is sent only to its devices on loopback")
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// isLoopbackHost reports whether host (no port) is a loopback address or
// localhost.
func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
