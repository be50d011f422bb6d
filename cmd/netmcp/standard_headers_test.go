package main

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/lab/serve"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/transport"
)

// TestStandardHeadersEveryEndpoint: every HTTP endpoint netmcp serves
// (`netmcp serve`, `netmcp controller serve`, a lab's device server)
// refuses a 2026-07-28 request whose Mcp-Method or Mcp-Name header is
// missing or names something else than its body, with 400 and -32020,
// serves one whose headers match, and still opens a 2025-11-25 session
// for a client that sends neither header.
func TestStandardHeadersEveryEndpoint(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	lab, err := serve.Up(ctx, serve.Options{Topology: sim.DefaultTopology(), StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lab.Close() })
	_, serveURL := startHTTPServe(t, "--device", "sim://r1")
	ctrl := startController(t, filepath.Join(dir, serve.InventoryFile))
	ctrlURL := regexp.MustCompile(`MCP at (http://[0-9.:]+/mcp)`).FindStringSubmatch(ctrl.stderr.String())[1]

	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"headers-test","version":"1"}}`
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"network.yang.get","arguments":{},` + meta + `}}`
	read := `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"network:///capabilities",` + meta + `}}`
	initialize := `{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"headers-test","version":"1"}}}`

	for _, ep := range []struct {
		name, url string
		hc        *http.Client
	}{
		{"netmcp serve", serveURL, http.DefaultClient},
		{"controller serve", ctrlURL, http.DefaultClient},
		{"lab device", lab.URL("r1"), lab.HTTPClient()},
	} {
		for _, tt := range []struct {
			name, body string
			hdr        []string // after the headers the body calls for; "" deletes
			status     int
			contains   string
		}{
			{"matching headers", list, nil, 200, `"tools":[`},
			{"no Mcp-Method", list, []string{"Mcp-Method", ""}, 400, "Mcp-Method header is required"},
			{"Mcp-Method of another method", list, []string{"Mcp-Method", "prompts/list"}, 400, "does not match"},
			{"no Mcp-Name on tools/call", call, []string{"Mcp-Name", ""}, 400, "Mcp-Name header is required"},
			{"Mcp-Name of another tool", call, []string{"Mcp-Name", "network.commit"}, 400, "does not match"},
			{"no Mcp-Name on resources/read", read, []string{"Mcp-Name", ""}, 400, "Mcp-Name header is required"},
			{"2025-11-25 initialize without them", initialize, nil, 200, `"protocolVersion":"2025-11-25"`},
		} {
			t.Run(ep.name+"/"+tt.name, func(t *testing.T) {
				req, _ := http.NewRequest(http.MethodPost, ep.url, strings.NewReader(tt.body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if strings.Contains(tt.body, "2026-07-28") {
					req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
					if err := transport.SetStandardHeaders(req.Header, []byte(tt.body)); err != nil {
						t.Fatal(err)
					}
				}
				for i := 0; i+1 < len(tt.hdr); i += 2 {
					if tt.hdr[i+1] == "" {
						req.Header.Del(tt.hdr[i])
					} else {
						req.Header.Set(tt.hdr[i], tt.hdr[i+1])
					}
				}
				resp, err := ep.hc.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				body := string(b)
				if resp.StatusCode != tt.status || !strings.Contains(body, tt.contains) {
					t.Fatalf("status %d: %.400s; want %d with %s", resp.StatusCode, body, tt.status, tt.contains)
				}
				if tt.status == 400 && !strings.Contains(body, `"code":-32020`) {
					t.Fatalf("%.400s: want code -32020", body)
				}
			})
		}
	}
}
