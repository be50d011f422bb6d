package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/server/servertest"
)

// BenchmarkStatelessWrite measures a write tool's call on protocol
// 2026-07-28 over HTTP (a dry-run commit of a handle's candidate), without
// an idempotency key, with a new key each time (two atomic writes of its
// record) and repeated with the same key (answered from the record), with
// the handles and keys in memory or in a state directory.
func BenchmarkStatelessWrite(b *testing.B) {
	for _, store := range []string{"memory", "state-dir"} {
		dir := ""
		if store == "state-dir" {
			dir = b.TempDir()
		}
		s, err := server.New(servertest.New(), server.Options{Approver: server.AllowAll, StateDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		url := serveHTTP(b, s)
		c := &rawClient{t: b, url: url}
		h := c.call(netproto.ToolYangEdit, `{"edit":[{"path":"/a","value":1}]}`)["handle"].(string)
		params := `{"name":"` + netproto.ToolCommit + `","arguments":{"dryRun":true,"handle":"` + h + `"}}`
		for _, mode := range []string{"no key", "new key", "same key"} {
			b.Run(store+"/"+mode, func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					meta := ""
					switch mode {
					case "new key":
						meta = fmt.Sprintf(`"netmcp/idempotencyKey":"bench-%s-%d"`, store, i)
					case "same key":
						meta = `"netmcp/idempotencyKey":"bench-same-` + store + `"`
					}
					body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + strings.TrimSuffix(params, "}") +
						`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` + meta + strings.Repeat(`"x":0`, boolInt(meta == "")) + `}}}`
					req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Accept", "application/json, text/event-stream")
					req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
					req.Header.Set("Mcp-Method", "tools/call")
					req.Header.Set("Mcp-Name", netproto.ToolCommit)
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					var buf [4096]byte
					n, _ := resp.Body.Read(buf[:])
					resp.Body.Close()
					if resp.StatusCode != 200 || !strings.Contains(string(buf[:n]), "dry-run") {
						b.Fatalf("status %d: %s", resp.StatusCode, buf[:n])
					}
				}
			})
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
