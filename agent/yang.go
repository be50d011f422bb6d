package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/agent/discover"
	"github.com/netmcp/netmcp/netproto"
)

// YangGetter reads YANG of the operational datastore through the device
// session's network.yang.get, for discover.LLDP.
func YangGetter(cs *mcp.ClientSession) discover.YangGetter {
	return func(ctx context.Context, path string) (json.RawMessage, error) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: netproto.ToolYangGet, Arguments: map[string]any{"path": path}})
		if err != nil {
			return nil, err
		}
		if res.IsError {
			var sb strings.Builder
			for _, c := range res.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					sb.WriteString(t.Text)
				}
			}
			return nil, errors.New(sb.String())
		}
		return json.Marshal(res.StructuredContent)
	}
}
