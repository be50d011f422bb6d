package transport

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The answers of netmcp's Streamable HTTP transport (streamable.go): a
// call's POST, answered as application/json or switched to an SSE stream,
// and a session's standalone GET stream. With an event store, every event
// of an SSE stream is stored and carries an id, and the stream outlives
// the request that carried it: a GET with Last-Event-ID takes it over.

// Call states.
const (
	callWaiting = iota // the POST waits, nothing written
	callSSE            // the answer is an SSE stream (see sseStream.w: nil while no request carries it)
	callEnded          // answered, or its request ended without a stored stream: nothing more is written
)

// sseStream is an SSE stream of a session: a call's, once its answer
// turned into a stream, or the GET stream (id ""). Its owner's mutex
// guards it.
type sseStream struct {
	conn *httpConn
	// id names the stream in the event store and in its events' ids.
	id string
	// stored: the stream's events go to the event store and carry ids.
	stored bool
	// events counts the stream's stored events: the next one's index.
	events int
	// w is the writer of the request that carries the stream; nil while
	// none does (a stored stream whose request ended waits to be resumed).
	w http.ResponseWriter
	// done is closed to release the request that carries the stream.
	done chan struct{}
}

// emit sends data as the stream's next "message" event: stored (when the
// stream is) and written to the request carrying it, if any. A stored
// event counts as delivered, as with the SDK's handler: the client gets
// it when it resumes.
func (st *sseStream) emit(ctx context.Context, data []byte) error {
	id := ""
	stored := false
	if st.stored {
		if err := st.conn.sess.h.store.Append(ctx, st.conn.id, st.id, data); err != nil {
			// Later events would take this one's index: the stream can no
			// longer be resumed.
			st.conn.sess.h.logger.Warn("event store: " + err.Error() + "; the stream can no longer be resumed")
			st.unstore()
		} else {
			id = formatEventID(st.id, st.events)
			st.events++
			stored = true
		}
	}
	if st.w == nil {
		if stored {
			return nil
		}
		return fmt.Errorf("%w: no request carries the stream", errRejected)
	}
	if err := writeSSE(st.w, "message", id, data); err != nil && !stored {
		return err
	}
	return nil
}

// unstore stops storing the stream's events; a call's stream is no longer
// found by Last-Event-ID.
func (st *sseStream) unstore() {
	st.stored = false
	if st.id != "" {
		st.conn.forgetStream(st.id)
	}
}

// attach makes w carry the stream and returns the channel that releases it.
func (st *sseStream) attach(w http.ResponseWriter) chan struct{} {
	st.w = w
	st.done = make(chan struct{})
	return st.done
}

// release lets the request carrying the stream end; the stream stays.
func (st *sseStream) release() {
	if st.done != nil {
		close(st.done)
		st.done = nil
	}
	st.w = nil
}

// streamOwner owns a stream that a GET with Last-Event-ID may take over:
// the session's GET stream (*getStream) or a call's (*call).
type streamOwner interface {
	// lockStream locks the owner and returns its stream and whether the
	// stream is live (the GET stream always; a call's until it is answered).
	lockStream() (st *sseStream, live bool)
	unlock()
	// leave is called when the request carrying the stream, whose release
	// channel is done, ends; it reports whether anything was written to it.
	leave(done chan struct{}) (written bool)
}

// call is a call whose POST waits for its answer, or whose SSE stream
// waits for its answer.
type call struct {
	sseStream
	method  string
	version string // of the POST's Mcp-Protocol-Version

	mu    sync.Mutex
	state int
}

// answer writes the call's response and releases its request.
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
	err := cl.emit(context.Background(), data)
	cl.end()
	return err
}

// writeEvent sends a message related to the call on its stream as an SSE
// event, switching the answer to text/event-stream; delivered is false
// when the call no longer has a request nor a stored stream.
func (cl *call) writeEvent(ctx context.Context, data []byte) (delivered bool, err error) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.state == callEnded {
		return false, nil
	}
	cl.startSSE()
	return true, cl.emit(ctx, data)
}

// startSSE turns a waiting call's answer into an SSE stream. With an
// event store the stream is stored under a new id, and from protocol
// 2025-11-25 it opens with a priming event (an id, empty data; SEP-1699).
func (cl *call) startSSE() {
	if cl.state != callWaiting {
		return
	}
	setSSEHeaders(cl.w.Header())
	cl.w.WriteHeader(http.StatusOK)
	cl.state = callSSE
	c := cl.conn
	store := c.sess.h.store
	if store == nil || cl.version >= version20260728 {
		return
	}
	ctx := context.Background()
	cl.id = rand.Text()
	if err := store.Open(ctx, c.id, cl.id); err != nil {
		c.sess.h.logger.Warn("event store: " + err.Error() + "; the stream cannot be resumed")
		return
	}
	cl.stored = true
	c.mu.Lock()
	c.streams[cl.id] = cl
	c.mu.Unlock()
	if cl.version < version20251125 {
		return
	}
	if err := store.Append(ctx, c.id, cl.id, nil); err != nil {
		c.sess.h.logger.Warn("event store: " + err.Error() + "; the stream cannot be resumed")
		cl.unstore()
		return
	}
	cl.events++
	// No event type: the specification defines none for it, and clients
	// log an unknown type.
	_ = writeSSE(cl.w, "", formatEventID(cl.id, 0), nil)
}

// end marks the call answered (or lost) and releases its request; cl.mu
// is held.
func (cl *call) end() {
	cl.state = callEnded
	cl.release()
	if cl.stored {
		cl.conn.forgetStream(cl.id)
	}
}

func (cl *call) lockStream() (*sseStream, bool) {
	cl.mu.Lock()
	return &cl.sseStream, cl.state == callSSE
}

func (cl *call) unlock() { cl.mu.Unlock() }

// leave is called when the request carrying the call's stream, whose
// release channel is done, ends: a stored stream waits for a GET with
// Last-Event-ID, any other call is over for the transport (its answer is
// dropped, as with the SDK's handler). It reports whether anything was
// written to the request.
func (cl *call) leave(done chan struct{}) (written bool) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	written = cl.state != callWaiting
	if cl.done != done || done == nil {
		return written // released already
	}
	if cl.state == callSSE && cl.stored {
		cl.release()
	} else {
		cl.end()
	}
	return written
}

// closeStream is the call's RequestExtra.CloseSSEStream: it ends the POST's
// SSE stream before the answer (SEP-1699), an empty one if nothing was
// sent yet, with a "close" event carrying the retry delay from 2025-11-25.
// With an event store the stream lives on: the client resumes it with a
// GET carrying the last event id it saw (from 2025-11-25 at least the
// priming event's) and gets the rest, the answer included. Without one
// the answer is dropped, as with the SDK's handler.
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
	if cl.w != nil && cl.version >= version20251125 && args.RetryAfter > 0 {
		_, _ = io.WriteString(cl.w, "event: close\nretry: "+strconv.FormatInt(args.RetryAfter.Milliseconds(), 10)+"\ndata: \n\n")
		flush(cl.w)
	}
	if cl.stored {
		cl.release()
	} else {
		cl.end()
	}
}

// getStream is a session's standalone SSE stream, carried by one GET at a
// time. Once a GET opened it with an event store, it is stored and
// outlives its GETs: messages sent while no GET carries it are stored for
// the next GET with Last-Event-ID.
type getStream struct {
	sseStream
	mu sync.Mutex
}

func (g *getStream) writeEvent(ctx context.Context, data []byte) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.w == nil && !g.stored {
		return fmt.Errorf("%w: no stream open for a server message (no call in progress and no GET stream)", errRejected)
	}
	return g.emit(ctx, data)
}

func (g *getStream) lockStream() (*sseStream, bool) {
	g.mu.Lock()
	return &g.sseStream, true
}

func (g *getStream) unlock() { g.mu.Unlock() }

// leave is called when the GET whose release channel is done ends; the
// GET was written to (its headers at least).
func (g *getStream) leave(done chan struct{}) (written bool) {
	g.mu.Lock()
	if g.done == done {
		g.release()
	}
	g.mu.Unlock()
	return true
}

// writeSSE writes data as one event named name (no event field when name
// is ""), with id unless it is "", and flushes it.
func writeSSE(w http.ResponseWriter, name, id string, data []byte) error {
	b := make([]byte, 0, len(data)+len(name)+len(id)+len("event: \nid: \ndata: \n\n"))
	if name != "" {
		b = append(b, "event: "...)
		b = append(b, name...)
		b = append(b, '\n')
	}
	if id != "" {
		b = append(b, "id: "...)
		b = append(b, id...)
		b = append(b, '\n')
	}
	b = append(b, "data: "...)
	b = append(b, data...)
	b = append(b, "\n\n"...)
	_, err := w.Write(b)
	flush(w)
	if err != nil {
		return fmt.Errorf("%w: %w", errRejected, err)
	}
	return nil
}

// formatEventID returns the id of event idx of stream, as the SDK's
// handler writes it: <stream>_<index>. Clients treat it as opaque.
func formatEventID(stream string, idx int) string {
	return stream + "_" + strconv.Itoa(idx)
}

// parseEventID parses a Last-Event-ID value written by formatEventID.
func parseEventID(v string) (stream string, idx int, ok bool) {
	stream, n, found := strings.Cut(v, "_")
	if !found || strings.Contains(n, "_") {
		return "", 0, false
	}
	idx, err := strconv.Atoi(n)
	if err != nil || idx < 0 {
		return "", 0, false
	}
	return stream, idx, true
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
