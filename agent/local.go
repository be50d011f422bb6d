package agent

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// LocalSession runs the device's MCP server srv in process and returns a
// client session to it, for Config.Local. The server stops when ctx ends.
func LocalSession(ctx context.Context, srv *mcp.Server) (*mcp.ClientSession, error) {
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		return nil, fmt.Errorf("agent: local device server: %w", err)
	}
	go func() { <-ctx.Done(); ss.Close() }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "netmcp-agent-local", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return nil, fmt.Errorf("agent: local device session: %w", err)
	}
	return cs, nil
}
