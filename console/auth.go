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

// session is a logged-in browser.
type session struct {
	csrf    string
	expires time.Time
}

// auth holds the one-time login token and the sessions it opened.
type auth struct {
	ttl time.Duration

	mu       sync.Mutex
	token    string // "" once used
	sessions map[string]*session
}

func newAuth(token string, ttl time.Duration) *auth {
	if token == "" {
		token = randomToken()
	}
	return &auth{token: token, ttl: ttl, sessions: map[string]*session{}}
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// exchange consumes the login token for a new session; ok is false when
// the token is wrong or was already used.
func (a *auth) exchange(token string) (id string, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.token == "" || subtle.ConstantTimeCompare([]byte(token), []byte(a.token)) != 1 {
		return "", false
	}
	a.token = ""
	id = randomToken()
	a.sessions[id] = &session{csrf: randomToken(), expires: time.Now().Add(a.ttl)}
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
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}
