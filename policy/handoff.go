package policy

import (
	"crypto/rand"
	"net/http"
	"sync"
)

// IdentityRefHeader carries, from the HTTP middleware that authenticated a
// request to the MCP handlers serving that request, a one-request
// reference to the identity (see RequestIdentities).
const IdentityRefHeader = "Netmcp-Identity-Ref"

// RequestIdentities hands the identity an HTTP middleware authenticated
// to the MCP handlers of the same request, which see its headers
// (mcp.RequestExtra.Header) but not its context. The middleware calls
// Hold; a handler calls Of. A reference is random and lives only while
// its request is served; Hold first removes any reference the client
// sent, so a client cannot name another request's identity. The zero
// value is ready to use.
type RequestIdentities struct {
	mu sync.Mutex
	m  map[string]Identity
}

// Hold records id for request r until release, which the middleware
// calls (deferred) when r has been served.
func (h *RequestIdentities) Hold(r *http.Request, id Identity) (release func()) {
	ref := rand.Text()
	r.Header.Set(IdentityRefHeader, ref)
	h.mu.Lock()
	if h.m == nil {
		h.m = map[string]Identity{}
	}
	h.m[ref] = id
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		delete(h.m, ref)
		h.mu.Unlock()
	}
}

// Of returns the identity held for the reference in header, if its
// request is still being served.
func (h *RequestIdentities) Of(header http.Header) (Identity, bool) {
	ref := header.Get(IdentityRefHeader)
	if ref == "" {
		return Identity{}, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	id, ok := h.m[ref]
	return id, ok
}
