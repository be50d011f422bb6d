package transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves one MCP session on stdin/stdout until the client closes
// stdin, the session ends (e.g. the MCP-NET "close" method) or ctx is done.
// Logs must go to stderr: stdout carries only JSON-RPC.
func ServeStdio(ctx context.Context, s *mcp.Server) error {
	return ServeIO(ctx, s, os.Stdin, os.Stdout)
}

// ServeIO serves one MCP session of newline-delimited JSON-RPC read from r
// and written to w, as ServeStdio does on stdin/stdout. Incoming messages
// pass through Normalize. A clean end of input is not an error.
func ServeIO(ctx context.Context, s *mcp.Server, r io.Reader, w io.Writer) error {
	t := &mcp.IOTransport{Reader: io.NopCloser(NewNormalizingReader(r)), Writer: nopWriteCloser{w}}
	err := s.Run(ctx, t)
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// maxNormalizedLine is the longest line that Normalize looks at; longer
// lines (large file pushes) pass through unchanged, since none of the
// messages Normalize rewrites is that large.
const maxNormalizedLine = 1 << 20

// NewNormalizingReader returns a reader of newline-delimited JSON-RPC that
// applies Normalize to each line of r.
func NewNormalizingReader(r io.Reader) io.Reader {
	return &normalizingReader{br: bufio.NewReaderSize(r, 64<<10)}
}

type normalizingReader struct {
	br   *bufio.Reader
	out  []byte // bytes ready to be returned
	line []byte // a line being accumulated
	pass bool   // inside an over-long line: copy bytes through
	err  error
}

func (n *normalizingReader) Read(p []byte) (int, error) {
	for len(n.out) == 0 {
		if n.err != nil {
			return 0, n.err
		}
		n.fill()
	}
	c := copy(p, n.out)
	n.out = n.out[c:]
	return c, nil
}

// fill reads until some output is ready or an error is recorded.
func (n *normalizingReader) fill() {
	chunk, err := n.br.ReadSlice('\n')
	complete := err == nil
	switch {
	case n.pass:
		n.out = append(n.out[:0], chunk...)
		if complete {
			n.pass = false
		}
	case complete:
		n.line = append(n.line, chunk...)
		n.out = append(n.out[:0], Normalize(bytes.TrimRight(n.line, "\r\n"))...)
		n.out = append(n.out, '\n')
		n.line = n.line[:0]
	default:
		n.line = append(n.line, chunk...)
		if len(n.line) > maxNormalizedLine {
			n.out = append(n.out[:0], n.line...)
			n.line = n.line[:0]
			n.pass = true
		}
	}
	if err != nil && err != bufio.ErrBufferFull {
		if len(n.line) > 0 { // last line without newline
			n.out = append(n.out, Normalize(n.line)...)
			n.line = n.line[:0]
		}
		n.err = err
	}
}
