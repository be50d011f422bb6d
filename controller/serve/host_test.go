package serve_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/controller/serve"
)

// inMemoryHost runs srv until ctx ends and connects an MCP host named name
// to it in memory, with the client options opts and session options so
// (either may be nil); the session closes with the test.
func inMemoryHost(t testing.TB, ctx context.Context, srv *serve.Server, name string, opts *mcp.ClientOptions, so *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	go srv.MCP().Run(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name}, opts).Connect(ctx, ct, so)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
