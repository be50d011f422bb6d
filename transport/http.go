package transport

import (
	"cmp"
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

	"github.com/netmcp/netmcp/internal/peercred"
)

// Path is the URL path of the MCP endpoint.
const Path = "/mcp"

// DefaultSessionTimeout closes an HTTP session idle for this long.
const DefaultSessionTimeout = 30 * time.Minute

// DefaultMaxBodyBytes bounds one HTTP request body (4 MiB).
const DefaultMaxBodyBytes = 4 << 20

// DefaultEventStoreBytes bounds the memory event store of a handler made
// by NewHTTPHandler (8 MiB, shared by all its sessions): the stored events
// of SSE streams, kept so that a client whose stream dropped can resume it
// with Last-Event-ID. Past the bound the oldest events of every stream are
// dropped first, and resuming a stream before a dropped event fails (400).
const DefaultEventStoreBytes = 8 << 20

// Connection timeouts of the HTTP server (see NewHTTPServer and HTTPOptions).
const (
	// DefaultReadHeaderTimeout bounds the time to receive a request's headers.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultBodyReadTimeout bounds the time to receive a POST body once
	// its headers arrived.
	DefaultBodyReadTimeout = 30 * time.Second
	// DefaultWriteTimeout bounds each write of a response (one JSON-RPC
	// message, one SSE event): a peer that stops reading is cut off.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultIdleTimeout closes a keep-alive connection that carries no
	// request for this long.
	DefaultIdleTimeout = 2 * time.Minute
)

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
	// JSONResponse answers every call with application/json: messages a
	// call's handler sends before its answer (progress, logs, elicitation)
	// go to the GET stream instead of turning the answer into an SSE stream.
	JSONResponse bool
	// Logger receives transport logs; nil discards them.
	Logger *slog.Logger
	// EventStoreBytes bounds the memory event store (mcp.MemoryEventStore)
	// that makes SSE streams resumable: each event of an SSE stream (a POST
	// answered as SSE, the GET stream) is stored and carries an id, and a
	// GET with Last-Event-ID replays the events after it, then carries the
	// rest of the stream. Zero means DefaultEventStoreBytes; negative turns
	// the store off (events carry no id, Last-Event-ID is refused with 400).
	// A call answered with plain application/json never touches the store.
	EventStoreBytes int
	// EventStore replaces the memory event store (EventStoreBytes is then
	// ignored); nil means the memory store.
	EventStore mcp.EventStore
	// BodyReadTimeout bounds the time to receive a POST body after its
	// headers; a peer that sends headers and then too little is answered
	// 408 and its connection closed. Zero means DefaultBodyReadTimeout.
	BodyReadTimeout time.Duration
	// WriteTimeout bounds each write of a response (a JSON response, one
	// SSE event); the time between writes is not bounded, so SSE streams
	// and long tool calls are never cut. Zero means DefaultWriteTimeout.
	WriteTimeout time.Duration
}

// ServerTimeouts configure NewHTTPServer; zero members take the defaults.
type ServerTimeouts struct {
	// ReadHeader bounds the time to receive a request's headers
	// (DefaultReadHeaderTimeout).
	ReadHeader time.Duration
	// Idle closes a keep-alive connection without a request for this long
	// (DefaultIdleTimeout).
	Idle time.Duration
}

// NewHTTPServer returns the http.Server of a handler made by
// NewHTTPHandler, with timeouts that keep idle or stalled connections from
// holding the server's file descriptors:
//
//   - ReadHeaderTimeout bounds the headers of every request;
//   - IdleTimeout closes idle keep-alive connections;
//   - the body of a POST and each write of a response are bounded per
//     request by the handler itself (HTTPOptions.BodyReadTimeout and
//     WriteTimeout, through http.ResponseController).
//
// http.Server's own ReadTimeout and WriteTimeout stay zero on purpose: they
// bound a whole request and its response from the first byte, which would
// cut a server-sent-event stream (the GET stream, a POST answered with
// SSE) and any tool call that runs longer than the timeout; ReadTimeout
// would also cancel a running handler's context once it elapsed.
// Each request's context also carries its connection for peercred.UID,
// which tells local callers apart by their user.
// Serve it on a listener made by GuardListener to also bound connections
// per source and survive failing Accepts.
func NewHTTPServer(h http.Handler, t ServerTimeouts) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: cmp.Or(t.ReadHeader, DefaultReadHeaderTimeout),
		IdleTimeout:       cmp.Or(t.Idle, DefaultIdleTimeout),
		ConnContext:       peercred.WithConn,
	}
}

// NewHTTPHandler returns an http.Handler serving stateful Streamable HTTP
// at Path ("/mcp"); every other path is 404. getServer returns the server
// of a new session (it may return the same server every time); the
// handler adds a receiving middleware to each server once (see
// streamable.go). Requests whose Host or Origin header is not loopback or
// allowed get 403 (DNS rebinding protection); POST bodies pass through
// Normalize, and one that is not a JSON-RPC message the SDK answers
// correctly (malformed JSON, a batch, an id it would not echo exactly,
// initialize with invalid params) is answered 400 with the JSON-RPC error
// (see package rpcconn). A call is answered with application/json, or
// with an SSE stream when its handler sends a message (progress, a log,
// elicitation) before the answer; messages unrelated to a call go to the
// session's GET stream. SSE events carry ids from an event store (see
// HTTPOptions.EventStoreBytes), a POST's SSE stream starts with a priming
// event from protocol 2025-11-25, and a client whose stream dropped (or
// was closed by the server, SEP-1699) resumes it with a GET carrying
// Last-Event-ID: the stored events after that id are replayed, then the
// rest of the stream, including the call's answer, follows on that GET.
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
	store := opts.EventStore
	if store == nil && opts.EventStoreBytes >= 0 {
		ms := mcp.NewMemoryEventStore(nil)
		ms.SetMaxBytes(cmp.Or(opts.EventStoreBytes, DefaultEventStoreBytes))
		store = ms
	}
	return &httpHandler{inner: newStreamable(getServer, timeout, opts.JSONResponse, store, opts.Logger), opts: opts, limit: limit,
		bodyTimeout:  cmp.Or(opts.BodyReadTimeout, DefaultBodyReadTimeout),
		writeTimeout: cmp.Or(opts.WriteTimeout, DefaultWriteTimeout)}
}

type httpHandler struct {
	inner        *streamable
	opts         HTTPOptions
	limit        int64
	bodyTimeout  time.Duration
	writeTimeout time.Duration
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
	rc := http.NewResponseController(w)
	dw := &deadlineWriter{ResponseWriter: w, rc: rc, timeout: h.writeTimeout}
	// Leave a bounded deadline for what net/http writes after the handler
	// (the end of a chunked body); the next request's writes set their own.
	defer dw.arm()
	w = dw
	if r.Method == http.MethodPost && r.Body != nil {
		// The body must arrive within bodyTimeout; the deadline is lifted
		// afterwards, since net/http's background read of a connection whose
		// request runs (an SSE stream, a long tool call) must not time out.
		_ = rc.SetReadDeadline(time.Now().Add(h.bodyTimeout))
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.limit))
		r.Body.Close()
		_ = rc.SetReadDeadline(time.Time{})
		if err != nil {
			var mbe *http.MaxBytesError
			var ne net.Error
			switch {
			case errors.As(err, &mbe):
				http.Error(w, "request body larger than the limit", http.StatusRequestEntityTooLarge)
			case errors.As(err, &ne) && ne.Timeout():
				w.Header().Set("Connection", "close")
				http.Error(w, "request body not received within "+h.bodyTimeout.String(), http.StatusRequestTimeout)
			default:
				http.Error(w, "reading request body: "+err.Error(), http.StatusBadRequest)
			}
			return
		}
		h.inner.serve(w, r, Normalize(body))
		return
	}
	h.inner.serve(w, r, nil)
}

// deadlineWriter sets the connection's write deadline before each write of
// a response, so that every write (one JSON-RPC message, one SSE event)
// must complete within timeout while the time between writes (an idle SSE
// stream, a long tool call) is not bounded.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (d *deadlineWriter) arm() { _ = d.rc.SetWriteDeadline(time.Now().Add(d.timeout)) }

// WriteHeader implements http.ResponseWriter.
func (d *deadlineWriter) WriteHeader(code int) {
	d.arm()
	d.ResponseWriter.WriteHeader(code)
}

// Write implements http.ResponseWriter.
func (d *deadlineWriter) Write(p []byte) (int, error) {
	d.arm()
	return d.ResponseWriter.Write(p)
}

// Flush implements http.Flusher (the SDK flushes each SSE event).
func (d *deadlineWriter) Flush() {
	d.arm()
	_ = d.rc.Flush()
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (d *deadlineWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }

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
