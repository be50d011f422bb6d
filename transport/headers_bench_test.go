package transport

import (
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// BenchmarkStandardHeaders measures the check of a 2026-07-28 tools/call's
// Mcp-Method and Mcp-Name headers, by the size of its arguments (a small
// call, and a chunk of a file upload).
func BenchmarkStandardHeaders(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"small", 16}, {"64KiB", 64 << 10}, {"1MiB", 1 << 20}} {
		b.Run(size.name, func(b *testing.B) {
			params := []byte(`{"name":"network.file.upload","arguments":{"data":"` + strings.Repeat("A", size.n) +
				`"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`)
			req := &jsonrpc.Request{ID: mustID(b), Method: "tools/call", Params: params}
			h := http.Header{}
			h.Set(HeaderMethod, "tools/call")
			h.Set(HeaderName, "network.file.upload")
			b.SetBytes(int64(len(params)))
			b.ReportAllocs()
			for b.Loop() {
				if jerr := checkStandardHeaders(h, req); jerr != nil {
					b.Fatal(jerr)
				}
			}
		})
	}
}

func mustID(b *testing.B) jsonrpc.ID {
	id, err := jsonrpc.MakeID(float64(1))
	if err != nil {
		b.Fatal(err)
	}
	return id
}
