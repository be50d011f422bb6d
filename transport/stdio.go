package transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/transport/internal/rpcconn"
)

// StdioDrainTimeout bounds how long a stdio session whose input ended
// keeps waiting for the answers to the requests it already read.
const StdioDrainTimeout = 2 * time.Minute

// maxStdioLine bounds one stdio line (one JSON-RPC message) when no tighter
// limit applies (see LimitLines): the SDK's own default.
const maxStdioLine = mcp.DefaultMaxLineLength

// ServeStdio serves one MCP session on stdin/stdout until the client closes
// stdin, the session ends (e.g. the MCP-NET "close" method) or ctx is done.
// Logs must go to stderr: stdout carries only JSON-RPC.
func ServeStdio(ctx context.Context, s *mcp.Server) error {
	return ServeIO(ctx, s, os.Stdin, os.Stdout)
}

// ServeIO serves one MCP session of newline-delimited JSON-RPC read from r
// and written to w, as ServeStdio does on stdin/stdout. Incoming messages
// pass through Normalize. A line that is not a JSON-RPC message is answered
// with a JSON-RPC error (-32700 Parse error or -32600 Invalid Request, id
// null) and the session goes on. At the end of input the session ends once
// every request already read is answered (at most StdioDrainTimeout later).
// A clean end of input is not an error.
func ServeIO(ctx context.Context, s *mcp.Server, r io.Reader, w io.Writer) error {
	t := &streamTransport{stream: &lineStream{br: bufio.NewReaderSize(r, 64<<10), w: w}, drain: StdioDrainTimeout}
	err := s.Run(ctx, t)
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// streamTransport is an mcp.Transport over one rpcconn.Stream.
type streamTransport struct {
	stream rpcconn.Stream
	drain  time.Duration
}

// Connect implements mcp.Transport.
func (t *streamTransport) Connect(context.Context) (mcp.Connection, error) {
	return rpcconn.New(t.stream, rpcconn.Options{Drain: t.drain}), nil
}

// lineStream is newline-delimited JSON-RPC: one message per line.
type lineStream struct {
	br   *bufio.Reader
	w    io.Writer
	line []byte
}

// ReadMessage implements rpcconn.Stream: the next line, normalised.
func (l *lineStream) ReadMessage() ([]byte, error) {
	l.line = l.line[:0]
	for {
		chunk, err := l.br.ReadSlice('\n')
		l.line = append(l.line, chunk...)
		if len(l.line) > maxStdioLine {
			return nil, fmt.Errorf("stdin: a JSON-RPC message longer than %d bytes", maxStdioLine)
		}
		switch {
		case err == nil:
			return Normalize(bytes.TrimRight(l.line, "\r\n")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(bytes.TrimSpace(l.line)) > 0:
			return Normalize(l.line), nil // the last line, without newline; EOF comes next
		default:
			return nil, err
		}
	}
}

// WriteMessage implements rpcconn.Stream.
func (l *lineStream) WriteMessage(_ context.Context, msg []byte) error {
	_, err := l.w.Write(append(msg, '\n'))
	return err
}

// Close implements rpcconn.Stream: the caller owns r and w.
func (l *lineStream) Close() error { return nil }
