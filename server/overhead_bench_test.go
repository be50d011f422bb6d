package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/server"
)

// BenchmarkYangGetInProcess measures one network.yang.get tools/call over
// an in-memory transport, with and without netmcp's security layer
// (identity, policy, masking for a caller without the secrets scope, audit
// with the default fsync policy): the per-call cost of netmcp's own layers
// without process or pipe noise, and the place to take CPU and allocation
// profiles (-cpuprofile, -memprofile).
func BenchmarkYangGetInProcess(b *testing.B) {
	for _, cfg := range []struct {
		name          string
		secure, audit bool
	}{{"sdk-peer", false, false}, {"bare", false, false}, {"secure", true, false}, {"secure-audit", true, true}} {
		secure := cfg.secure
		b.Run(cfg.name, func(b *testing.B) {
			var srv *mcp.Server
			if cfg.name == "sdk-peer" {
				srv = sdkPeer(simR1(b))
			} else {
				s, err := server.New(simR1(b), server.Options{})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				srv = s.MCP()
				if secure {
					opts := server.SecurityOptions{LocalUser: "bench"}
					if cfg.audit {
						alog, err := audit.Open(b.TempDir()+"/"+audit.FileName, audit.Options{Sync: audit.SyncWrites})
						if err != nil {
							b.Fatal(err)
						}
						defer alog.Close()
						opts.Audit = alog
					}
					if _, err := s.Secure(opts); err != nil {
						b.Fatal(err)
					}
				}
			}
			ct, st := mcp.NewInMemoryTransports()
			if _, err := srv.Connect(context.Background(), st, nil); err != nil {
				b.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), ct, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			params := &mcp.CallToolParams{Name: "network.yang.get", Arguments: map[string]any{"path": benchPath, "datastore": "running"}}
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(context.Background(), params)
				if err != nil || res.IsError {
					b.Fatalf("call: %v %v", err, res)
				}
			}
		})
	}
}

// sdkPeer is a bare go-sdk server with one network.yang.get tool reading
// drv, as `netmcp bench-peer` serves it: the baseline netmcp's own layers
// are measured against (no authorization, validation, masking or audit).
func sdkPeer(drv device.Driver) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "sdk-peer", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "network.yang.get", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			in := struct {
				Path      string `json:"path"`
				Datastore string `json:"datastore"`
			}{}
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			data, err := drv.Get(ctx, device.Datastore(in.Datastore), in.Path)
			if err != nil {
				return nil, err
			}
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(map[string]any{"data": data}); err != nil {
				return nil, err
			}
			out := bytes.TrimRight(buf.Bytes(), "\n")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out)}},
				StructuredContent: json.RawMessage(out)}, nil
		})
	return srv
}

// BenchmarkServerNew measures building one device's MCP server (tools,
// schemas, prompts, resources): what each router of a lab pays on its
// first request.
func BenchmarkServerNew(b *testing.B) {
	drv := simR1(b)
	b.ReportAllocs()
	for b.Loop() {
		s, err := server.New(drv, server.Options{})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
