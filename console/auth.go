package console

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/netmcp/netmcp/policy"
)

// Names on the wire of the session and its CSRF token.
const (
	cookieName = "netmcp_console"
	csrfHeader = "X-CSRF-Token"
	csrfField  = "csrf"
)

// contentSecurityPolicy allows the console's own script and style files
// and nothing inline, nothing from elsewhere, no framing.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// Roles of a console session.
const (
	// RoleOperator may see everything, ask, apply a fix and decide an
	// approval.
	RoleOperator = "operator"
	// RoleViewer may see everything and change nothing: no ask, no apply,
	// no approval (refused with 403, and no such button is shown).
	RoleViewer = "viewer"
)

// session is a logged-in browser, or a request with a bearer token.
type session struct {
	user    string
	role    string
	csrf    string
	expires time.Time
	// id is the policy identity of a session opened by a client
	// certificate or a bearer token (nil: a one-time login's).
	id *policy.Identity
	// cert is the client certificate subject an mTLS session is bound to:
	// a request with another certificate, or none, is not of it.
	cert string
	// header marks the identity of one request's Authorization header:
	// no cookie, and no CSRF token (no browser sends the header on its
	// own).
	header bool
}

// operator tells whether the session may change anything.
func (s *session) operator() bool { return s.role == RoleOperator }

// login is a one-time login token not used yet.
type login struct{ user, role string }

// auth holds the one-time login tokens and the sessions they opened.
type auth struct {
	ttl time.Duration

	mu       sync.Mutex
	token    string // the first login's token, "" once used
	logins   map[string]login
	sessions map[string]*session
}

func newAuth(token, user string, ttl time.Duration) *auth {
	if token == "" {
		token = randomToken()
	}
	return &auth{token: token, ttl: ttl, logins: map[string]login{token: {user: user, role: RoleOperator}}, sessions: map[string]*session{}}
}

// add makes a new one-time login token for user in role.
func (a *auth) add(user, role string) string {
	tok := randomToken()
	a.mu.Lock()
	a.logins[tok] = login{user: user, role: role}
	a.mu.Unlock()
	return tok
}

// open stores a session made elsewhere (a client certificate's) and
// returns the id its cookie carries.
func (a *auth) open(s *session) string {
	id := randomToken()
	a.mu.Lock()
	a.sessions[id] = s
	a.mu.Unlock()
	return id
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// exchange consumes a one-time login token for a new session; ok is false when
// the token is wrong or was already used.
func (a *auth) exchange(token string) (id string, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var who login
	found := false
	for tok, l := range a.logins {
		if subtle.ConstantTimeCompare([]byte(token), []byte(tok)) == 1 {
			who, found = l, true
			delete(a.logins, tok)
			if tok == a.token {
				a.token = ""
			}
		}
	}
	if !found || token == "" {
		return "", false
	}
	id = randomToken()
	a.sessions[id] = &session{user: who.user, role: who.role, csrf: randomToken(), expires: time.Now().Add(a.ttl)}
	return id, true
}

// session returns the live session of the request's cookie.
func (a *auth) session(r *http.Request) (*session, bool) {
	c, err := r.Cookie(cookieName)
	if err != nil || c.Value == "" {
		return nil, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[c.Value]
	if !ok {
		return nil, false
	}
	if time.Now().After(s.expires) {
		delete(a.sessions, c.Value)
		return nil, false
	}
	return s, true
}

func (a *auth) end(r *http.Request) {
	if c, err := r.Cookie(cookieName); err == nil {
		a.mu.Lock()
		delete(a.sessions, c.Value)
		a.mu.Unlock()
	}
}

// validCSRF tells whether the request carries the session's CSRF token
// (header or form field) and, when the browser says where it comes from,
// comes from the console's own origin.
func validCSRF(r *http.Request, s *session) bool {
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || u.Host != r.Host {
			return false
		}
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return false
	}
	tok := r.Header.Get(csrfHeader)
	if tok == "" {
		tok = r.PostFormValue(csrfField)
	}
	return tok != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(s.csrf)) == 1
}

// loopbackOnly tells whether the request comes from loopback and names a
// loopback host (a DNS-rebinding page names its own).
func loopbackOnly(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return false
	}
	h := r.Host
	if hh, _, err := net.SplitHostPort(h); err == nil {
		h = hh
	}
	h = strings.Trim(h, "[]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// securityHeaders are set on every response.
func securityHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin") // "no-referrer" makes Chromium send "Origin: null" with a form
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}
