package tlsstream

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/netmcp/netmcp/transport/internal/rpcconn"
)

// drainTimeout bounds, once the peer closed its side, the wait for the
// answers to the requests already read.
const drainTimeout = 2 * time.Minute

// frameStream is the rpcconn.Stream of one framed connection.
type frameStream struct {
	nc   net.Conn
	fr   *FrameReader
	max  int
	wbuf []byte
	// firstFrame is set while a read deadline bounds the first frame.
	firstFrame bool
	// frameTimeout, when positive, bounds each frame from its first byte
	// to its last; between frames the connection may idle.
	frameTimeout time.Duration
}

// newFrameConn returns the mcp.Connection over nc: every frame is checked
// (a malformed one is answered with a JSON-RPC error and the session goes
// on), see package rpcconn. session may be "". A positive firstFrame bounds
// the time until the peer's first frame is read; a positive frameTimeout
// bounds every frame once its first byte has arrived, so a peer that
// announces a frame and stalls is disconnected instead of holding the
// connection.
func newFrameConn(nc net.Conn, max int, session string, firstFrame, frameTimeout time.Duration) *rpcconn.Conn {
	if max <= 0 {
		max = DefaultMaxFrameSize
	}
	fs := &frameStream{nc: nc, fr: NewFrameReader(nc, max), max: max, frameTimeout: frameTimeout}
	if firstFrame > 0 {
		_ = nc.SetReadDeadline(time.Now().Add(firstFrame))
		fs.firstFrame = true
	}
	if frameTimeout > 0 {
		fs.fr.OnFrameStart = fs.startFrame
	}
	return rpcconn.New(fs, rpcconn.Options{SessionID: session, Drain: drainTimeout})
}

// ReadMessage implements rpcconn.Stream. A frame above the limit or of
// length zero ends the connection after a JSON-RPC error naming the
// problem: the stream cannot be trusted after a bad frame header.
func (f *frameStream) ReadMessage() ([]byte, error) {
	data, err := f.fr.ReadFrame()
	if err == nil && (f.firstFrame || f.frameTimeout > 0) {
		_ = f.nc.SetReadDeadline(time.Time{})
	}
	f.firstFrame = false
	var tooLarge *FrameTooLargeError
	if errors.As(err, &tooLarge) || errors.Is(err, ErrEmptyFrame) {
		return nil, &rpcconn.ReplyError{Err: err, Reply: rpcconn.ErrorResponse(nil, jsonrpc.CodeInvalidRequest, err.Error())}
	}
	return data, err
}

// startFrame arms the per-frame deadline when a frame's first byte has
// arrived; the first frame keeps the earlier deadline set at connect.
func (f *frameStream) startFrame() {
	if !f.firstFrame {
		_ = f.nc.SetReadDeadline(time.Now().Add(f.frameTimeout))
	}
}

// WriteMessage implements rpcconn.Stream. Messages above the frame limit
// are not sent and yield *FrameTooLargeError.
func (f *frameStream) WriteMessage(ctx context.Context, msg []byte) error {
	var err error
	f.wbuf, err = AppendFrame(f.wbuf[:0], msg, f.max)
	if err != nil {
		return err
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = f.nc.SetWriteDeadline(dl)
		defer f.nc.SetWriteDeadline(time.Time{})
	}
	_, err = f.nc.Write(f.wbuf)
	return err
}

// Close implements rpcconn.Stream.
func (f *frameStream) Close() error { return f.nc.Close() }

// newSessionID returns 128 random bits in hex.
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
