package transport_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/transport"
)

// meta2026 is the _meta of a 2026-07-28 request: version, client
// capabilities and client info travel with every request.
const meta2026 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}`

// TestStatelessRequests: the /mcp endpoint serves a 2026-07-28 request
// (header and _meta) without initialize and without a session: no
// Mcp-Session-Id is handed out, every result carries resultType, a call's
// progress goes on its own SSE stream without a priming event or event
// ids (nothing is resumed on that protocol), and the header rules of
// SEP-2575 are enforced with the SDK's codes.
func TestStatelessRequests(t *testing.T) {
	c := newRawClient(t, toolServer(), transport.HTTPOptions{})
	v := []string{"Mcp-Protocol-Version", "2026-07-28"}
	for _, tt := range []struct {
		name, body string
		hdr        []string
		status     int
		contains   []string
	}{
		{"server/discover", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta2026 + `}}`, v, 200,
			[]string{`"supportedVersions":["2026-07-28",`, `"resultType":"complete"`}},
		{"tools/list", `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta2026 + `}}`, v, 200,
			[]string{`"name":"plain"`, `"resultType":"complete"`}},
		{"tools/call", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"plain","arguments":{},` + meta2026 + `}}`, v, 200,
			[]string{`"plain answer"`, `"resultType":"complete"`}},
		{"no header", `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{` + meta2026 + `}}`, nil, 400,
			[]string{`"code":-32020`, "header is required"}},
		{"no _meta version", `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`, v, 400,
			[]string{`"code":-32602`, "protocolVersion"}},
		{"header and _meta differ", `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{` + meta2026 + `}}`,
			[]string{"Mcp-Protocol-Version", "2025-11-25"}, 400, []string{`"code":-32020`, "does not match"}},
		{"unknown version", `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{` + strings.ReplaceAll(meta2026, "2026-07-28", "2099-01-01") + `}}`,
			[]string{"Mcp-Protocol-Version", "2099-01-01"}, 400, []string{`"code":-32022`, `"supported":["2026-07-28",`}},
		{"ping is not a method of 2026-07-28", `{"jsonrpc":"2.0","id":8,"method":"ping","params":{` + meta2026 + `}}`, v, 200,
			[]string{`"code":-32601`}},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,` + meta2026 + `}}`, v, 202, nil},
		{"notification, header only", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`, v, 202, nil},
		{"bare notifications/cancelled", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`, nil, 202, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := c.do(http.MethodPost, tt.body, tt.hdr...)
			body := readAll(t, resp)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			for _, want := range tt.contains {
				if !strings.Contains(body, want) {
					t.Errorf("body %s does not contain %s", body, want)
				}
			}
			if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
				t.Errorf("Mcp-Session-Id %q handed out on 2026-07-28", sid)
			}
		})
	}

	t.Run("progress on the call's stream", func(t *testing.T) {
		resp := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":"p9",`+meta2026[len(`"_meta":{`):]+`}}`, v...)
		body := readAll(t, resp)
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
			t.Fatalf("status %d, Content-Type %q: %s", resp.StatusCode, ct, body)
		}
		if !strings.HasPrefix(body, "event: message\ndata: ") || strings.Contains(body, "id: ") ||
			!strings.Contains(body, `"notifications/progress"`) || !strings.Contains(body, `"progress answer"`) {
			t.Fatalf("body %q: want the progress event then the answer, without ids or priming event", body)
		}
	})
}

// TestStatelessRefusesSessionID: a 2026-07-28 request carrying the id of
// a live session is refused (that protocol has no sessions), and the
// session itself lives on; the session's 2025-11-25 calls are unchanged.
func TestStatelessRefusesSessionID(t *testing.T) {
	c := newRawClient(t, toolServer(), transport.HTTPOptions{})
	c.initialize(`{}`)
	resp := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+meta2026+`}}`, "Mcp-Protocol-Version", "2026-07-28")
	if body := readAll(t, resp); resp.StatusCode != 400 || !strings.Contains(body, `"code":-32600`) || !strings.Contains(body, "Mcp-Session-Id") {
		t.Fatalf("status %d: %s; want 400 -32600 naming Mcp-Session-Id", resp.StatusCode, body)
	}
	resp = c.do(http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, "Mcp-Protocol-Version", "2025-11-25")
	if body := readAll(t, resp); resp.StatusCode != 200 || !strings.Contains(body, `"name":"plain"`) || strings.Contains(body, "resultType") {
		t.Fatalf("the session's tools/list: status %d: %s", resp.StatusCode, body)
	}
}
