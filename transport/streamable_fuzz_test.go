package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzStreamablePOST sends any body as a POST, with and without a
// session, to netmcp's Streamable HTTP transport: every POST is answered
// (none hangs), with one of the transport's statuses; a JSON answer is
// valid JSON; and no POST leaves a session behind but an initialize that
// the answer names (an outside client cannot grow the session table
// with anything else). The body is also sent as the Last-Event-ID of a GET
// in the session, which has no stored stream: it is refused with 400,
// never answered with a stream.
func FuzzStreamablePOST(f *testing.F) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "fuzz", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
		return nil, args, nil
	})
	h := NewHTTPHandler(func(*http.Request) *mcp.Server { return srv }, HTTPOptions{SessionTimeout: -1})
	st := h.(*httpHandler).inner
	sessions := func() int {
		st.mu.Lock()
		defer st.mu.Unlock()
		return len(st.sessions)
	}
	send := func(t testing.TB, method string, body []byte, sid string, hdr ...string) *httptest.ResponseRecorder {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		req := httptest.NewRequest(method, "http://127.0.0.1/mcp", bytes.NewReader(body)).WithContext(ctx)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if ctx.Err() != nil {
			t.Fatalf("%s %q: no answer within 5 s", method, body)
		}
		return rec
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	sid := send(f, http.MethodPost, []byte(initialize), "").Header().Get("Mcp-Session-Id")
	if sid == "" {
		f.Fatal("initialize opened no session")
	}
	for _, seed := range []string{
		initialize,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"a":"b"}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"notifications/cancelled","params":{"requestId":2}}`,
		`{"jsonrpc":"2.0","id":4,"result":{}}`,
		`[{"jsonrpc":"2.0","id":5,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":6,"method":"server/discover"}`,
		`{"jsonrpc":"2.0","id":7,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`not json`, ``,
	} {
		f.Add([]byte(seed), true)
		f.Add([]byte(seed), false)
	}
	statuses := []int{http.StatusOK, http.StatusAccepted, http.StatusBadRequest, http.StatusNotFound, http.StatusRequestEntityTooLarge}
	f.Fuzz(func(t *testing.T, body []byte, inSession bool) {
		before := sessions()
		s := ""
		if inSession {
			s = sid
		}
		rec := send(t, http.MethodPost, body, s)
		if !slices.Contains(statuses, rec.Code) {
			t.Fatalf("%q: status %d: %s", body, rec.Code, rec.Body.String())
		}
		if rec.Code == http.StatusOK && rec.Header().Get("Content-Type") == "application/json" && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("%q: invalid JSON answer %q", body, rec.Body.String())
		}
		if opened := rec.Header().Get("Mcp-Session-Id"); opened != "" && !inSession {
			if rec.Code != http.StatusOK {
				t.Fatalf("%q: status %d names session %s", body, rec.Code, opened)
			}
			send(t, http.MethodDelete, nil, opened)
		}
		if inSession {
			if rec := send(t, http.MethodGet, nil, sid, "Last-Event-ID", string(body)); rec.Code != http.StatusBadRequest {
				t.Fatalf("GET with Last-Event-ID %q: status %d: %q, want 400", body, rec.Code, rec.Body.String())
			}
		}
		if after := sessions(); after != before {
			t.Fatalf("%q (in a session: %v): %d sessions before, %d after (answer %d %q)", body, inSession, before, after, rec.Code, rec.Body.String())
		}
	})
}
