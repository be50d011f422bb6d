package transport_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/transport"
)

// headerServer has one tool, one resource and one prompt, each with a
// name outside plain ASCII beside a plain one, and counts the calls its
// handlers answer.
func headerServer(calls *atomic.Int32) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	tool := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		calls.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "tool answer"}}}, nil
	}
	s.AddTool(&mcp.Tool{Name: "plain", InputSchema: map[string]any{"type": "object"}}, tool)
	read := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		calls.Add(1)
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "resource answer"}}}, nil
	}
	s.AddResource(&mcp.Resource{URI: "test://r", Name: "r"}, read)
	s.AddResource(&mcp.Resource{URI: "test://café", Name: "cafe"}, read)
	s.AddPrompt(&mcp.Prompt{Name: "greet"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		calls.Add(1)
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "prompt answer"}}}}, nil
	})
	return s
}

// TestStandardHeaders: a request of protocol 2026-07-28 must carry the
// Mcp-Method header, equal to its method, and on tools/call,
// resources/read, prompts/get (and the Tasks extension's tasks/*) the
// Mcp-Name header, equal to the name, URI or task id it targets once the
// Base64 sentinel is decoded; otherwise it is refused with 400 and
// HeaderMismatch (-32020), and no handler runs. A notification is refused
// only when an Mcp-Method it carries names another method. A 2025-11-25
// session request needs neither header and is not checked against them.
func TestStandardHeaders(t *testing.T) {
	var calls atomic.Int32
	c := newRawClient(t, headerServer(&calls), transport.HTTPOptions{})
	v := []string{"Mcp-Protocol-Version", "2026-07-28"}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"plain","arguments":{},` + meta2026 + `}}`
	read := `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"test://r",` + meta2026 + `}}`
	readCafe := `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"test://café",` + meta2026 + `}}`
	prompt := `{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"greet",` + meta2026 + `}}`
	list := `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{` + meta2026 + `}}`
	task := `{"jsonrpc":"2.0","id":6,"method":"tasks/get","params":{"taskId":"t-1",` + meta2026 + `}}`
	note := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,` + meta2026 + `}}`
	with := func(pairs ...string) []string { return append(append([]string{}, v...), pairs...) }

	for _, tt := range []struct {
		name, body string
		hdr        []string // after the headers the body calls for
		status     int
		contains   []string
		handled    bool // a handler ran
	}{
		{"tools/call, right headers", call, v, 200, []string{"tool answer"}, true},
		{"resources/read, right headers", read, v, 200, []string{"resource answer"}, true},
		{"prompts/get, right headers", prompt, v, 200, []string{"prompt answer"}, true},
		{"tools/list needs no Mcp-Name", list, v, 200, []string{`"name":"plain"`}, false},
		{"Mcp-Name in Base64, as a client must send a non-ASCII URI", readCafe,
			with("Mcp-Name", "=?base64?"+"dGVzdDovL2NhZsOp"+"?="), 200, []string{"resource answer"}, true},
		{"Mcp-Name as raw UTF-8, as the go-sdk client sends it", readCafe,
			with("Mcp-Name", "test://café"), 200, []string{"resource answer"}, true},

		{"missing Mcp-Method", list, with("Mcp-Method", ""), 400,
			[]string{`"code":-32020`, "Mcp-Method header is required", `\"tools/list\"`}, false},
		{"missing Mcp-Method on tools/call", call, with("Mcp-Method", ""), 400,
			[]string{`"code":-32020`, "Mcp-Method header is required"}, false},
		{"Mcp-Method names another method", call, with("Mcp-Method", "tools/list"), 400,
			[]string{`"code":-32020`, `Mcp-Method header value \"tools/list\" does not match body value \"tools/call\"`}, false},
		{"Mcp-Method differs in case", list, with("Mcp-Method", "Tools/List"), 400,
			[]string{`"code":-32020`, "does not match"}, false},

		{"tools/call without Mcp-Name", call, with("Mcp-Name", ""), 400,
			[]string{`"code":-32020`, "Mcp-Name header is required on tools/call", `params.name \"plain\"`}, false},
		{"tools/call naming another tool", call, with("Mcp-Name", "other"), 400,
			[]string{`"code":-32020`, `Mcp-Name header value \"other\" does not match body value params.name \"plain\"`}, false},
		{"resources/read without Mcp-Name", read, with("Mcp-Name", ""), 400,
			[]string{`"code":-32020`, "Mcp-Name header is required on resources/read", `params.uri \"test://r\"`}, false},
		{"resources/read naming another resource", read, with("Mcp-Name", "test://s"), 400,
			[]string{`"code":-32020`, `does not match body value params.uri \"test://r\"`}, false},
		{"prompts/get without Mcp-Name", prompt, with("Mcp-Name", ""), 400,
			[]string{`"code":-32020`, "Mcp-Name header is required on prompts/get"}, false},
		{"prompts/get naming another prompt", prompt, with("Mcp-Name", "Greet"), 400,
			[]string{`"code":-32020`, `does not match body value params.name \"greet\"`}, false},
		{"tasks/get without Mcp-Name", task, with("Mcp-Name", ""), 400,
			[]string{`"code":-32020`, "Mcp-Name header is required on tasks/get", `params.taskId \"t-1\"`}, false},
		{"Base64 of another name", readCafe, with("Mcp-Name", "=?base64?dGVzdDovL2NhZmU=?="), 400,
			[]string{`"code":-32020`, `\"test://cafe\" does not match`}, false},
		{"broken Base64", call, with("Mcp-Name", "=?base64?cGxhaW4?="), 400,
			[]string{`"code":-32020`, "not valid Base64"}, false},
		{"Base64 of bytes that are not UTF-8", call, with("Mcp-Name", "=?base64?/w==?="), 400,
			[]string{`"code":-32020`, "not valid Base64"}, false},
		{"Mcp-Name with no name in the body", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{},` + meta2026 + `}}`,
			with("Mcp-Name", "plain"), 400, []string{`"code":-32020`, "the body has no params.name"}, false},

		{"notification with the right Mcp-Method", note, v, 202, nil, false},
		{"notification without Mcp-Method", note, with("Mcp-Method", ""), 202, nil, false},
		{"notification naming another method", note, with("Mcp-Method", "notifications/progress"), 400,
			[]string{`"code":-32020`, "does not match"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := calls.Load()
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
			if ran := calls.Load() != before; ran != tt.handled {
				t.Errorf("a handler ran: %v, want %v", ran, tt.handled)
			}
		})
	}

	t.Run("two Mcp-Method headers", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, c.url, strings.NewReader(list))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Add("Mcp-Method", "tools/list")
		req.Header.Add("Mcp-Method", "tools/list")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if body := readAll(t, resp); resp.StatusCode != 400 || !strings.Contains(body, `"code":-32020`) || !strings.Contains(body, "2 Mcp-Method headers") {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
	})

	t.Run("2025-11-25 session", func(t *testing.T) {
		s := newRawClient(t, headerServer(&calls), transport.HTTPOptions{})
		s.initialize(`{}`)
		before := calls.Load()
		for _, tt := range []struct {
			name, body string
			hdr        []string
			want       string
		}{
			{"no standard headers", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"plain","arguments":{}}}`, nil, "tool answer"},
			{"headers that do not match are not looked at", `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"test://r"}}`,
				[]string{"Mcp-Method", "tools/list", "Mcp-Name", "=?base64?broken?="}, "resource answer"},
			{"prompts/get", `{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"greet"}}`, nil, "prompt answer"},
		} {
			resp := s.do(http.MethodPost, tt.body, append([]string{"Mcp-Protocol-Version", "2025-11-25"}, tt.hdr...)...)
			if body := readAll(t, resp); resp.StatusCode != 200 || !strings.Contains(body, tt.want) {
				t.Errorf("%s: status %d: %s", tt.name, resp.StatusCode, body)
			}
		}
		if n := calls.Load() - before; n != 3 {
			t.Errorf("%d handlers ran, want 3", n)
		}
	})
}

// TestHeaderValueEncoding: the values of the specification's examples
// are encoded as it shows, a plain value is left as it is, and
// SetStandardHeaders mirrors a request body, encoding its name.
func TestHeaderValueEncoding(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"us-west1", "us-west1"},
		{"tools/call", "tools/call"},
		{"network:///interfaces/ge-0%2F0%2F1", "network:///interfaces/ge-0%2F0%2F1"},
		{"Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="},
		{" padded ", "=?base64?IHBhZGRlZCA=?="},
		{"line1\nline2", "=?base64?bGluZTEKbGluZTI=?="},
		{"=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="},
		{"", "=?base64??="},
	} {
		if got := transport.EncodeHeaderValue(tt.in); got != tt.want {
			t.Errorf("EncodeHeaderValue(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}

	for _, tt := range []struct{ body, method, name string }{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"network.ping","arguments":{"name":"x"}}}`, "tools/call", "network.ping"},
		{`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://café"}}`, "resources/read", "=?base64?dGVzdDovL2NhZsOp?="},
		{`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"Name":"wrong case","name":"greet"}}`, "prompts/get", "greet"},
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/cancel","params":{"taskId":"t-9"}}`, "tasks/cancel", "t-9"},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"name":"not mirrored"}}`, "tools/list", ""},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, "notifications/cancelled", ""},
	} {
		h := http.Header{}
		if err := transport.SetStandardHeaders(h, []byte(tt.body)); err != nil {
			t.Fatalf("%s: %v", tt.body, err)
		}
		if h.Get("Mcp-Method") != tt.method || h.Get("Mcp-Name") != tt.name || len(h.Values("Mcp-Name")) > 1 {
			t.Errorf("%s: Mcp-Method %q, Mcp-Name %q; want %q, %q", tt.body, h.Get("Mcp-Method"), h.Get("Mcp-Name"), tt.method, tt.name)
		}
	}
	for _, body := range []string{`{"jsonrpc":"2.0","id":1,"result":{}}`, `not json`} {
		if err := transport.SetStandardHeaders(http.Header{}, []byte(body)); err == nil {
			t.Errorf("SetStandardHeaders(%s) succeeded; want an error", body)
		}
	}
}
