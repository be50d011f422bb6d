package console

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/yang"
)

// resultData is the "data" member of a network.yang.get result, decoded.
func resultData(res *mcp.CallToolResult) any {
	if res == nil {
		return nil
	}
	var out any
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err == nil {
			_ = json.Unmarshal(b, &out)
		}
	}
	if out == nil {
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				_ = json.Unmarshal([]byte(t.Text), &out)
				break
			}
		}
	}
	if d := yang.Member(out, "data"); d != nil {
		return d
	}
	return out
}
