package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"time"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/transport/internal/rpcconn"
)

// The sessions of netmcp's Streamable HTTP transport (streamable.go):
// each is an mcp.Transport whose connection routes what the server writes
// to the POST waiting for it (or the GET that resumed its stream), or to
// the session's GET stream.

// httpSession is one session: its SDK session, its connection and its
// idle timer.
type httpSession struct {
	h      *streamable
	ss     *mcp.ServerSession
	conn   *httpConn
	userID string // of the token that made the session; "" for none

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
		s.timer.Reset(s.h.timeout)
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

// SupportsProtocolVersion implements mcp.ProtocolVersionSupporter: a
// session speaks the versions of initialize, the session of one
// per-request call those of the per-request protocol (2026-07-28 and
// later).
func (t *httpTransport) SupportsProtocolVersion(v string) bool {
	if v >= version20260728 {
		return t.conn.stateless && slices.Contains(sdkVersions, v)
	}
	return true
}

// httpConn is the mcp.Connection of one session: Read returns the messages
// POSTed to it; Write sends a response to the POST of its call, and any
// other message to the POST of the call it relates to (see
// addRelatedMiddleware) while that POST waits, else to the GET stream.
type httpConn struct {
	id        string // "" when stateless
	stateless bool   // serves one per-request call (connectStateless)
	sess      *httpSession
	incoming  chan jsonrpc.Message
	done      chan struct{}
	closeOnce sync.Once

	get *getStream // the standalone SSE stream

	mu          sync.Mutex
	calls       map[jsonrpc.ID]*call // calls read and not answered
	initialized bool                 // initialize was answered with a result
	streams     map[string]*call     // unanswered calls with a stored SSE stream, by stream id
}

// forgetStream forgets the stored stream of a call: a Last-Event-ID naming
// it now only replays what the store holds.
func (c *httpConn) forgetStream(id string) {
	c.mu.Lock()
	delete(c.streams, id)
	c.mu.Unlock()
}

// stream returns the unanswered call whose stored stream is id, or nil.
func (c *httpConn) stream(id string) *call {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.streams[id]
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

// cancel hands Read a notifications/cancelled for call id, if it is not
// answered yet, so that its handler's context is cancelled.
func (c *httpConn) cancel(id jsonrpc.ID) {
	c.mu.Lock()
	_, running := c.calls[id]
	c.mu.Unlock()
	if !running {
		return
	}
	params, err := json.Marshal(map[string]any{"requestId": id.Raw(), "reason": "the client closed the request"})
	if err != nil {
		return
	}
	c.deliver(&jsonrpc.Request{Method: "notifications/cancelled", Params: params})
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
	if cl, ok := ctx.Value(relatedKey{}).(*call); ok && (!c.sess.h.jsonResponse || cl.method == methodListen) {
		if delivered, err := cl.writeEvent(ctx, data); delivered {
			return err
		}
	}
	if c.stateless {
		// A per-request session has no GET stream: what the server sends
		// outside a handler (a resource's update, a list change) goes on
		// the stream of its subscriptions/listen call, if it is one.
		if cl := c.listenCall(); cl != nil {
			if delivered, err := cl.writeEvent(ctx, data); delivered {
				return err
			}
		}
	}
	return c.get.writeEvent(ctx, data)
}

// listenCall returns the unanswered subscriptions/listen call of the
// session, or nil.
func (c *httpConn) listenCall() *call {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cl := range c.calls {
		if cl.method == methodListen {
			return cl
		}
	}
	return nil
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
		if c.stateless {
			return
		}
		c.sess.h.remove(c.id)
		if store := c.sess.h.store; store != nil {
			if err := store.SessionClosed(context.Background(), c.id); err != nil {
				c.sess.h.logger.Warn("event store: " + err.Error())
			}
		}
	})
	return nil
}

// SessionID implements mcp.Connection.
func (c *httpConn) SessionID() string { return c.id }

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
