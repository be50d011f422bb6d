package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/netmcp/netmcp/netproto"
)

// WellKnownPath is where RFC 9728 protected-resource metadata is served.
const WellKnownPath = "/.well-known/oauth-protected-resource"

// ResourceMetadata is the RFC 9728 protected-resource metadata document.
type ResourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers,omitempty"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported []string `json:"bearer_methods_supported,omitempty"`
	ResourceName           string   `json:"resource_name,omitempty"`
	ResourceSigningAlgs    []string `json:"resource_signing_alg_values_supported,omitempty"`
}

// ResourceMetadata returns the metadata of the policy's jwt section: the
// resource, its authorization servers, and the scopes netmcp understands.
func (p *Policy) ResourceMetadata() (ResourceMetadata, error) {
	c := p.file.JWT
	if c == nil || c.Resource == "" {
		return ResourceMetadata{}, errors.New("policy: the jwt section has no resource")
	}
	scopes := []string{"tool:*"}
	for _, t := range slices.Concat(netproto.NetworkTools, DiagnosticTools, []string{netproto.ToolCapture, netproto.ToolClearCounters}) {
		scopes = append(scopes, "tool:"+t)
	}
	scopes = append(scopes, "resource:*", "yang:*", "yang-write:*", ScopeSecrets)
	return ResourceMetadata{
		Resource:               c.Resource,
		AuthorizationServers:   c.AuthorizationServers,
		ScopesSupported:        scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "netmcp device server",
	}, nil
}

// MetadataHandler serves m as JSON to GET and HEAD requests.
func MetadataHandler(m ResourceMetadata) http.Handler {
	body, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		panic(err) // plain strings always marshal
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "max-age=3600")
		if r.Method == http.MethodGet {
			w.Write(body)
		}
	})
}

// ServeWellKnown answers a request for a path below WellKnownPath: meta
// (MetadataHandler's) at WellKnownPath and at WellKnownPath+"/mcp" (the
// metadata of the /mcp resource, RFC 9728 section 3.1), 404 elsewhere
// and when meta is nil (no bearer tokens accepted). It reports whether r
// was such a request, and so answered.
func ServeWellKnown(meta http.Handler, w http.ResponseWriter, r *http.Request) bool {
	if !strings.HasPrefix(r.URL.Path, WellKnownPath) {
		return false
	}
	if meta != nil && (r.URL.Path == WellKnownPath || r.URL.Path == WellKnownPath+"/mcp") {
		meta.ServeHTTP(w, r)
		return true
	}
	http.NotFound(w, r)
	return true
}

// MetadataURL is the address of the metadata document of the server that
// r reached (https when r came over TLS), for a 401's WWW-Authenticate
// resource_metadata parameter.
func MetadataURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + WellKnownPath
}

// BearerMiddleware authenticates every request by its "Authorization:
// Bearer" token with v and p, and passes the identity in the request
// context (IdentityFrom). A missing or invalid token gets 401 with a
// WWW-Authenticate header pointing to metadataURL (RFC 9728 section 5.1).
func (p *Policy) BearerMiddleware(v *Verifier, metadataURL string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		scheme, token, ok := strings.Cut(auth, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q`, metadataURL))
			http.Error(w, "bearer token required", http.StatusUnauthorized)
			return
		}
		id, err := p.Authenticate(v, strings.TrimSpace(token))
		if err != nil {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q, error="invalid_token"`, metadataURL))
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(WithIdentity(r.Context(), id)))
	})
}
