package transport

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
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
// SDK's handler (go-sdk v1.8.0 mcp/streamable.go) given an EventStore
// (StreamableHTTPOptions.EventStore): the events of an SSE stream are
// stored (mcp.EventStore, by default a bounded mcp.MemoryEventStore) and
// carry ids <stream>_<index>, a POST's SSE stream opens with a priming
// event from protocol 2025-11-25, and a GET with Last-Event-ID replays the
// stored events after it, then carries the rest of the stream if it is
// still open (its call still runs). A plain application/json answer never
// touches the store. Resumability and Redelivery: MCP 2025-11-25
// "Streamable HTTP", SEP-1699.
//
// The same endpoint serves the per-request protocol (2026-07-28, SEP-2575)
// as the SDK's stateless handler does: a request naming that version gets
// a server session of its own, without initialize nor Mcp-Session-Id,
// which ends with it (Stateless tells a handler so).

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
	// version20260728 is the per-request protocol (SEP-2575): served
	// without a session (connectStateless).
	version20260728 = "2026-07-28"
	// versionDefault is the version of a request without Mcp-Protocol-Version.
	versionDefault = "2025-03-26"
)

// methodListen is the long-lived call of the per-request protocol whose SSE
// stream carries the notifications the client subscribed to (SEP-2575):
// its answer is always a stream, and what the server sends outside any
// call goes on it.
const methodListen = "subscriptions/listen"

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
	store        mcp.EventStore // nil: streams are not stored nor resumable
	logger       *slog.Logger

	mu       sync.Mutex
	sessions map[string]*httpSession
	listens  map[*call]jsonrpc.ID      // live subscriptions/listen calls, by their request id
	servers  map[*http.Server]struct{} // whose shutdown ends the listens
}

func newStreamable(getServer func(*http.Request) *mcp.Server, timeout time.Duration, jsonResponse bool, store mcp.EventStore, logger *slog.Logger) *streamable {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &streamable{getServer: getServer, timeout: timeout, jsonResponse: jsonResponse, store: store,
		logger: logger, sessions: map[string]*httpSession{}, listens: map[*call]jsonrpc.ID{}, servers: map[*http.Server]struct{}{}}
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

// serveGET opens the session's GET stream or, with Last-Event-ID,
// resumes a stream.
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
		s.resume(w, r, sess.conn, vs[0])
		return
	}
	c := sess.conn
	g := c.get
	g.mu.Lock()
	if g.w != nil {
		g.mu.Unlock()
		http.Error(w, "stream ID conflicts with ongoing stream", http.StatusConflict)
		return
	}
	if s.store != nil && !g.stored {
		if err := s.store.Open(r.Context(), c.id, ""); err != nil {
			s.logger.Warn("event store: " + err.Error() + "; the GET stream cannot be resumed")
		} else {
			g.stored = true
		}
	}
	done := g.attach(w)
	// Headers and a comment go out at once: the stream may stay silent
	// for long, and proxies hold back headers without a body.
	setSSEHeaders(w.Header())
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, ": ok\n\n")
	flush(w)
	g.mu.Unlock()
	hang(r, c, done)
	g.leave(done)
}

// resume serves a GET with Last-Event-ID eid: the stored events of its
// stream after it, then, while the stream is open (the GET stream, or a
// call not answered yet), the rest of the stream. An id that does not
// parse is 400, as is one without event store, one of no stream of this
// session (another session's streams are never looked at) or past the
// stream's last event, and one whose next events the store dropped. A
// stream that a request already carries is 409.
func (s *streamable) resume(w http.ResponseWriter, r *http.Request, c *httpConn, eid string) {
	id, idx, ok := parseEventID(eid)
	if !ok {
		http.Error(w, fmt.Sprintf("malformed Last-Event-ID %q", eid), http.StatusBadRequest)
		return
	}
	if s.store == nil {
		http.Error(w, "stream replay unsupported", http.StatusBadRequest)
		return
	}
	var owner streamOwner
	if id == "" {
		owner = c.get
	} else if cl := c.stream(id); cl != nil {
		owner = cl
	} else {
		// A stream whose call was answered (or of no call): the store has
		// what is left of it, or nothing.
		s.replay(w, r, eid, &sseStream{conn: c, id: id, stored: true}, idx, false)
		return
	}
	st, live := owner.lockStream()
	done := s.replay(w, r, eid, st, idx, live)
	owner.unlock()
	if done != nil {
		hang(r, c, done)
		owner.leave(done)
	}
}

// replay writes the stored events of st after index idx (named by the
// Last-Event-ID eid) and, when live, makes w carry st on and returns the
// channel that releases it; the owner of st is locked. It writes the
// error and returns nil when it cannot.
func (s *streamable) replay(w http.ResponseWriter, r *http.Request, eid string, st *sseStream, idx int, live bool) chan struct{} {
	if live {
		switch {
		case !st.stored:
			http.Error(w, fmt.Sprintf("Last-Event-ID %q: no stored stream of this session has this id", eid), http.StatusBadRequest)
			return nil
		case st.w != nil:
			http.Error(w, "stream ID conflicts with ongoing stream", http.StatusConflict)
			return nil
		case idx >= st.events:
			http.Error(w, fmt.Sprintf("Last-Event-ID %q: the stream has sent no such event", eid), http.StatusBadRequest)
			return nil
		}
	}
	// Collected first, so that a failure is still an HTTP status.
	var events [][]byte
	for data, err := range s.store.After(r.Context(), st.conn.id, st.id, idx) {
		if err != nil {
			msg := fmt.Sprintf("Last-Event-ID %q: no stored stream of this session has this id", eid)
			if errors.Is(err, mcp.ErrEventsPurged) {
				msg = fmt.Sprintf("Last-Event-ID %q: the events after it were dropped from the event store (bounded); the stream cannot be resumed", eid)
			}
			// Not 404, which would tell the client its session is gone.
			http.Error(w, msg, http.StatusBadRequest)
			return nil
		}
		events = append(events, data)
	}
	setSSEHeaders(w.Header())
	w.WriteHeader(http.StatusOK)
	if st.id == "" {
		_, _ = io.WriteString(w, ": ok\n\n")
	}
	for i, data := range events {
		if len(data) > 0 { // a priming event is not replayed
			_ = writeSSE(w, "message", formatEventID(st.id, idx+1+i), data)
		}
	}
	flush(w)
	if !live {
		return nil
	}
	return st.attach(w)
}

// hang waits until done is closed, r's client leaves or the session
// closes; it reports the last.
func hang(r *http.Request, c *httpConn, done chan struct{}) (closed bool) {
	select {
	case <-done:
	case <-r.Context().Done():
	case <-c.done:
		return true
	}
	return false
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
	if req != nil && perRequest(r, req) {
		if sess != nil {
			writeJSONRPCError(w, http.StatusBadRequest, req.ID, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
				Message: fmt.Sprintf("a request of protocol %s carries no %s: that protocol has no sessions", requestVersion(r, req), headerSessionID)})
			return
		}
		if checkPerRequest(w, r, req) {
			return
		}
		if !req.IsCall() {
			// No session to deliver it to: a stateless call is cancelled
			// by closing its request.
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if sess = s.connectStateless(w, r); sess == nil {
			return
		}
		defer func() {
			_ = sess.ss.Close()
			statelessSessions.Delete(sess.ss)
		}()
	} else if sess == nil {
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
	done := make(chan struct{})
	cl := &call{sseStream: sseStream{conn: c, w: w, done: done}, method: req.Method, version: version}
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
	if c.stateless && req.Method == methodListen {
		s.addListen(r, cl, req.ID)
		defer s.removeListen(cl)
	}
	if req.Method == "initialize" {
		w.Header().Set(headerSessionID, c.id)
	}
	if !c.deliver(msg) {
		c.forget(req.ID)
		http.Error(w, "session is closing", http.StatusNotFound)
		return
	}
	// When the client leaves, a session's call runs on (the SDK does not
	// cancel it either): its answer is dropped, or stored if its stream
	// is. A per-request call is cancelled: closing its request is how a
	// client of that protocol cancels it, and nothing could take its
	// answer.
	closed := hang(r, c, done)
	if c.stateless && r.Context().Err() != nil {
		c.cancel(req.ID)
	}
	if written := cl.leave(done); closed && !written {
		http.Error(w, "session closed", http.StatusNotFound)
	}
}

// perRequest reports whether req is of the per-request protocol
// (SEP-2575): a call with a 2026-07-28 or later Mcp-Protocol-Version
// header, a notification without session with one, or any message naming
// a protocol version in _meta. Such a request is served without a session
// (connectStateless). A notifications/cancelled without session is one
// too: the SDK's client sends it bare after closing a per-request call.
func perRequest(r *http.Request, req *jsonrpc.Request) bool {
	if metaVersion(req.Params) != "" {
		return true
	}
	if req.IsCall() {
		return r.Header.Get(headerProtocol) >= version20260728
	}
	return r.Header.Get(headerSessionID) == "" &&
		(r.Header.Get(headerProtocol) >= version20260728 || req.Method == "notifications/cancelled")
}

// requestVersion is the protocol version req names: its _meta's, else its
// Mcp-Protocol-Version header's.
func requestVersion(r *http.Request, req *jsonrpc.Request) string {
	return cmp.Or(metaVersion(req.Params), r.Header.Get(headerProtocol), versionDefault)
}

// checkPerRequest checks a per-request message as the SDK's stateless
// handler does, and answers 400 when it fails: a call's
// Mcp-Protocol-Version header is required and must equal _meta's protocol
// version (-32020), which is required (-32602) and must be one the server
// speaks (-32022, with the versions it speaks); then the standard headers
// must agree with the body (checkStandardHeaders, -32020). It reports
// whether it answered.
func checkPerRequest(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) bool {
	jerr := checkVersion(r, req)
	if jerr == nil {
		jerr = checkStandardHeaders(r.Header, req)
	}
	if jerr == nil {
		return false
	}
	writeJSONRPCError(w, http.StatusBadRequest, req.ID, jerr)
	return true
}

// checkVersion returns the error of a per-request call whose protocol
// version, in its Mcp-Protocol-Version header and its _meta, is missing,
// inconsistent or not spoken here, or nil.
func checkVersion(r *http.Request, req *jsonrpc.Request) *jsonrpc.Error {
	header := r.Header.Get(headerProtocol)
	meta := metaVersion(req.Params)
	switch {
	case !req.IsCall():
		return nil
	case header == "":
		return &jsonrpc.Error{Code: mcp.CodeHeaderMismatch,
			Message: fmt.Sprintf("%s header is required for requests carrying %q", headerProtocol, mcp.MetaKeyProtocolVersion)}
	case meta == "":
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("missing or invalid _meta field %q", mcp.MetaKeyProtocolVersion)}
	case header != meta:
		return &jsonrpc.Error{Code: mcp.CodeHeaderMismatch,
			Message: fmt.Sprintf("%s header %q does not match request %s %q", headerProtocol, header, mcp.MetaKeyProtocolVersion, meta)}
	case !slices.Contains(sdkVersions, meta):
		data, _ := json.Marshal(mcp.UnsupportedProtocolVersionData{Supported: sdkVersions, Requested: meta})
		return &jsonrpc.Error{Code: mcp.CodeUnsupportedProtocolVersion,
			Message: fmt.Sprintf("protocol version %q is not supported by this server", meta), Data: data}
	}
	return nil
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
	sess := &httpSession{h: s}
	sess.conn = &httpConn{id: rand.Text(), sess: sess,
		incoming: make(chan jsonrpc.Message, 16), done: make(chan struct{}), calls: map[jsonrpc.ID]*call{},
		streams: map[string]*call{}}
	sess.conn.get = &getStream{sseStream: sseStream{conn: sess.conn}}
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

// connectStateless starts the server session of one per-request call,
// which ends with it: it has no id, is never registered (no later request
// reaches it), and begins without initialize (the call's _meta carries the
// client's version, capabilities and identity). It writes the error and
// returns nil when it cannot.
func (s *streamable) connectStateless(w http.ResponseWriter, r *http.Request) *httpSession {
	srv := s.getServer(r)
	if srv == nil {
		http.Error(w, "no server available", http.StatusBadRequest)
		return nil
	}
	addRelatedMiddleware(srv)
	sess := &httpSession{h: s}
	sess.conn = &httpConn{sess: sess, stateless: true,
		incoming: make(chan jsonrpc.Message, 1), done: make(chan struct{}), calls: map[jsonrpc.ID]*call{},
		streams: map[string]*call{}}
	sess.conn.get = &getStream{sseStream: sseStream{conn: sess.conn}}
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
		sess.userID = ti.UserID
	}
	ss, err := srv.Connect(r.Context(), &httpTransport{conn: sess.conn}, &mcp.ServerSessionOptions{State: &mcp.ServerSessionState{}})
	if err != nil {
		_ = sess.conn.Close()
		s.logger.Error("failed to connect: " + err.Error())
		http.Error(w, "failed connection", http.StatusInternalServerError)
		return nil
	}
	sess.ss = ss
	statelessSessions.Store(ss, struct{}{})
	return sess
}

// Stateless reports whether the session ss serves one per-request call
// over HTTP (protocol 2026-07-28 and later): it ends with the call, so
// nothing kept in it reaches the client's next request.
func Stateless(ss *mcp.ServerSession) bool {
	_, ok := statelessSessions.Load(ss)
	return ok
}

// statelessSessions holds the server sessions of per-request calls while
// they run.
var statelessSessions sync.Map

// addListen records the live subscriptions/listen call cl, whose request
// id is id, and makes the shutdown of the http.Server serving r end it.
func (s *streamable) addListen(r *http.Request, cl *call, id jsonrpc.ID) {
	hs, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listens[cl] = id
	if _, ok := s.servers[hs]; hs != nil && !ok {
		s.servers[hs] = struct{}{}
		hs.RegisterOnShutdown(s.endListens)
	}
}

func (s *streamable) removeListen(cl *call) {
	s.mu.Lock()
	delete(s.listens, cl)
	s.mu.Unlock()
}

// endListens ends every live subscriptions/listen call gracefully, as
// MCP 2026-07-28 asks of a server that shuts down: its stream gets the
// call's (empty) result, which tells the client the end was deliberate,
// its request is released, and its handler is cancelled. Called by
// http.Server.Shutdown, which then finds the connections idle.
func (s *streamable) endListens() {
	s.mu.Lock()
	listens := make(map[*call]jsonrpc.ID, len(s.listens))
	for cl, id := range s.listens {
		listens[cl] = id
	}
	s.mu.Unlock()
	for cl, id := range listens {
		res, err := json.Marshal(map[string]any{"_meta": map[string]any{mcp.MetaKeySubscriptionID: id.Raw()}, "resultType": "complete"})
		if err != nil {
			continue
		}
		data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: res})
		if err != nil {
			continue
		}
		_ = cl.answer(data)
		cl.conn.cancel(id)
	}
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
