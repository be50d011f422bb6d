package transport

import (
	"bytes"
	"fmt"
	"io"
)

// LineTooLongError ends a stdio session whose client sent a line (one
// JSON-RPC message) longer than the limit.
type LineTooLongError struct {
	// Limit is the maximum line length in bytes.
	Limit int
}

// Error implements the error interface.
func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("stdin: a JSON-RPC message longer than the limit of %d bytes was received; the session is closed (raise --max-request-bytes, or send large files in chunks)", e.Limit)
}

// LimitLines returns a reader of r, newline-delimited JSON-RPC, that fails
// with a *LineTooLongError as soon as a line exceeds max bytes (without
// its newline), after returning every complete line before it. onTooLong,
// when set, is called once with the error first (e.g. to answer the
// client with a JSON-RPC error before the session ends).
func LimitLines(r io.Reader, max int, onTooLong func(error)) io.Reader {
	return &lineLimiter{r: r, max: max, onTooLong: onTooLong}
}

type lineLimiter struct {
	r         io.Reader
	max       int
	cur       int // bytes of the current line so far
	err       error
	onTooLong func(error)
}

// Read implements io.Reader.
func (l *lineLimiter) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	chunk := p[:n]
	start := 0 // offset in chunk where the current line began
	cur := l.cur
	for off := 0; off < len(chunk); {
		i := bytes.IndexByte(chunk[off:], '\n')
		if i < 0 {
			cur += len(chunk) - off
			break
		}
		cur += i
		if cur > l.max {
			break
		}
		cur = 0
		off += i + 1
		start = off
	}
	if cur > l.max {
		l.err = &LineTooLongError{Limit: l.max}
		if l.onTooLong != nil {
			l.onTooLong(l.err)
		}
		if start > 0 {
			return start, nil
		}
		return 0, l.err
	}
	l.cur = cur
	return n, err
}
