package transport_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/transport"
)

// toolServer is a server with the tools the Streamable HTTP tests call:
// plain answers at once; progress sends a progress notification first;
// ask elicits from the client and answers with its reply; slow sleeps
// for its "ms" argument and echoes its "n" argument.
func toolServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	obj := map[string]any{"type": "object"}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	s.AddTool(&mcp.Tool{Name: "plain", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("plain answer"), nil
	})
	s.AddTool(&mcp.Tool{Name: "progress", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: req.Params.GetProgressToken(), Progress: 1, Total: 2, Message: "half"}); err != nil {
			return nil, err
		}
		return text("progress answer"), nil
	})
	s.AddTool(&mcp.Tool{Name: "ask", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "proceed?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}})
		if err != nil {
			return nil, err
		}
		return text("client said " + res.Action), nil
	})
	s.AddTool(&mcp.Tool{Name: "slow", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct {
			MS int `json:"ms"`
			N  int `json:"n"`
		}
		_ = json.Unmarshal(req.Params.Arguments, &args)
		time.Sleep(time.Duration(args.MS) * time.Millisecond)
		return text(fmt.Sprintf("n=%d", args.N)), nil
	})
	s.AddTool(&mcp.Tool{Name: "closer", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		req.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: 10 * time.Millisecond})
		return text("closer answer"), nil
	})
	return s
}

// rawClient speaks Streamable HTTP by hand to one handler.
type rawClient struct {
	t   *testing.T
	url string
	sid string
}

func newRawClient(t *testing.T, srv *mcp.Server, opts transport.HTTPOptions) *rawClient {
	t.Helper()
	ts := httptest.NewServer(transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv }, opts))
	t.Cleanup(ts.Close)
	return &rawClient{t: t, url: ts.URL + transport.Path}
}

// do sends a request with the usual headers (and the session id; on a
// request of protocol 2026-07-28 the Mcp-Method and Mcp-Name headers its
// body calls for), then the extra header pairs ("Name", "value"; an empty
// value deletes).
func (c *rawClient) do(method, body string, hdr ...string) *http.Response {
	c.t.Helper()
	req, err := http.NewRequest(method, c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.sid != "" {
		req.Header.Set("Mcp-Session-Id", c.sid)
	}
	if method == http.MethodPost && strings.Contains(body, `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`) {
		if err := transport.SetStandardHeaders(req.Header, []byte(body)); err != nil {
			c.t.Fatal(err)
		}
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp
}

// initialize opens a session and completes its handshake.
func (c *rawClient) initialize(caps string) {
	c.t.Helper()
	resp := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":{"name":"c","version":"1"}}}`)
	body := readAll(c.t, resp)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
		c.t.Fatalf("initialize: status %d, session %q: %s", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), body)
	}
	c.sid = resp.Header.Get("Mcp-Session-Id")
	resp = c.do(http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if body := readAll(c.t, resp); resp.StatusCode != http.StatusAccepted || body != "" {
		c.t.Fatalf("notifications/initialized: status %d body %q, want 202 without body", resp.StatusCode, body)
	}
}

func (c *rawClient) callTool(id, name, args string) *http.Response {
	return c.do(http.MethodPost, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"`+name+`","arguments":`+args+`,"_meta":{"progressToken":"p`+id+`"}}}`)
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sseEvent is one server-sent event as a client reads it.
type sseEvent struct{ name, id, data string }

// sseEvents reads the events of r, each on the channel, until EOF.
func sseEvents(r io.Reader) <-chan sseEvent {
	ch := make(chan sseEvent, 16)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		var e sseEvent
		seen := false
		for sc.Scan() {
			line := sc.Text()
			field, value, _ := strings.Cut(line, ": ")
			switch {
			case line == "":
				if seen {
					ch <- e
				}
				e, seen = sseEvent{}, false
			case field == "event":
				e.name, seen = value, true
			case field == "id":
				e.id, seen = value, true
			case field == "data":
				e.data, seen = value, true
			}
		}
	}()
	return ch
}

func nextEvent(t *testing.T, ch <-chan sseEvent, what string) sseEvent {
	t.Helper()
	select {
	case e, ok := <-ch:
		if !ok {
			t.Fatalf("stream ended before %s", what)
		}
		return e
	case <-time.After(testwait.Timeout(10 * time.Second)):
		t.Fatalf("no %s within %s", what, testwait.Timeout(10*time.Second))
	}
	return sseEvent{}
}

// rest returns the events of ch until it ends.
func rest(t *testing.T, ch <-chan sseEvent) []sseEvent {
	t.Helper()
	var out []sseEvent
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				return out
			}
			out = append(out, e)
		case <-time.After(testwait.Timeout(10 * time.Second)):
			t.Fatalf("stream did not end within %s; so far %v", testwait.Timeout(10*time.Second), out)
		}
	}
}

// TestStreamableSessionLifecycle: initialize opens a session and names it,
// calls on it are answered, DELETE ends it, and it is unknown afterwards.
func TestStreamableSessionLifecycle(t *testing.T) {
	c := newRawClient(t, toolServer(), transport.HTTPOptions{})
	c.initialize(`{}`)
	resp := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if body := readAll(t, resp); resp.StatusCode != 200 || !strings.Contains(body, `"name":"plain"`) || !strings.HasPrefix(body, `{"jsonrpc":"2.0","id":2,"result":`) {
		t.Fatalf("tools/list: status %d: %s", resp.StatusCode, body)
	}
	resp = c.do(http.MethodDelete, "")
	if readAll(t, resp); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: status %d, want 204", resp.StatusCode)
	}
	for _, m := range []string{http.MethodPost, http.MethodDelete, http.MethodGet} {
		resp = c.do(m, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
		if readAll(t, resp); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s after DELETE: status %d, want 404", m, resp.StatusCode)
		}
	}
}

// TestStreamableStatuses: requests the transport refuses get the SDK
// handler's status codes.
func TestStreamableStatuses(t *testing.T) {
	c := newRawClient(t, toolServer(), transport.HTTPOptions{})
	c.initialize(`{}`)
	sid := c.sid
	ping := `{"jsonrpc":"2.0","id":9,"method":"ping"}`
	tests := []struct {
		name, method, body string
		hdr                []string
		status             int
		contains           string
	}{
		{"ping", "POST", ping, nil, 200, `"result":{}`},
		{"content type", "POST", ping, []string{"Content-Type", "text/plain"}, 415, "Content-Type"},
		{"accept json only", "POST", ping, []string{"Accept", "application/json"}, 400, "Accept"},
		{"accept wildcard", "POST", ping, []string{"Accept", "*/*"}, 200, `"result":{}`},
		{"unknown session", "POST", ping, []string{"Mcp-Session-Id", "nope"}, 404, "session not found"},
		{"no session, not initialize", "POST", ping, []string{"Mcp-Session-Id", ""}, 400, "initialize"},
		{"no session, notification", "POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, []string{"Mcp-Session-Id", ""}, 400, "initialize"},
		{"empty body", "POST", "", nil, 400, "non-empty"},
		{"batch", "POST", "[" + ping + "]", nil, 400, "-32600"},
		{"unsupported version header", "POST", ping, []string{"Mcp-Protocol-Version", "1999-01-01"}, 400, "Unsupported protocol version"},
		{"supported version header", "POST", ping, []string{"Mcp-Protocol-Version", "2025-06-18"}, 200, `"result":{}`},
		{"per-request version", "POST", `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, nil, 400, "has no sessions"},
		{"2026 header on a call", "POST", ping, []string{"Mcp-Protocol-Version", "2026-07-28"}, 400, "has no sessions"},
		{"Last-Event-ID on POST", "POST", ping, []string{"Last-Event-ID", "a_1"}, 400, "Last-Event-ID"},
		{"GET without event-stream", "GET", "", []string{"Accept", "application/json"}, 400, "text/event-stream"},
		{"GET without session", "GET", "", []string{"Mcp-Session-Id", ""}, 400, "Mcp-Session-Id"},
		{"GET replay of no stream", "GET", "", []string{"Last-Event-ID", "s_3"}, 400, "no stored stream of this session"},
		{"GET malformed event id", "GET", "", []string{"Last-Event-ID", "x"}, 400, "malformed"},
		{"DELETE without session", "DELETE", "", []string{"Mcp-Session-Id", ""}, 400, "Mcp-Session-Id"},
		{"PUT", "PUT", ping, nil, 405, "Method Not Allowed"},
		{"no session, server/discover", "POST", `{"jsonrpc":"2.0","id":9,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}}}`,
			[]string{"Mcp-Session-Id", "", "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "server/discover"}, 200, `"supportedVersions":["2026-07-28","2025-11-25",`},
		{"unknown method", "POST", `{"jsonrpc":"2.0","id":9,"method":"no/such"}`, nil, 200, "-32601"},
		{"invalid params keep the SDK's message", "POST", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":5}}`, nil, 200, "cannot unmarshal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.sid = sid
			resp := c.do(tt.method, tt.body, tt.hdr...)
			body := readAll(t, resp)
			if resp.StatusCode != tt.status || !strings.Contains(body, tt.contains) {
				t.Fatalf("status %d body %q; want %d containing %q", resp.StatusCode, body, tt.status, tt.contains)
			}
			if tt.status == 405 && resp.Header.Get("Allow") != "GET, POST, DELETE" {
				t.Errorf("Allow %q", resp.Header.Get("Allow"))
			}
		})
	}
	// The session survived every refusal.
	c.sid = sid
	if resp := c.do("POST", ping); readAll(t, resp) == "" || resp.StatusCode != 200 {
		t.Fatalf("session lost: status %d", resp.StatusCode)
	}
}

// TestStreamableJSONOrSSE: a call answered before anything else relates to
// it gets application/json; one that sends a progress notification first
// gets an SSE stream with the notification, then the answer.
func TestStreamableJSONOrSSE(t *testing.T) {
	c := newRawClient(t, toolServer(), transport.HTTPOptions{})
	c.initialize(`{}`)

	resp := c.callTool("2", "plain", `{}`)
	body := readAll(t, resp)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" || !strings.Contains(body, "plain answer") {
		t.Fatalf("plain: Content-Type %q: %s", ct, body)
	}

	resp = c.callTool("3", "progress", `{}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("progress: Content-Type %q, want text/event-stream", ct)
	}
	ev := sseEvents(resp.Body)
	defer resp.Body.Close()
	if e := nextEvent(t, ev, "progress notification").data; !strings.Contains(e, `"method":"notifications/progress"`) || !strings.Contains(e, `"progressToken":"p3"`) {
		t.Fatalf("first event %s, want the progress notification", e)
	}
	if e := nextEvent(t, ev, "answer").data; !strings.Contains(e, `"id":3`) || !strings.Contains(e, "progress answer") {
		t.Fatalf("second event %s, want the answer", e)
	}
	if e, ok := <-ev; ok {
		t.Fatalf("event after the answer: %+v", e)
	}
}

// TestStreamableCloseSSEStream: a tool that closes its call's stream
// (SEP-1699) ends the POST with an SSE stream, carrying a "close" event with
// the retry delay from protocol 2025-11-25; with the event store (the
// default) the stream opens with a priming event from 2025-11-25, without
// one the answer is dropped.
func TestStreamableCloseSSEStream(t *testing.T) {
	for _, tt := range []struct {
		name    string
		store   int
		version string
		want    *regexp.Regexp
	}{
		{"store 2025-11-25", 0, "2025-11-25", regexp.MustCompile(`^id: [A-Z2-7]+_0\ndata: \n\nevent: close\nretry: 10\ndata: \n\n$`)},
		{"store 2025-06-18", 0, "2025-06-18", regexp.MustCompile(`^$`)},
		{"no store 2025-11-25", -1, "2025-11-25", regexp.MustCompile(`^event: close\nretry: 10\ndata: \n\n$`)},
		{"no store 2025-06-18", -1, "2025-06-18", regexp.MustCompile(`^$`)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newRawClient(t, toolServer(), transport.HTTPOptions{EventStoreBytes: tt.store})
			c.initialize(`{}`)
			resp := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"closer","arguments":{}}}`,
				"Mcp-Protocol-Version", tt.version)
			body := readAll(t, resp)
			if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" || !tt.want.MatchString(body) {
				t.Errorf("status %d, Content-Type %q, body %q; want 200 text/event-stream matching %s", resp.StatusCode, ct, body, tt.want)
			}
		})
	}
}

// TestStreamableElicitationOnPOST: a tool's elicitation goes to the POST
// stream of its call (no GET stream is open), the client's reply is POSTed
// back (202), and the call's answer follows on the same stream.
func TestStreamableElicitationOnPOST(t *testing.T) {
	c := newRawClient(t, toolServer(), transport.HTTPOptions{})
	c.initialize(`{"elicitation":{}}`)
	resp := c.callTool("5", "ask", `{}`)
	defer resp.Body.Close()
	ev := sseEvents(resp.Body)
	e := nextEvent(t, ev, "elicitation request").data
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if err := json.Unmarshal([]byte(e), &req); err != nil || req.Method != "elicitation/create" || req.ID == nil {
		t.Fatalf("first event %s, want elicitation/create (%v)", e, err)
	}
	r := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"action":"decline"}}`)
	if body := readAll(t, r); r.StatusCode != http.StatusAccepted {
		t.Fatalf("reply to the elicitation: status %d %s, want 202", r.StatusCode, body)
	}
	if e := nextEvent(t, ev, "answer").data; !strings.Contains(e, `"id":5`) || !strings.Contains(e, "client said decline") {
		t.Fatalf("answer %s", e)
	}
}

// TestStreamableSDKClientElicitation: the go-sdk client's elicitation
// handler is reached through the transport and its answer returns to the
// tool.
func TestStreamableSDKClientElicitation(t *testing.T) {
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
		},
	})
	sdkClientCalls(t, client, false, "ask", "client said accept")
}

// sdkClientCalls connects client (with its standalone GET stream unless
// noGET) to a handler serving toolServer and calls tool three times, each
// answered with the text want.
func sdkClientCalls(t *testing.T, client *mcp.Client, noGET bool, tool, want string) {
	t.Helper()
	ts := httptest.NewServer(transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return toolServer() }, transport.HTTPOptions{}))
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout(20*time.Second))
	defer cancel()
	// A session (elicitation needs one): not the per-request protocol.
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + transport.Path, DisableStandaloneSSE: noGET},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for i := range 3 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if got := res.Content[0].(*mcp.TextContent).Text; got != want {
			t.Fatalf("call %d answered %q, want %q", i, got, want)
		}
	}
}

// TestStreamableGETStream: a notification unrelated to any call (a tool
// list change) goes to the GET stream; without one it is dropped and the
// session lives on. A second GET stream is refused (409).
func TestStreamableGETStream(t *testing.T) {
	srv := toolServer()
	c := newRawClient(t, srv, transport.HTTPOptions{})
	c.initialize(`{}`)
	add := func(name string) {
		srv.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	}
	add("extra1") // no GET stream: the notification has nowhere to go
	time.Sleep(100 * time.Millisecond)
	if resp := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); readAll(t, resp) == "" || resp.StatusCode != 200 {
		t.Fatalf("session lost after an undeliverable notification: status %d", resp.StatusCode)
	}

	get := c.do(http.MethodGet, "")
	defer get.Body.Close()
	if get.StatusCode != 200 || get.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: status %d, Content-Type %q", get.StatusCode, get.Header.Get("Content-Type"))
	}
	if second := c.do(http.MethodGet, ""); readAll(t, second) == "" || second.StatusCode != http.StatusConflict {
		t.Fatalf("second GET: status %d, want 409", second.StatusCode)
	}
	ev := sseEvents(get.Body)
	add("extra2")
	if e := nextEvent(t, ev, "list_changed notification").data; !strings.Contains(e, `"method":"notifications/tools/list_changed"`) {
		t.Fatalf("GET event %s", e)
	}
}

// TestStreamableIdleTimeout: a session without requests for
// SessionTimeout is closed, but not while a POST runs.
func TestStreamableIdleTimeout(t *testing.T) {
	// 150 ms on a quiet machine, longer on a busy one: the ping right
	// after the slow call must reach the server within it.
	idle := testwait.Timeout(150 * time.Millisecond)
	c := newRawClient(t, toolServer(), transport.HTTPOptions{SessionTimeout: idle})
	c.initialize(`{}`)
	// A call running for longer than the timeout keeps the session.
	resp := c.callTool("2", "slow", fmt.Sprintf(`{"ms":%d,"n":1}`, (idle*8/3).Milliseconds()))
	if body := readAll(t, resp); resp.StatusCode != 200 || !strings.Contains(body, "n=1") {
		t.Fatalf("slow call: status %d: %s", resp.StatusCode, body)
	}
	if resp := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); readAll(t, resp) == "" || resp.StatusCode != 200 {
		t.Fatalf("ping right after the slow call: status %d", resp.StatusCode)
	}
	time.Sleep(idle * 10 / 3) // idling beyond the timeout, the behaviour under test
	if resp := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":4,"method":"ping"}`); readAll(t, resp) == "" || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("ping after the idle timeout: status %d, want 404", resp.StatusCode)
	}
}

// TestStreamableConcurrentCalls: calls in flight together on one session
// each get their own answer; a second call with the id of one in flight
// is refused.
func TestStreamableConcurrentCalls(t *testing.T) {
	srv := toolServer()
	// held answers once released, so that a call is surely in flight
	// when its id is sent again.
	started, release := make(chan struct{}), make(chan struct{})
	srv.AddTool(&mcp.Tool{Name: "held", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			close(started)
			select {
			case <-release:
			case <-ctx.Done():
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "held answer"}}}, nil
		})
	c := newRawClient(t, srv, transport.HTTPOptions{})
	c.initialize(`{}`)
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			id := fmt.Sprint(100 + i)
			resp := c.callTool(id, "slow", fmt.Sprintf(`{"ms":%d,"n":%d}`, (n-i)*10, i))
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.HasPrefix(string(b), `{"jsonrpc":"2.0","id":`+id+`,`) || !strings.Contains(string(b), fmt.Sprintf(`n=%d"`, i)) {
				errs <- fmt.Errorf("call %s answered %s", id, b)
			}
		})
	}
	wg.Go(func() {
		resp := c.callTool("200", "held", `{}`)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(b), "held answer") {
			errs <- fmt.Errorf("call 200 answered %s", b)
		}
	})
	wg.Go(func() {
		defer close(release)
		select {
		case <-started:
		case <-time.After(testwait.Timeout(10 * time.Second)):
			errs <- fmt.Errorf("call 200 did not start within %s", testwait.Timeout(10*time.Second))
			return
		}
		resp := c.callTool("200", "plain", `{}`)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "duplicate in-flight request ID") {
			errs <- fmt.Errorf("duplicate id: status %d %s, want 400", resp.StatusCode, b)
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// BenchmarkHTTPCall makes sequential tools/call requests with the go-sdk
// client to a server behind netmcp's Streamable HTTP handler and behind
// the SDK's own, in process over loopback.
func BenchmarkHTTPCall(b *testing.B) {
	handlers := []struct {
		name string
		h    func(*mcp.Server) http.Handler
	}{
		{"netmcp", func(s *mcp.Server) http.Handler {
			return transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return s }, transport.HTTPOptions{})
		}},
		{"sdk", func(s *mcp.Server) http.Handler {
			return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
		}},
	}
	for _, tt := range handlers {
		b.Run(tt.name, func(b *testing.B) {
			ts := httptest.NewServer(tt.h(toolServer()))
			defer ts.Close()
			ctx := context.Background()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx,
				&mcp.StreamableClientTransport{Endpoint: ts.URL + transport.Path, DisableStandaloneSSE: true}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "plain", Arguments: map[string]any{}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestStreamablePrimingEvent: from protocol 2025-11-25 a call's SSE stream
// opens with the priming event exactly as SEP-1699 has it: an id and empty
// data, no event type (a type the specification does not define makes
// clients log an unknown event); the message events that follow keep
// their "message" type.
func TestStreamablePrimingEvent(t *testing.T) {
	c := newRawClient(t, toolServer(), transport.HTTPOptions{})
	c.initialize(`{}`)
	resp := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":"p3"}}}`,
		"Mcp-Protocol-Version", "2025-11-25")
	body := readAll(t, resp)
	want := regexp.MustCompile(`^id: [A-Z2-7]+_0\ndata: \n\nevent: message\nid: [A-Z2-7]+_1\ndata: \{[^\n]*"notifications/progress"[^\n]*\n\nevent: message\nid: [A-Z2-7]+_2\ndata: \{[^\n]*"progress answer"[^\n]*\n\n$`)
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" || !want.MatchString(body) {
		t.Fatalf("status %d, Content-Type %q, body %q; want 200 text/event-stream matching %s", resp.StatusCode, ct, body, want)
	}
	if strings.Contains(body, "prime") {
		t.Fatalf("body %q names an event type for the priming event", body)
	}
}
