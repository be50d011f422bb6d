package server

import (
	"fmt"
	"net"
	"net/http"
	"strconv"

	"github.com/netmcp/netmcp/internal/peercred"
	"github.com/netmcp/netmcp/policy"
)

// sessionHeader is the Streamable HTTP session header.
const sessionHeader = "Mcp-Session-Id"

// HTTPHandler authenticates every HTTP request before next (the
// Streamable HTTP handler of package transport) sees it:
//
//   - "Authorization: Bearer JWT" is verified with SecurityOptions.Verifier
//     (401 with WWW-Authenticate when invalid, or when no verifier is set);
//   - otherwise a client certificate verified by the TLS layer (mutual TLS)
//     names the caller (policy.IdentityFromTLS);
//   - otherwise, when bearer tokens are configured, 401 with
//     `WWW-Authenticate: Bearer resource_metadata=".../.well-known/oauth-protected-resource"`;
//   - otherwise the caller is anonymous: the policy's default roles for
//     anonymous callers, or the local role for a peer on loopback.
//
// A request naming a session (Mcp-Session-Id) bound to another identity
// gets 403. The RFC 9728 protected-resource metadata is served at
// policy.WellKnownPath (and that path followed by /mcp) when the policy
// has a jwt section.
func (sec *Security) HTTPHandler(next http.Handler) http.Handler {
	var meta http.Handler
	if md, err := sec.pol.ResourceMetadata(); err == nil && sec.opts.Verifier != nil {
		meta = policy.MetadataHandler(md)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if policy.ServeWellKnown(meta, w, r) {
			return
		}
		id, status, why := sec.authenticateHTTP(r)
		if status != 0 {
			if status == http.StatusUnauthorized {
				challenge := fmt.Sprintf("Bearer resource_metadata=%q", policy.MetadataURL(r))
				if why != errTokenRequired {
					challenge += `, error="invalid_token"`
				}
				w.Header().Set("WWW-Authenticate", challenge)
			}
			sec.s.log.Info("HTTP request refused", "status", status, "remote", r.RemoteAddr, "reason", why)
			http.Error(w, why, status)
			return
		}
		if sid := r.Header.Get(sessionHeader); sid != "" {
			if owner, ok := sec.sessionOwner(sid); ok && owner != id.String() {
				sec.s.log.Info("HTTP request refused: session of another identity", "identity", id.String(), "remote", r.RemoteAddr)
				http.Error(w, fmt.Sprintf("Forbidden: this session belongs to another identity than %s", id), http.StatusForbidden)
				return
			}
		}
		defer sec.pending.Hold(r, id)()
		next.ServeHTTP(w, r)
	})
}

const errTokenRequired = "bearer token required"

// authenticateHTTP returns the identity of r, or an HTTP status and why.
func (sec *Security) authenticateHTTP(r *http.Request) (policy.Identity, int, string) {
	id, ok, err := sec.pol.AuthenticateHTTP(sec.opts.Verifier, r)
	switch {
	case err != nil:
		return policy.Identity{}, http.StatusUnauthorized, err.Error()
	case ok:
		return id, 0, ""
	}
	if sec.opts.Verifier != nil {
		return policy.Identity{}, http.StatusUnauthorized, errTokenRequired
	}
	id = sec.pol.Resolve("", policy.SourceAnonymous, nil)
	if isLoopbackAddr(r.RemoteAddr) {
		id = sec.withLocalRole(id)
		// Local callers are told apart by the account they run as,
		// where the OS says (peercred): each user then has the
		// per-identity bounds (sessions, rate) to itself, instead of one
		// local process holding every session of a shared identity.
		if uid, ok := peercred.UID(r.Context()); ok {
			id.Subject = "uid:" + strconv.FormatUint(uint64(uid), 10)
		}
	}
	return id, 0, ""
}

// isLoopbackAddr reports whether a host:port names a loopback address.
func isLoopbackAddr(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
