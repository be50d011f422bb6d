package transport

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The answers of netmcp's Streamable HTTP transport (streamable.go): a
// call's POST, answered as application/json or switched to an SSE stream,
// and a session's standalone GET stream.

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
// sent yet, with a "close" event carrying the retry delay from 2025-11-25.
// Without an event store the answer cannot be resumed and is dropped, as
// with the SDK's handler.
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
