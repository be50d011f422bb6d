package transport

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Path is the URL path of the MCP endpoint.
const Path = "/mcp"

// DefaultSessionTimeout closes an HTTP session idle for this long.
const DefaultSessionTimeout = 30 * time.Minute

// DefaultMaxBodyBytes bounds one HTTP request body (4 MiB).
const DefaultMaxBodyBytes = 4 << 20

// HTTPOptions configure NewHTTPHandler.
type HTTPOptions struct {
	// SessionTimeout closes a session that received no request for this
	// long. Zero means DefaultSessionTimeout; negative means never.
	SessionTimeout time.Duration
	// AllowedHosts are host names (without port) accepted in the Host
	// header besides loopback ones ("localhost", 127.0.0.0/8, ::1).
	AllowedHosts []string
	// AllowedOrigins are origins ("https://console.example") accepted in
	// the Origin header besides loopback ones.
	AllowedOrigins []string
	// MaxBodyBytes bounds a request body; zero means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// JSONResponse answers POSTs with application/json instead of an SSE
	// stream (notifications made while a request runs then go to the GET stream).
	JSONResponse bool
	// Logger receives transport logs; nil discards them.
	Logger *slog.Logger
}

// NewHTTPHandler returns an http.Handler serving stateful Streamable HTTP
// at Path ("/mcp"); every other path is 404. getServer returns the server
// of a new session (it may return the same server every time). Requests
// whose Host or Origin header is not loopback or allowed get 403 (DNS
// rebinding protection); POST bodies pass through Normalize.
func NewHTTPHandler(getServer func(*http.Request) *mcp.Server, opts HTTPOptions) http.Handler {
	timeout := opts.SessionTimeout
	if timeout == 0 {
		timeout = DefaultSessionTimeout
	} else if timeout < 0 {
		timeout = 0
	}
	limit := opts.MaxBodyBytes
	if limit == 0 {
		limit = DefaultMaxBodyBytes
	}
	inner := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		SessionTimeout:      timeout,
		JSONResponse:        opts.JSONResponse,
		Logger:              opts.Logger,
		MaxRequestBodyBytes: limit,
		// Host checking is done below, with the allow-list; the SDK's own
		// check would refuse allowed non-loopback names on a loopback socket.
		DisableLocalhostProtection: true,
	})
	return &httpHandler{inner: inner, opts: opts, limit: limit}
}

type httpHandler struct {
	inner http.Handler
	opts  HTTPOptions
	limit int64
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != Path {
		http.NotFound(w, r)
		return
	}
	if !h.hostAllowed(r.Host) {
		http.Error(w, "Forbidden: Host "+quote(r.Host)+" is not a loopback or allowed host", http.StatusForbidden)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !h.originAllowed(o) {
		http.Error(w, "Forbidden: Origin "+quote(o)+" is not a loopback or allowed origin", http.StatusForbidden)
		return
	}
	if r.Method == http.MethodPost && r.Body != nil {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.limit))
		r.Body.Close()
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				http.Error(w, "request body larger than the limit", http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "reading request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		body = Normalize(body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
	}
	h.inner.ServeHTTP(w, r)
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// hostAllowed reports whether a Host header value names a loopback
// address, "localhost" or an allowed host.
func (h *httpHandler) hostAllowed(hostport string) bool {
	host := hostport
	if hh, _, err := net.SplitHostPort(hostport); err == nil {
		host = hh
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if isLoopbackHost(host) {
		return true
	}
	return slices.ContainsFunc(h.opts.AllowedHosts, func(a string) bool { return strings.EqualFold(a, host) })
}

func (h *httpHandler) originAllowed(origin string) bool {
	if slices.ContainsFunc(h.opts.AllowedOrigins, func(a string) bool {
		return strings.EqualFold(strings.TrimSuffix(a, "/"), strings.TrimSuffix(origin, "/"))
	}) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	return isLoopbackHost(u.Hostname())
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
