package agent

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// LocalSession runs the device's MCP server srv in process and returns a
// client session to it, for Config.Local. The server stops when ctx ends.
// The device's resource updates go to updates (nil: nowhere), for
// Config.LocalUpdates.
func LocalSession(ctx context.Context, srv *mcp.Server, updates *LocalUpdates) (*mcp.ClientSession, error) {
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		return nil, fmt.Errorf("agent: local device server: %w", err)
	}
	go func() { <-ctx.Done(); ss.Close() }()
	var opts *mcp.ClientOptions
	if updates != nil {
		opts = &mcp.ClientOptions{ResourceUpdatedHandler: updates.handle}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "netmcp-agent-local", Version: "1"}, opts)
	if updates != nil {
		c.AddReceivingMiddleware(updates.middleware)
	}
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		return nil, fmt.Errorf("agent: local device session: %w", err)
	}
	return cs, nil
}
