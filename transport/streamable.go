package transport

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/transport/internal/rpcconn"
)

// This file is netmcp's own stateful Streamable HTTP server transport (MCP
// 2025-11-25 "Streamable HTTP"), in place of the SDK's
// mcp.StreamableHTTPHandler: each POST body is decoded once, in place
// (rpcconn.Check), a call's answer is written by the goroutine that makes
// it straight into the waiting POST's response (application/json, or an SSE
// stream once a message related to the call precedes it), and a result is
// encoded by appending its bytes. Status codes and header checks follow the
// SDK's handler (go-sdk v1.8.0 mcp/streamable.go), without event store:
// streams cannot be resumed with Last-Event-ID.

// HTTP header names of the Streamable HTTP transport.
const (
	headerSessionID   = "Mcp-Session-Id"
	headerProtocol    = "Mcp-Protocol-Version"
	headerLastEventID = "Last-Event-ID"
)

// Protocol versions the transport treats specially.
const (
	// version20251125 is the first version with the SSE "close" event
	// (CloseSSEStream with a retry delay).
	version20251125 = "2025-11-25"
	// version20260728 is the per-request protocol (SEP-2575) that the SDK
	// serves over stateless HTTP only: this stateful transport rejects it.
	version20260728 = "2026-07-28"
	// versionDefault is the version of a request without Mcp-Protocol-Version.
	versionDefault = "2025-03-26"
)

// sdkVersions are the protocol versions the SDK negotiates (netmcp does not
// narrow them with ServerOptions.SupportedProtocolVersions).
var sdkVersions = mcp.SupportedProtocolVersions()

// errRejected is the SDK's jsonrpc2.ErrRejected (code -32005; errors.Is
// compares codes): a Write error wrapping it fails that write only, where
// any other error would end the whole session.
var errRejected = &jsonrpc.Error{Code: -32005, Message: "rejected by transport"}

// errSessionClosed is the Write error after the session closed.
var errSessionClosed = errors.New("session is closed")

// streamable serves the sessions of one handler.
type streamable struct {
	getServer    func(*http.Request) *mcp.Server
	timeout      time.Duration // idle timeout; 0: never
	jsonResponse bool
	logger       *slog.Logger

	mu       sync.Mutex
	sessions map[string]*httpSession
}

func newStreamable(getServer func(*http.Request) *mcp.Server, timeout time.Duration, jsonResponse bool, logger *slog.Logger) *streamable {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &streamable{getServer: getServer, timeout: timeout, jsonResponse: jsonResponse,
		logger: logger, sessions: map[string]*httpSession{}}
}

// serve answers one request whose outer checks passed; body is the POST
// body, already read and normalised (nil for other methods).
func (s *streamable) serve(w http.ResponseWriter, r *http.Request, body []byte) {
	// The SDK validates Mcp-Protocol-Version for every method: a version it
	// does not negotiate is refused (2026-07-28 and later are answered per
	// request below).
	if v := r.Header.Get(headerProtocol); v != "" && !slices.Contains(sdkVersions, v) && v < version20260728 {
		http.Error(w, fmt.Sprintf("Bad Request: Unsupported protocol version (supported versions: %s)", strings.Join(sdkVersions, ",")), http.StatusBadRequest)
		return
	}
	switch r.Method {
	case http.MethodPost:
		s.servePOST(w, r, body)
	case http.MethodGet:
		s.serveGET(w, r)
	case http.MethodDelete:
		s.serveDELETE(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

// lookup returns the session named by the Mcp-Session-Id header, or writes
// the error (400 without the header, 404 unknown, 403 another user's) and
// returns nil.
func (s *streamable) lookup(w http.ResponseWriter, r *http.Request) *httpSession {
	id := r.Header.Get(headerSessionID)
	if id == "" {
		http.Error(w, "Bad Request: "+r.Method+" requires an Mcp-Session-Id header", http.StatusBadRequest)
		return nil
	}
	s.mu.Lock()
	sess := s.sessions[id]
	s.mu.Unlock()
	if sess == nil {
		http.Error(w, "session not found", http.StatusNotFound)
		return nil
	}
	if sess.userID != "" {
		if ti := auth.TokenInfoFromContext(r.Context()); ti == nil || ti.UserID != sess.userID {
			http.Error(w, "session user mismatch", http.StatusForbidden)
			return nil
		}
	}
	return sess
}

func (s *streamable) serveDELETE(w http.ResponseWriter, r *http.Request) {
	sess := s.lookup(w, r)
	if sess == nil {
		return
	}
	_ = sess.ss.Close()
	w.WriteHeader(http.StatusNoContent)
}

func (s *streamable) serveGET(w http.ResponseWriter, r *http.Request) {
	if _, streamOK := accepts(r.Header.Values("Accept")); !streamOK {
		http.Error(w, "Accept must contain 'text/event-stream' for GET requests", http.StatusBadRequest)
		return
	}
	sess := s.lookup(w, r)
	if sess == nil {
		return
	}
	if vs := r.Header.Values(headerLastEventID); len(vs) > 0 {
		if !validEventID(vs[0]) {
			http.Error(w, fmt.Sprintf("malformed Last-Event-ID %q", vs[0]), http.StatusBadRequest)
			return
		}
		http.Error(w, "stream replay unsupported", http.StatusBadRequest)
		return
	}
	c := sess.conn
	g := &getStream{w: w}
	c.mu.Lock()
	if c.get != nil {
		c.mu.Unlock()
		http.Error(w, "stream ID conflicts with ongoing stream", http.StatusConflict)
		return
	}
	c.get = g
	// Headers and a comment go out at once: the stream may stay silent
	// for long, and proxies hold back headers without a body.
	g.mu.Lock()
	c.mu.Unlock()
	setSSEHeaders(w.Header())
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, ": ok\n\n")
	flush(w)
	g.mu.Unlock()

	select {
	case <-r.Context().Done():
	case <-c.done:
	}
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	c.mu.Lock()
	if c.get == g {
		c.get = nil
	}
	c.mu.Unlock()
}

// validEventID reports whether v has the SDK's form of an event id,
// <stream>_<index>.
func validEventID(v string) bool {
	parts := strings.Split(v, "_")
	if len(parts) != 2 {
		return false
	}
	n, err := strconv.Atoi(parts[1])
	return err == nil && n >= 0
}

func (s *streamable) servePOST(w http.ResponseWriter, r *http.Request, body []byte) {
	if baseMediaType(r.Header.Get("Content-Type")) != "application/json" {
		http.Error(w, "Content-Type must be 'application/json'", http.StatusUnsupportedMediaType)
		return
	}
	if jsonOK, streamOK := accepts(r.Header.Values("Accept")); !jsonOK || !streamOK {
		http.Error(w, "Accept must contain both 'application/json' and 'text/event-stream'", http.StatusBadRequest)
		return
	}
	var sess *httpSession
	if r.Header.Get(headerSessionID) != "" {
		if sess = s.lookup(w, r); sess == nil {
			return
		}
	}
	if len(r.Header.Values(headerLastEventID)) > 0 {
		http.Error(w, "can't send Last-Event-ID for POST request", http.StatusBadRequest)
		return
	}
	msg, reply := rpcconn.Check(body)
	if reply != nil {
		// What the SDK would answer with another id, or code 0.
		writeJSON(w, http.StatusBadRequest, reply)
		return
	}
	if msg == nil {
		http.Error(w, "POST requires a non-empty body", http.StatusBadRequest)
		return
	}
	req, _ := msg.(*jsonrpc.Request)
	if req != nil && rejectPerRequest(w, r, req) {
		return
	}
	if sess == nil {
		// Only a call that can open a session (initialize) or ask which
		// versions the server speaks (server/discover, SEP-2575: its session
		// ends with it) may come without a session.
		if req == nil || !req.IsCall() || req.Method != "initialize" && req.Method != "server/discover" {
			http.Error(w, "Bad Request: a POST without an Mcp-Session-Id header must be an initialize call", http.StatusBadRequest)
			return
		}
		if sess = s.connect(w, r); sess == nil {
			return
		}
		// A session whose initialize failed cannot be used: close it.
		defer func() {
			if sess.ss.InitializeParams() == nil {
				_ = sess.ss.Close()
			}
		}()
	}
	sess.startPOST()
	defer sess.endPOST()
	c := sess.conn

	if req == nil || !req.IsCall() {
		if req != nil {
			req.Extra = &mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context()), Header: r.Header}
		}
		if !c.deliver(msg) {
			http.Error(w, "session is closing", http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}

	version := r.Header.Get(headerProtocol)
	if version == "" {
		version = versionDefault
	}
	cl := &call{w: w, done: make(chan struct{}), method: req.Method, version: version}
	extra := &mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context()), Header: r.Header,
		CloseSSEStream: cl.closeStream}
	req.Extra = extra
	c.mu.Lock()
	if _, dup := c.calls[req.ID]; dup {
		c.mu.Unlock()
		writeJSONRPCError(w, http.StatusBadRequest, req.ID, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: fmt.Sprintf("duplicate in-flight request ID %v", req.ID.Raw())})
		return
	}
	c.calls[req.ID] = cl
	c.mu.Unlock()
	relatedCalls.Store(extra, cl)
	defer relatedCalls.Delete(extra)
	if req.Method == "initialize" {
		w.Header().Set(headerSessionID, c.id)
	}
	if !c.deliver(msg) {
		c.forget(req.ID)
		http.Error(w, "session is closing", http.StatusNotFound)
		return
	}
	var closed bool
	select {
	case <-cl.done:
	case <-r.Context().Done():
		// The SDK does not cancel the call either: its answer is dropped.
	case <-c.done:
		closed = true
	}
	cl.mu.Lock()
	written := cl.state != callWaiting
	cl.state = callEnded
	cl.mu.Unlock()
	if closed && !written {
		http.Error(w, "session closed", http.StatusNotFound)
	}
}

// rejectPerRequest answers a call of the per-request protocol (SEP-2575: a
// 2026-07-28 Mcp-Protocol-Version header, or a protocol version in _meta)
// as the SDK's stateful handler does, since only a stateless one serves
// it: 400 with error -32022 and the versions this server accepts. It
// reports whether it answered. server/discover passes (the session answers
// it).
func rejectPerRequest(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) bool {
	header := r.Header.Get(headerProtocol)
	version := header
	if version == "" {
		version = versionDefault
	}
	meta := metaVersion(req.Params)
	if !(req.IsCall() && version >= version20260728) && meta == "" || req.Method == "server/discover" {
		return false
	}
	legacy := slices.DeleteFunc(slices.Clone(sdkVersions), func(v string) bool { return v >= version20260728 })
	data, _ := json.Marshal(mcp.UnsupportedProtocolVersionData{Supported: legacy, Requested: version})
	writeJSONRPCError(w, http.StatusBadRequest, req.ID, &jsonrpc.Error{
		Code:    mcp.CodeUnsupportedProtocolVersion,
		Message: fmt.Sprintf("protocol version %q is not supported by this server", version),
		Data:    data,
	})
	return true
}

// metaVersion returns the per-request protocol version in params' _meta,
// or "".
func metaVersion(params json.RawMessage) string {
	if !bytes.Contains(params, []byte(mcp.MetaKeyProtocolVersion)) {
		return ""
	}
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	v, _ := p.Meta[mcp.MetaKeyProtocolVersion].(string)
	return v
}

// connect starts a session on the server for r, or writes the error and
// returns nil.
func (s *streamable) connect(w http.ResponseWriter, r *http.Request) *httpSession {
	srv := s.getServer(r)
	if srv == nil {
		http.Error(w, "no server available", http.StatusBadRequest)
		return nil
	}
	addRelatedMiddleware(srv)
	sess := &httpSession{h: s, timeout: s.timeout}
	sess.conn = &httpConn{id: rand.Text(), sess: sess, jsonResponse: s.jsonResponse,
		incoming: make(chan jsonrpc.Message, 16), done: make(chan struct{}), calls: map[jsonrpc.ID]*call{}}
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
		sess.userID = ti.UserID
	}
	// Registered before Connect: Close (the session's end, whatever
	// causes it) removes it.
	s.mu.Lock()
	s.sessions[sess.conn.id] = sess
	s.mu.Unlock()
	ss, err := srv.Connect(r.Context(), &httpTransport{conn: sess.conn}, nil)
	if err != nil {
		_ = sess.conn.Close()
		s.logger.Error("failed to connect: " + err.Error())
		http.Error(w, "failed connection", http.StatusInternalServerError)
		return nil
	}
	sess.ss = ss
	if s.timeout > 0 {
		sess.timerMu.Lock()
		sess.timer = time.AfterFunc(s.timeout, func() { _ = ss.Close() })
		sess.timerMu.Unlock()
	}
	return sess
}

// remove forgets the session with id.
func (s *streamable) remove(id string) {
	s.mu.Lock()
	delete(s.sessions, id)
	s.mu.Unlock()
}

func writeJSON(w http.ResponseWriter, status int, data []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

func writeJSONRPCError(w http.ResponseWriter, status int, id jsonrpc.ID, jerr *jsonrpc.Error) {
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: jerr})
	if err != nil {
		http.Error(w, jerr.Message, status)
		return
	}
	writeJSON(w, status, data)
}

// accepts reports whether Accept values admit JSON and an SSE stream (the
// SDK's streamableAccepts: parameters ignored, wildcards honoured).
func accepts(values []string) (jsonOK, streamOK bool) {
	for _, value := range values {
		for raw := range strings.SplitSeq(value, ",") {
			base, _, _ := strings.Cut(raw, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK, streamOK
}

// baseMediaType returns the media type of a Content-Type value, "" when
// it does not parse.
func baseMediaType(value string) string {
	mt, _, err := mime.ParseMediaType(value)
	if err != nil {
		return ""
	}
	return mt
}
