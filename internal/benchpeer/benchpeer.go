// Package benchpeer is the baseline netmcp's performance is measured
// against: a bare go-sdk server with one tool, network.yang.get, answering
// from a device driver with the same JSON as netmcp's, and none of
// netmcp's layers (authorization, validation, masking, audit, limits,
// approval). The test program internal/cmd/bench-peer serves it as a
// process, for `netmcp bench`; the server package's in-process benchmark
// connects to it directly.
package benchpeer

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
)

// inputSchema is the tool's input schema: the same arguments as netmcp's
// network.yang.get.
const inputSchema = `{"type":"object","properties":{"path":{"type":"string"},"datastore":{"enum":["running","candidate","operational"]}},"required":["path"]}`

// New returns the bare server of drv, named name and version.
func New(drv device.Driver, name, version string) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: name, Version: version}, nil)
	srv.AddTool(&mcp.Tool{Name: netproto.ToolYangGet, InputSchema: json.RawMessage(inputSchema)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			in := struct {
				Path      string `json:"path"`
				Datastore string `json:"datastore"`
			}{Datastore: string(device.Operational)}
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			data, err := drv.Get(ctx, device.Datastore(in.Datastore), in.Path)
			if err != nil {
				res := &mcp.CallToolResult{}
				res.SetError(err)
				return res, nil
			}
			// Encoded as netmcp encodes a tool result: no HTML escaping,
			// the text fallback is the structured content's JSON.
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(map[string]any{"data": data}); err != nil {
				return nil, err
			}
			out := bytes.TrimRight(b.Bytes(), "\n")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out)}},
				StructuredContent: json.RawMessage(out)}, nil
		})
	return srv
}
