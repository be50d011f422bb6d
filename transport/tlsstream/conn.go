package tlsstream

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// frameConn is an mcp.Connection over one framed stream.
type frameConn struct {
	nc      net.Conn
	max     int
	session string
	// firstFrame is set while a read deadline bounds the first frame.
	firstFrame bool

	writeMu sync.Mutex
	wbuf    []byte

	incoming chan readResult
	closed   chan struct{}
	once     sync.Once
	closeErr error
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

// errorWriteTimeout bounds the best-effort error frame sent before closing.
const errorWriteTimeout = 2 * time.Second

// newFrameConn starts the read loop over nc. session may be "". A positive
// firstFrame bounds the time until the peer's first frame is read.
func newFrameConn(nc net.Conn, max int, session string, firstFrame time.Duration) *frameConn {
	if max <= 0 {
		max = DefaultMaxFrameSize
	}
	c := &frameConn{
		nc:       nc,
		max:      max,
		session:  session,
		incoming: make(chan readResult),
		closed:   make(chan struct{}),
	}
	if firstFrame > 0 {
		_ = nc.SetReadDeadline(time.Now().Add(firstFrame))
		c.firstFrame = true
	}
	go c.readLoop()
	return c
}

// readLoop decodes frames until an error; a decode error is delivered and
// ends the loop (the SDK closes the connection on a Read error).
func (c *frameConn) readLoop() {
	fr := NewFrameReader(c.nc, c.max)
	for {
		data, err := fr.ReadFrame()
		if c.firstFrame {
			if err == nil {
				_ = c.nc.SetReadDeadline(time.Time{})
			}
			c.firstFrame = false
		}
		var msg jsonrpc.Message
		if err == nil {
			msg, err = decode(data)
		}
		var tooLarge *FrameTooLargeError
		if errors.As(err, &tooLarge) || errors.Is(err, ErrEmptyFrame) {
			c.sendFatal(jsonrpc.CodeInvalidRequest, err.Error())
		}
		select {
		case c.incoming <- readResult{msg, err}:
		case <-c.closed:
			return
		}
		if err != nil {
			c.Close() // the stream cannot be trusted after a bad frame
			return
		}
	}
}

// decode turns one frame into a message. Batches are refused: MCP
// 2025-06-18 and later have none, and one frame carries one message.
func decode(data []byte) (jsonrpc.Message, error) {
	for _, b := range data {
		if b == ' ' || b == '\t' || b == '\r' || b == '\n' {
			continue
		}
		if b == '[' {
			return nil, errors.New("tlsstream: JSON-RPC batch in a frame: one frame carries one message")
		}
		break
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return nil, fmt.Errorf("tlsstream: frame is not a JSON-RPC message: %w", err)
	}
	return msg, nil
}

// sendFatal writes a JSON-RPC error response with a null id, best effort,
// so that the peer learns why the connection is being closed.
func (c *frameConn) sendFatal(code int, detail string) {
	body, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": code, "message": detail},
	})
	if err != nil {
		return
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	frame, err := AppendFrame(nil, body, c.max)
	if err != nil {
		return
	}
	_ = c.nc.SetWriteDeadline(time.Now().Add(errorWriteTimeout))
	_, _ = c.nc.Write(frame)
}

// Read implements mcp.Connection.
func (c *frameConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	default:
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-c.incoming:
		return r.msg, r.err
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write implements mcp.Connection. Messages above the frame limit are not
// sent and yield *FrameTooLargeError.
func (c *frameConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("tlsstream: encoding message: %w", err)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.wbuf, err = AppendFrame(c.wbuf[:0], data, c.max)
	if err != nil {
		return err
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = c.nc.SetWriteDeadline(dl)
		defer c.nc.SetWriteDeadline(time.Time{})
	}
	_, err = c.nc.Write(c.wbuf)
	return err
}

// Close implements mcp.Connection; it may be called many times.
func (c *frameConn) Close() error {
	c.once.Do(func() {
		c.closeErr = c.nc.Close()
		close(c.closed)
	})
	return c.closeErr
}

// SessionID implements mcp.Connection.
func (c *frameConn) SessionID() string { return c.session }

// newSessionID returns 128 random bits in hex.
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
