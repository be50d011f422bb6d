package rpcconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stream is the raw side of a Conn: one JSON-RPC message per ReadMessage
// and per WriteMessage (the framing, a line or a length prefix, is the
// stream's).
type Stream interface {
	// ReadMessage returns the next raw message; io.EOF at a clean end of
	// input. Any other error ends the connection at once.
	ReadMessage() ([]byte, error)
	// WriteMessage writes one message. Calls are serialised by Conn.
	WriteMessage(ctx context.Context, msg []byte) error
	// Close closes the stream; it may be called more than once.
	Close() error
}

// ReplyError is returned by Stream.ReadMessage for input that ends the
// connection but deserves an answer first (e.g. a frame above the size
// limit): Conn writes Reply, then ends the connection with Err.
type ReplyError struct {
	// Err ends the connection.
	Err error
	// Reply is the raw message sent first, best effort.
	Reply []byte
}

// Error implements the error interface.
func (e *ReplyError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *ReplyError) Unwrap() error { return e.Err }

// replyTimeout bounds the write of a ReplyError's reply.
const replyTimeout = 2 * time.Second

// Options configure New.
type Options struct {
	// SessionID is returned by Conn.SessionID ("" for none).
	SessionID string
	// Drain bounds, at the end of input, the wait for the answers to the
	// calls already read; zero means no wait.
	Drain time.Duration
}

// Conn is an mcp.Connection over a Stream. Each incoming message passes
// Check: a malformed one is answered with a JSON-RPC error and the session
// goes on. At the end of input, Read returns io.EOF only once every call
// already read has been answered (or Options.Drain elapsed), so that a
// client that writes its requests and closes its side still gets every
// answer. Error responses the SDK sends with code 0 (its code for an
// unclassified error) get a JSON-RPC code: -32602 for initialize, -32600
// for a call made before initialize, -32603 otherwise.
type Conn struct {
	s    Stream
	opts Options

	writeMu sync.Mutex

	mu          sync.Mutex
	pending     map[string]call // calls read and not answered, by id key
	changed     chan struct{}   // closed and replaced whenever pending shrinks
	initialized bool            // an initialize call was answered with a result

	incoming chan result
	closed   chan struct{}
	once     sync.Once
	closeErr error
}

// call is a call read and not yet answered.
type call struct {
	method string
	// perRequest tells that the call carries its protocol version in
	// _meta (2026-07-28): it needs no initialize.
	perRequest bool
}

type result struct {
	msg jsonrpc.Message
	err error
}

// New starts reading s and returns its connection.
func New(s Stream, opts Options) *Conn {
	c := &Conn{s: s, opts: opts, pending: map[string]call{}, changed: make(chan struct{}),
		incoming: make(chan result), closed: make(chan struct{})}
	go c.readLoop()
	return c
}

func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

func (c *Conn) readLoop() {
	for {
		raw, err := c.s.ReadMessage()
		if err != nil {
			var re *ReplyError
			if errors.As(err, &re) {
				ctx, cancel := context.WithTimeout(context.Background(), replyTimeout)
				_ = c.writeRaw(ctx, re.Reply)
				cancel()
			}
			if errors.Is(err, io.EOF) {
				c.drain()
			}
			c.deliver(result{err: err})
			return
		}
		msg, reply := Check(raw)
		if reply != nil {
			if err := c.writeRaw(context.Background(), reply); err != nil {
				c.deliver(result{err: err})
				return
			}
			continue
		}
		if msg == nil {
			continue
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			c.mu.Lock()
			c.pending[idKey(req.ID)] = call{method: req.Method, perRequest: perRequest(req.Params)}
			c.mu.Unlock()
		}
		if !c.deliver(result{msg: msg}) {
			return
		}
	}
}

// deliver hands r to Read; false when the connection is closed.
func (c *Conn) deliver(r result) bool {
	select {
	case c.incoming <- r:
		return true
	case <-c.closed:
		return false
	}
}

// drain waits until every call read so far is answered, the drain time
// elapses or the connection closes.
func (c *Conn) drain() {
	if c.opts.Drain <= 0 {
		return
	}
	timer := time.NewTimer(c.opts.Drain)
	defer timer.Stop()
	for {
		c.mu.Lock()
		n, ch := len(c.pending), c.changed
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-ch:
		case <-timer.C:
			return
		case <-c.closed:
			return
		}
	}
}

// Read implements mcp.Connection.
func (c *Conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-c.incoming:
		return r.msg, r.err
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write implements mcp.Connection.
func (c *Conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.answered(resp)
	}
	data, err := Encode(msg)
	if err != nil {
		return fmt.Errorf("encoding message: %w", err)
	}
	return c.writeRaw(ctx, data)
}

// answered removes resp's call from the pending ones and gives a code-0
// error a JSON-RPC code.
func (c *Conn) answered(resp *jsonrpc.Response) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := idKey(resp.ID)
	cl, ok := c.pending[key]
	method := cl.method
	if ok {
		delete(c.pending, key)
		close(c.changed)
		c.changed = make(chan struct{})
	}
	if resp.Error == nil {
		if method == "initialize" {
			c.initialized = true
		}
		return
	}
	GiveErrorCode(resp, method, c.initialized, cl.perRequest)
}

// GiveErrorCode gives an error response the SDK sent with code 0 (its code
// for an unclassified error) a JSON-RPC code, from the method of the call
// it answers ("" when unknown), whether the session was initialized when it
// was answered, and whether the call carried its protocol version in _meta:
// -32602 for a failed initialize, -32600 for a call made before initialize
// or a second initialize, -32603 otherwise. It normalises resp.Error to a
// *jsonrpc.Error as the SDK's encoder does (the whole message, the code of
// a wrapped *jsonrpc.Error); a response without an error is left alone.
func GiveErrorCode(resp *jsonrpc.Response, method string, initialized, perRequest bool) {
	if resp.Error == nil {
		return
	}
	we, ok := resp.Error.(*jsonrpc.Error)
	if !ok {
		we = &jsonrpc.Error{Message: resp.Error.Error()}
		var wrapped *jsonrpc.Error
		if errors.As(resp.Error, &wrapped) {
			we.Code = wrapped.Code
		}
	}
	if we.Code != 0 {
		resp.Error = we
		return
	}
	fixed := *we
	switch {
	case method == "initialize" && !initialized:
		fixed.Code = jsonrpc.CodeInvalidParams
	case !initialized && !perRequest:
		fixed.Code = jsonrpc.CodeInvalidRequest // a call before initialize
	case method == "initialize":
		fixed.Code = jsonrpc.CodeInvalidRequest // a second initialize
	default:
		fixed.Code = jsonrpc.CodeInternalError
	}
	resp.Error = &fixed
}

// perRequest reports whether params carry a protocol version in _meta.
func perRequest(params json.RawMessage) bool {
	if len(params) == 0 {
		return false
	}
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	_, ok := p.Meta[mcp.MetaKeyProtocolVersion]
	return ok
}

func (c *Conn) writeRaw(ctx context.Context, data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	select {
	case <-c.closed:
		return io.ErrClosedPipe
	default:
	}
	return c.s.WriteMessage(ctx, data)
}

// Close implements mcp.Connection; it may be called many times.
func (c *Conn) Close() error {
	c.once.Do(func() {
		c.closeErr = c.s.Close()
		close(c.closed)
	})
	return c.closeErr
}

// SessionID implements mcp.Connection.
func (c *Conn) SessionID() string { return c.opts.SessionID }
