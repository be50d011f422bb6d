package transport_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/internal/syncbuf"
	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/transport"
)

// reply is a JSON-RPC response as received.
type reply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// stdioSession runs ServeIO over pipes; send writes lines, next reads one reply.
type stdioSession struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

func newStdio(t *testing.T, srv *mcp.Server) *stdioSession {
	t.Helper()
	pr, pw := io.Pipe()
	or, ow := io.Pipe()
	s := &stdioSession{t: t, in: pw, out: bufio.NewReader(or), done: make(chan error, 1)}
	go func() {
		err := transport.ServeIO(context.Background(), srv, pr, ow)
		ow.Close()
		s.done <- err
	}()
	t.Cleanup(func() { pw.Close() })
	return s
}

func (s *stdioSession) send(lines ...string) {
	s.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(s.in, l+"\n"); err != nil {
			s.t.Fatalf("write %q: %v", l, err)
		}
	}
}

func (s *stdioSession) next() reply {
	s.t.Helper()
	type res struct {
		line string
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		for {
			l, err := s.out.ReadString('\n')
			// Skip notifications the server may send.
			if err == nil && strings.Contains(l, `"method"`) && !strings.Contains(l, `"id"`) {
				continue
			}
			ch <- res{l, err}
			return
		}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			s.t.Fatalf("no reply: %v (the session ended)", r.err)
		}
		var rp reply
		if err := json.Unmarshal([]byte(r.line), &rp); err != nil {
			s.t.Fatalf("reply %q: %v", r.line, err)
		}
		return rp
	case <-time.After(testwait.Timeout(20 * time.Second)):
		s.t.Fatalf("no reply within %s", testwait.Timeout(20*time.Second))
	}
	return reply{}
}

const initLine = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`

// TestStdioProtocolErrors: malformed lines, ids the SDK would not echo
// exactly and invalid initialize calls get the right JSON-RPC error, and
// the session goes on. Before, a malformed line ended the session with no
// reply, 1.5 was answered as 1 and 2^63 as -2^63, and these errors had
// code 0.
func TestStdioProtocolErrors(t *testing.T) {
	tests := []struct {
		name     string
		line     string
		wantID   string // raw id of the reply
		wantCode int    // 0: a result
	}{
		{"call before initialize", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, "1", -32600},
		{"initialize with a bad protocolVersion", `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":5}}`, "2", -32602},
		{"initialize with non-object params", `{"jsonrpc":"2.0","id":3,"method":"initialize","params":"x"}`, "3", -32602},
		{"not JSON", `{"jsonrpc":"2.0","id":4,"method":"ping"`, "null", -32700},
		{"two messages on one line", `{"jsonrpc":"2.0","id":5,"method":"ping"}{"jsonrpc":"2.0","id":6,"method":"ping"}`, "null", -32700},
		{"not an object", `42`, "null", -32600},
		{"batch", `[{"jsonrpc":"2.0","id":7,"method":"ping"}]`, "null", -32600},
		{"no jsonrpc member", `{"id":8,"method":"ping"}`, "null", -32600},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, "null", -32600},
		{"id 2^63", `{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}`, "null", -32600},
		{"id with exponent", `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, "null", -32600},
		{"id object", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, "null", -32600},
		{"initialize", initLine, "0", 0},
		{"second initialize", strings.Replace(initLine, `"id":0`, `"id":9`, 1), "9", -32600},
		{"id 2^53 echoed", `{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`, "9007199254740992", 0},
		{"negative id echoed", `{"jsonrpc":"2.0","id":-17,"method":"ping"}`, "-17", 0},
		{"string id echoed", `{"jsonrpc":"2.0","id":"1.5","method":"ping"}`, `"1.5"`, 0},
		{"unknown method", `{"jsonrpc":"2.0","id":10,"method":"nope"}`, "10", -32601},
	}
	s := newStdio(t, newServer())
	for _, tt := range tests {
		s.send(tt.line)
		got := s.next()
		if string(got.ID) != tt.wantID {
			t.Errorf("%s: reply id %s, want %s", tt.name, got.ID, tt.wantID)
		}
		switch {
		case tt.wantCode == 0 && got.Error != nil:
			t.Errorf("%s: error %+v, want a result", tt.name, *got.Error)
		case tt.wantCode != 0 && got.Error == nil:
			t.Errorf("%s: result %s, want error %d", tt.name, got.Result, tt.wantCode)
		case tt.wantCode != 0 && got.Error.Code != tt.wantCode:
			t.Errorf("%s: error %d %q, want code %d", tt.name, got.Error.Code, got.Error.Message, tt.wantCode)
		}
	}
}

// TestStdioAnswersRequestsReadBeforeEOF: a client that writes its requests
// and closes stdin at once gets every answer, even one that takes a while;
// before, the requests still in progress at EOF were never answered.
func TestStdioAnswersRequestsReadBeforeEOF(t *testing.T) {
	srv := newServer()
	type in struct{}
	mcp.AddTool(srv, &mcp.Tool{Name: "slow"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ in) (*mcp.CallToolResult, any, error) {
		select {
		case <-time.After(300 * time.Millisecond):
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	var input bytes.Buffer
	input.WriteString(initLine + "\n")
	input.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	input.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}}` + "\n")
	input.WriteString(`{"jsonrpc":"2.0","id":2,"method":"ping"}`) // last line without newline
	var out syncbuf.Buffer
	done := make(chan error, 1)
	go func() { done <- transport.ServeIO(context.Background(), srv, &input, &out) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(testwait.Timeout(30 * time.Second)):
		t.Fatal("ServeIO did not end after EOF")
	}
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r reply
		if json.Unmarshal([]byte(l), &r) == nil && r.ID != nil {
			got[string(r.ID)] = l
		}
	}
	for _, id := range []string{"0", "1", "2"} {
		if got[id] == "" {
			t.Errorf("request %s was not answered; output:\n%s", id, out.String())
		}
	}
	if !strings.Contains(got["1"], `"done"`) {
		t.Errorf("slow call answered %s", got["1"])
	}
}

// TestHTTPProtocolErrors: over HTTP too, a body the SDK would mishandle is
// answered 400 with the JSON-RPC error.
func TestHTTPProtocolErrors(t *testing.T) {
	srv := newServer()
	ts := httptest.NewServer(transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv }, transport.HTTPOptions{}))
	defer ts.Close()
	tests := []struct {
		name, body string
		code       int
		id         string
	}{
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, -32600, "null"},
		{"id 2^63", `{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}`, -32600, "null"},
		{"initialize with bad params", `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":5}}`, -32602, "3"},
		{"not JSON", `{"jsonrpc":`, -32700, "null"},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+transport.Path, strings.NewReader(tt.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var r reply
		err = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusBadRequest || r.Error == nil || r.Error.Code != tt.code || string(r.ID) != tt.id {
			t.Errorf("%s: status %d, reply %+v (%v); want 400, code %d, id %s", tt.name, resp.StatusCode, r, err, tt.code, tt.id)
		}
	}
}
