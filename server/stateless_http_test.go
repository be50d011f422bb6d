package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/server/servertest"
	"github.com/netmcp/netmcp/transport"
)

// statelessMeta is the _meta of a 2026-07-28 request.
const statelessMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}`

// statelessPost sends one 2026-07-28 request (no session) to url and
// returns the JSON-RPC response's result or error.
func statelessPost(t *testing.T, url, method, params string) (result, rpcErr map[string]any) {
	t.Helper()
	if params != "" {
		params += ","
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params + statelessMeta + `}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	if err := transport.SetStandardHeaders(req.Header, []byte(body)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		t.Errorf("%s: Mcp-Session-Id %q handed out", method, sid)
	}
	var msg struct {
		Result map[string]any `json:"result"`
		Error  map[string]any `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatalf("%s: status %d, %v", method, resp.StatusCode, err)
	}
	return msg.Result, msg.Error
}

// TestStatelessHTTP: over HTTP on protocol 2026-07-28 (no initialize, no
// session) server/discover lists the version and carries the network
// capability twice (capabilities.network with the draft's seven fields,
// and the ietf.org/mcp-net extension); tools, resources and prompts are
// served with resultType on every result (state-changing calls:
// handles_test.go).
func TestStatelessHTTP(t *testing.T) {
	s, err := server.New(servertest.New(), server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ts := httptest.NewServer(transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return s.MCP() }, transport.HTTPOptions{}))
	t.Cleanup(ts.Close)
	url := ts.URL + transport.Path

	res, e := statelessPost(t, url, "server/discover", "")
	if e != nil {
		t.Fatalf("server/discover: %v", e)
	}
	if vs, _ := res["supportedVersions"].([]any); len(vs) == 0 || vs[0] != "2026-07-28" {
		t.Errorf("supportedVersions %v, want 2026-07-28 first", res["supportedVersions"])
	}
	caps, _ := res["capabilities"].(map[string]any)
	network, _ := caps[netproto.CapabilityKey].(map[string]any)
	exts, _ := caps["extensions"].(map[string]any)
	ext, _ := exts[netproto.ExtensionID].(map[string]any)
	for _, k := range []string{"yangModules", "cliDialect", "configDatastore", "notificationStream", "maxBulkEdit", "supportsRollback", "rollbackTimeout"} {
		if _, ok := network[k]; !ok {
			t.Errorf("capabilities.network lacks %s: %v", k, network)
		}
		if _, ok := ext[k]; !ok {
			t.Errorf("extension %s lacks %s: %v", netproto.ExtensionID, k, ext)
		}
	}

	for _, tt := range []struct{ method, params, want string }{
		{"server/discover", "", "supportedVersions"},
		{"tools/list", "", "tools"},
		{"tools/call", `"name":"` + netproto.ToolYangGet + `","arguments":{"path":"/openconfig-interfaces:interfaces","datastore":"running"}`, "structuredContent"},
		{"resources/list", "", "resources"},
		{"resources/templates/list", "", "resourceTemplates"},
		{"resources/read", `"uri":"` + netproto.URIInterfaces + `"`, "contents"},
		{"prompts/list", "", "prompts"},
	} {
		res, e := statelessPost(t, url, tt.method, tt.params)
		if e != nil {
			t.Errorf("%s: error %v", tt.method, e)
			continue
		}
		if _, ok := res[tt.want]; !ok {
			t.Errorf("%s: result without %s: %v", tt.method, tt.want, res)
		}
		if res["resultType"] != "complete" {
			t.Errorf("%s: resultType %v, want complete", tt.method, res["resultType"])
		}
		if res["isError"] == true {
			t.Errorf("%s: tool error %v", tt.method, res)
		}
	}
}
