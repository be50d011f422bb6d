package server_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/internal/benchpeer"
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
				srv = benchpeer.New(simR1(b), "sdk-peer", "1")
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
