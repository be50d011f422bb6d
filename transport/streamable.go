package transport

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"weak"

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
	// metaProtocolVersion is the _meta key of a per-request version.
	metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
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
	if !bytes.Contains(params, []byte(metaProtocolVersion)) {
		return ""
	}
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	v, _ := p.Meta[metaProtocolVersion].(string)
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

// httpSession is one session: its SDK session, its connection and its
// idle timer.
type httpSession struct {
	h      *streamable
	ss     *mcp.ServerSession
	conn   *httpConn
	userID string // of the token that made the session; "" for none

	timeout time.Duration
	timerMu sync.Mutex
	refs    int         // POSTs in flight
	timer   *time.Timer // nil: no timeout, or stopped for good
}

// startPOST pauses the idle timer while a POST runs.
func (s *httpSession) startPOST() {
	s.timerMu.Lock()
	defer s.timerMu.Unlock()
	if s.timer == nil {
		return
	}
	if s.refs == 0 {
		s.timer.Stop()
	}
	s.refs++
}

// endPOST restarts the idle timer when the last POST in flight ends.
func (s *httpSession) endPOST() {
	s.timerMu.Lock()
	defer s.timerMu.Unlock()
	if s.timer == nil {
		return
	}
	if s.refs--; s.refs == 0 {
		s.timer.Reset(s.timeout)
	}
}

func (s *httpSession) stopTimer() {
	s.timerMu.Lock()
	defer s.timerMu.Unlock()
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
}

// httpTransport is the mcp.Transport of one session.
type httpTransport struct{ conn *httpConn }

// Connect implements mcp.Transport.
func (t *httpTransport) Connect(context.Context) (mcp.Connection, error) { return t.conn, nil }

// SupportsProtocolVersion implements mcp.ProtocolVersionSupporter: the
// per-request protocol (2026-07-28) needs a stateless transport.
func (t *httpTransport) SupportsProtocolVersion(v string) bool { return v < version20260728 }

// httpConn is the mcp.Connection of one session: Read returns the messages
// POSTed to it; Write sends a response to the POST of its call, and any
// other message to the POST of the call it relates to (see
// addRelatedMiddleware) while that POST waits, else to the GET stream.
type httpConn struct {
	id           string
	sess         *httpSession
	jsonResponse bool
	incoming     chan jsonrpc.Message
	done         chan struct{}
	closeOnce    sync.Once

	mu          sync.Mutex
	calls       map[jsonrpc.ID]*call // calls read and not answered
	initialized bool                 // initialize was answered with a result
	get         *getStream           // the standalone SSE stream, if open
}

// deliver hands msg to Read; false when the session closed first.
func (c *httpConn) deliver(msg jsonrpc.Message) bool {
	select {
	case c.incoming <- msg:
		return true
	case <-c.done:
		return false
	}
}

func (c *httpConn) forget(id jsonrpc.ID) {
	c.mu.Lock()
	delete(c.calls, id)
	c.mu.Unlock()
}

// Read implements mcp.Connection.
func (c *httpConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case msg := <-c.incoming:
		return msg, nil
	case <-c.done:
		return nil, io.EOF
	}
}

// Write implements mcp.Connection. A message that cannot be delivered
// fails with an error wrapping the SDK's "rejected" code, which ends
// neither the session nor its other calls.
func (c *httpConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case <-c.done:
		return errSessionClosed
	default:
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		return c.writeResponse(resp)
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding message: %w", err)
	}
	if cl, ok := ctx.Value(relatedKey{}).(*call); ok && !c.jsonResponse {
		if delivered, err := cl.writeEvent(data); delivered {
			return err
		}
	}
	c.mu.Lock()
	g := c.get
	c.mu.Unlock()
	if g == nil {
		return fmt.Errorf("%w: no stream open for a server message (no call in progress and no GET stream)", errRejected)
	}
	return g.writeEvent(data)
}

func (c *httpConn) writeResponse(resp *jsonrpc.Response) error {
	c.mu.Lock()
	cl := c.calls[resp.ID]
	delete(c.calls, resp.ID)
	method := ""
	if cl != nil {
		method = cl.method
	}
	initialized := c.initialized
	if resp.Error == nil && method == "initialize" {
		c.initialized = true
	}
	c.mu.Unlock()
	if cl == nil {
		return fmt.Errorf("%w: response to an unknown call %v", errRejected, resp.ID.Raw())
	}
	rpcconn.GiveErrorCode(resp, method, initialized, false)
	data, err := rpcconn.Encode(resp)
	if err != nil {
		return fmt.Errorf("encoding message: %w", err)
	}
	return cl.answer(data)
}

// Close implements mcp.Connection; it may be called many times.
func (c *httpConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.done)
		c.sess.stopTimer()
		c.sess.h.remove(c.id)
	})
	return nil
}

// SessionID implements mcp.Connection.
func (c *httpConn) SessionID() string { return c.id }

// Call states.
const (
	callWaiting = iota // the POST waits, nothing written
	callSSE            // the POST waits; its answer is an SSE stream
	callEnded          // answered, or the POST ended: nothing more is written
)

// call is a call whose POST waits for its answer.
type call struct {
	w       http.ResponseWriter
	done    chan struct{} // closed when the answer is written or the stream closed
	method  string
	version string // of the POST's Mcp-Protocol-Version

	mu    sync.Mutex
	state int
}

// answer writes the call's response and releases its POST.
func (cl *call) answer(data []byte) error {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	switch cl.state {
	case callEnded:
		return fmt.Errorf("%w: the request's stream is closed", errRejected)
	case callWaiting:
		h := cl.w.Header()
		h["Content-Type"] = []string{"application/json"}
		h["Cache-Control"] = []string{"no-cache, no-transform"}
		_, err := cl.w.Write(data)
		cl.end()
		if err != nil {
			return fmt.Errorf("%w: %w", errRejected, err)
		}
		return nil
	}
	err := writeSSE(cl.w, data)
	cl.end()
	return err
}

// writeEvent sends a message related to the call on its POST as an SSE
// event, switching the answer to text/event-stream; delivered is false
// when the POST no longer waits.
func (cl *call) writeEvent(data []byte) (delivered bool, err error) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.state == callEnded {
		return false, nil
	}
	cl.startSSE()
	return true, writeSSE(cl.w, data)
}

func (cl *call) startSSE() {
	if cl.state == callWaiting {
		setSSEHeaders(cl.w.Header())
		cl.w.WriteHeader(http.StatusOK)
		cl.state = callSSE
	}
}

// end marks the call answered and releases its POST; cl.mu is held.
func (cl *call) end() {
	cl.state = callEnded
	close(cl.done)
}

// closeStream is the call's RequestExtra.CloseSSEStream: it ends the POST's
// SSE stream before the answer (SEP-1699), an empty one if nothing was
// sent yet, with a "close" event carrying the retry delay from 2025-11-25. Without an event store the answer cannot
// be resumed and is dropped, as with the SDK's handler.
func (cl *call) closeStream(args mcp.CloseSSEStreamArgs) {
	if cl.version >= version20260728 {
		return
	}
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.state == callEnded {
		return
	}
	cl.startSSE()
	if cl.version >= version20251125 && args.RetryAfter > 0 {
		_, _ = io.WriteString(cl.w, "event: close\nretry: "+strconv.FormatInt(args.RetryAfter.Milliseconds(), 10)+"\ndata: \n\n")
		flush(cl.w)
	}
	cl.end()
}

// getStream is a session's standalone SSE stream (a GET).
type getStream struct {
	w      http.ResponseWriter
	mu     sync.Mutex
	closed bool
}

func (g *getStream) writeEvent(data []byte) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return fmt.Errorf("%w: the GET stream is closed", errRejected)
	}
	return writeSSE(g.w, data)
}

// writeSSE writes data as one "message" event and flushes it.
func writeSSE(w http.ResponseWriter, data []byte) error {
	b := make([]byte, 0, len(data)+len("event: message\ndata: \n\n"))
	b = append(b, "event: message\ndata: "...)
	b = append(b, data...)
	b = append(b, "\n\n"...)
	_, err := w.Write(b)
	flush(w)
	if err != nil {
		return fmt.Errorf("%w: %w", errRejected, err)
	}
	return nil
}

func setSSEHeaders(h http.Header) {
	h["Content-Type"] = []string{"text/event-stream"}
	h["Cache-Control"] = []string{"no-cache, no-transform"}
	h["Connection"] = []string{"keep-alive"}
}

func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
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

// relatedKey is the context key of the call a server→client message
// relates to (set by relatedMiddleware).
type relatedKey struct{}

// relatedCalls maps the *mcp.RequestExtra of each waiting call to its
// *call, for relatedMiddleware.
var relatedCalls sync.Map

// wrappedServers holds a weak pointer to each server given
// relatedMiddleware.
var wrappedServers sync.Map

// addRelatedMiddleware gives srv, once, the receiving middleware that puts
// the call a handler serves into its context, so that what it sends while
// it runs (progress, logs, elicitation) goes to that call's POST. (The SDK
// marks such messages with a context key of its own, unexported.)
func addRelatedMiddleware(srv *mcp.Server) {
	key := weak.Make(srv)
	if _, loaded := wrappedServers.LoadOrStore(key, struct{}{}); loaded {
		return
	}
	runtime.AddCleanup(srv, func(k weak.Pointer[mcp.Server]) { wrappedServers.Delete(k) }, key)
	srv.AddReceivingMiddleware(relatedMiddleware)
}

func relatedMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if extra := req.GetExtra(); extra != nil {
			if cl, ok := relatedCalls.Load(extra); ok {
				ctx = context.WithValue(ctx, relatedKey{}, cl)
			}
		}
		return next(ctx, method, req)
	}
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
