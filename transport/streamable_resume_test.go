package transport_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/transport"
)

// stepServer is a server whose tool "steps" sends progress "step 1",
// waits for gate, sends "step 2", then answers "steps done"; finished is
// closed when it has answered. Tool "flood" sends ten progress
// notifications of about 300 bytes each, then answers.
func stepServer() (s *mcp.Server, gate, finished chan struct{}) {
	s = mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	gate, finished = make(chan struct{}), make(chan struct{})
	obj := map[string]any{"type": "object"}
	progress := func(ctx context.Context, req *mcp.CallToolRequest, n int, msg string) error {
		return req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: req.Params.GetProgressToken(), Progress: float64(n), Message: msg})
	}
	s.AddTool(&mcp.Tool{Name: "steps", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		defer close(finished)
		if err := progress(ctx, req, 1, "step 1"); err != nil {
			return nil, err
		}
		<-gate
		if err := progress(ctx, req, 2, "step 2"); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "steps done"}}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "flood", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for i := range 10 {
			if err := progress(ctx, req, i+1, fmt.Sprintf("flood %d %s", i+1, strings.Repeat("x", 300))); err != nil {
				return nil, err
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "flood done"}}}, nil
	})
	return s, gate, finished
}

// resumeGET sends a GET with Last-Event-ID id, again while the stream is
// still carried by the request that dropped (409: the server has not yet
// seen the client leave).
func (c *rawClient) resumeGET(id string) *http.Response {
	c.t.Helper()
	deadline := time.Now().Add(testwait.Timeout(10 * time.Second))
	for {
		resp := c.do(http.MethodGet, "", "Last-Event-ID", id, "Content-Type", "")
		if resp.StatusCode != http.StatusConflict || time.Now().After(deadline) {
			return resp
		}
		readAll(c.t, resp)
		time.Sleep(10 * time.Millisecond)
	}
}

var eventID = regexp.MustCompile(`^([A-Z2-7]*)_(\d+)$`)

// TestStreamableResumePOSTStream: a client that drops a call's SSE stream
// after its first progress event resumes it with a GET carrying that
// event's id and gets the rest, the answer exactly once and last, whether
// the call still runs (the GET carries the stream on) or has answered
// (the GET replays the store). The stream opens with a priming event from
// protocol 2025-11-25 only.
func TestStreamableResumePOSTStream(t *testing.T) {
	for _, tt := range []struct {
		name        string
		version     string
		whileRuns   bool
		wantPriming bool
	}{
		{"2025-11-25 while the call runs", "2025-11-25", true, true},
		{"2025-11-25 after the answer", "2025-11-25", false, true},
		{"2025-06-18 while the call runs", "2025-06-18", true, false},
		{"2025-06-18 after the answer", "2025-06-18", false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, gate, finished := stepServer()
			c := newRawClient(t, srv, transport.HTTPOptions{})
			c.initialize(`{}`)
			resp := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"steps","arguments":{},"_meta":{"progressToken":"p3"}}}`,
				"Mcp-Protocol-Version", tt.version)
			if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
				t.Fatalf("POST: status %d, Content-Type %q", resp.StatusCode, ct)
			}
			ev := sseEvents(resp.Body)
			first := nextEvent(t, ev, "first event")
			if tt.wantPriming {
				if first.name != "" || first.data != "" || !strings.HasSuffix(first.id, "_0") {
					t.Fatalf("first event %+v, want a priming event (id ..._0, empty data, no type)", first)
				}
				first = nextEvent(t, ev, "progress event")
			}
			if first.name != "message" || !strings.Contains(first.data, `"step 1"`) || !eventID.MatchString(first.id) {
				t.Fatalf("event %+v, want step 1 with an id", first)
			}
			resp.Body.Close() // the client drops the stream mid-call

			var get *http.Response
			if tt.whileRuns {
				get = c.resumeGET(first.id)
				close(gate)
			} else {
				close(gate)
				<-finished
				get = c.resumeGET(first.id)
			}
			defer get.Body.Close()
			if ct := get.Header.Get("Content-Type"); get.StatusCode != 200 || ct != "text/event-stream" {
				t.Fatalf("resuming GET: status %d, Content-Type %q: %s", get.StatusCode, ct, readAll(t, get))
			}
			got := rest(t, sseEvents(get.Body))
			if len(got) != 2 {
				t.Fatalf("resumed stream: %d events %+v, want step 2 then the answer", len(got), got)
			}
			if !strings.Contains(got[0].data, `"step 2"`) || !strings.Contains(got[1].data, `"id":3`) || !strings.Contains(got[1].data, "steps done") {
				t.Fatalf("resumed stream %+v, want step 2 then the answer", got)
			}
			m := eventID.FindStringSubmatch(first.id)
			for i, e := range got {
				if want := fmt.Sprintf("%s_%d", m[1], atoi(t, m[2])+1+i); e.id != want || e.name != "message" {
					t.Errorf("resumed event %d: %+v, want a message with id %s", i, e, want)
				}
			}
			// The call is over: its stream is only replayed, from any id it sent.
			again := c.resumeGET(got[0].id)
			if body := readAll(t, again); again.StatusCode != 200 || strings.Count(body, "steps done") != 1 || strings.Contains(body, "step 2") {
				t.Fatalf("replay after the answer: status %d: %q, want the answer alone", again.StatusCode, body)
			}
		})
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestStreamableSDKClientResumes: the go-sdk client, whose call's stream
// the server closes mid-call (CloseSSEStream, SEP-1699), reconnects with
// Last-Event-ID and gets the answer.
func TestStreamableSDKClientResumes(t *testing.T) {
	sdkClientCalls(t, mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil), true, "closer", "closer answer")
}

// TestStreamableResumeGETStream: messages sent while no GET carries the
// session's GET stream are stored; a GET with the last id seen gets them,
// then the stream goes on live. A second GET while one carries it is 409.
func TestStreamableResumeGETStream(t *testing.T) {
	srv := toolServer()
	c := newRawClient(t, srv, transport.HTTPOptions{})
	c.initialize(`{}`)
	if resp := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}`); readAll(t, resp) == "" || resp.StatusCode != 200 {
		t.Fatalf("logging/setLevel: status %d", resp.StatusCode)
	}
	// log sends a log message unrelated to any call: it goes to the GET stream.
	log := func(msg string) {
		t.Helper()
		for ss := range srv.Sessions() {
			//lint:ignore SA1019 MCP logging, deprecated since 2026-07-28, carries the drafts' live output
			if err := ss.Log(context.Background(), &mcp.LoggingMessageParams{Level: "info", Data: msg}); err != nil {
				t.Fatalf("log %s: %v", msg, err)
			}
		}
	}
	get := c.do(http.MethodGet, "", "Content-Type", "")
	ev := sseEvents(get.Body)
	log("first")
	if e := nextEvent(t, ev, "first log"); e.id != "_0" || !strings.Contains(e.data, `"first"`) {
		t.Fatalf("GET event %+v, want the first log with id _0", e)
	}
	get.Body.Close() // what follows is stored (or written to the dropped GET and stored)
	log("second")
	log("third")

	resumed := c.resumeGET("_0")
	defer resumed.Body.Close()
	if resumed.StatusCode != 200 {
		t.Fatalf("resuming GET: status %d: %s", resumed.StatusCode, readAll(t, resumed))
	}
	ev = sseEvents(resumed.Body)
	for _, want := range []struct{ id, msg string }{{"_1", `"second"`}, {"_2", `"third"`}} {
		if e := nextEvent(t, ev, "stored log "+want.msg); e.id != want.id || !strings.Contains(e.data, want.msg) {
			t.Fatalf("replayed %+v, want log %s with id %s", e, want.msg, want.id)
		}
	}
	second := c.do(http.MethodGet, "", "Content-Type", "")
	second.Body.Close()
	if second.StatusCode != http.StatusConflict {
		t.Fatalf("second GET: status %d, want 409", second.StatusCode)
	}
	log("fourth")
	if e := nextEvent(t, ev, "live log"); e.id != "_3" || !strings.Contains(e.data, `"fourth"`) {
		t.Fatalf("live event %+v, want the fourth log with id _3", e)
	}
}

// TestStreamableResumeRefused: a Last-Event-ID that names no event this
// session may replay is refused with 400 (not 404, which would end the
// session for the client), another session's stream among them; the
// session lives on.
func TestStreamableResumeRefused(t *testing.T) {
	srv, gate, finished := stepServer()
	close(gate)
	a := newRawClient(t, srv, transport.HTTPOptions{})
	a.initialize(`{}`)
	resp := a.do(http.MethodPost, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"steps","arguments":{},"_meta":{"progressToken":"p4"}}}`,
		"Mcp-Protocol-Version", "2025-11-25")
	events := rest(t, sseEvents(resp.Body))
	<-finished
	if len(events) != 4 || events[0].name != "" || events[0].data != "" {
		t.Fatalf("session a's call: events %+v, want priming, two steps, answer", events)
	}
	streamA := events[1].id
	b := &rawClient{t: t, url: a.url}
	b.initialize(`{}`)

	tests := []struct {
		name     string
		c        *rawClient
		id       string
		status   int
		contains string
	}{
		{"session a replays its own stream", a, streamA, 200, "steps done"},
		{"another session's stream", b, streamA, 400, "no stored stream of this session"},
		{"malformed: no index", a, "abc", 400, "malformed"},
		{"malformed: negative index", a, "abc_-1", 400, "malformed"},
		{"malformed: two separators", a, "a_b_1", 400, "malformed"},
		{"unknown stream", a, "NOSUCHSTREAM_0", 400, "no stored stream of this session"},
		{"GET stream never opened", a, "_0", 400, "no stored stream of this session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := tt.c.do(http.MethodGet, "", "Last-Event-ID", tt.id, "Content-Type", "")
			body := readAll(t, resp)
			if resp.StatusCode != tt.status || !strings.Contains(body, tt.contains) {
				t.Fatalf("status %d body %q; want %d containing %q", resp.StatusCode, body, tt.status, tt.contains)
			}
			if tt.status != 200 && strings.Contains(body, "step") {
				t.Fatalf("refusal leaks events: %q", body)
			}
		})
	}
	// An id past the GET stream's last event: it has sent none.
	get := b.do(http.MethodGet, "", "Content-Type", "")
	get.Body.Close()
	if resp := b.resumeGET("_0"); readAll(t, resp) == "" || resp.StatusCode != 400 {
		t.Fatalf("id past the GET stream's end: status %d, want 400", resp.StatusCode)
	}
	for _, c := range []*rawClient{a, b} {
		if resp := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":9,"method":"ping"}`); readAll(t, resp) == "" || resp.StatusCode != 200 {
			t.Fatalf("session lost after refusals: status %d", resp.StatusCode)
		}
	}
}

// TestStreamableNoEventStore: with the store off, SSE events carry no id,
// no stream opens with a priming event, and Last-Event-ID is refused.
func TestStreamableNoEventStore(t *testing.T) {
	srv, gate, _ := stepServer()
	close(gate)
	c := newRawClient(t, srv, transport.HTTPOptions{EventStoreBytes: -1})
	c.initialize(`{}`)
	resp := c.callTool("4", "steps", `{}`)
	events := rest(t, sseEvents(resp.Body))
	if len(events) != 3 || !strings.Contains(events[2].data, "steps done") {
		t.Fatalf("events %+v, want two steps and the answer", events)
	}
	for _, e := range events {
		if e.id != "" || e.name != "message" {
			t.Errorf("event %+v: want a message without id", e)
		}
	}
	if resp := c.do(http.MethodGet, "", "Last-Event-ID", "_0", "Content-Type", ""); !strings.Contains(readAll(t, resp), "stream replay unsupported") || resp.StatusCode != 400 {
		t.Fatalf("Last-Event-ID without a store: status %d, want 400", resp.StatusCode)
	}
}

// TestStreamableEventStoreBound: past EventStoreBytes the store drops the
// oldest events; resuming before a dropped one fails with a clear 400 and
// the session lives on.
func TestStreamableEventStoreBound(t *testing.T) {
	srv, _, _ := stepServer()
	c := newRawClient(t, srv, transport.HTTPOptions{EventStoreBytes: 1000})
	c.initialize(`{}`)
	resp := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"flood","arguments":{},"_meta":{"progressToken":"p4"}}}`,
		"Mcp-Protocol-Version", "2025-11-25")
	events := rest(t, sseEvents(resp.Body))
	if len(events) != 12 || !strings.Contains(events[11].data, "flood done") {
		t.Fatalf("%d events, want priming, ten floods, answer", len(events))
	}
	early := c.resumeGET(events[1].id)
	if body := readAll(t, early); early.StatusCode != 400 || !strings.Contains(body, "dropped from the event store") {
		t.Fatalf("resuming before dropped events: status %d %q, want 400", early.StatusCode, body)
	}
	late := c.resumeGET(events[10].id)
	if body := readAll(t, late); late.StatusCode != 200 || !strings.Contains(body, "flood done") || strings.Contains(body, "flood 10") {
		t.Fatalf("resuming after the last flood: status %d %q, want the answer", late.StatusCode, body)
	}
}
