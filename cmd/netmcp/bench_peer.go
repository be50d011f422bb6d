package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
)

// benchPeerInput is the input schema of the bench peer's tool: the same
// arguments as netmcp's network.yang.get.
const benchPeerInput = `{"type":"object","properties":{"path":{"type":"string"},"datastore":{"enum":["running","candidate","operational"]}},"required":["path"]}`

// newBenchPeerCmd builds the hidden "netmcp bench-peer": the baseline of
// `netmcp bench`, a bare go-sdk server with one tool, network.yang.get,
// answering from the same driver with the same JSON as netmcp's, and none
// of netmcp's layers (authorization, validation, masking, audit, limits,
// approval).
func newBenchPeerCmd() *cobra.Command {
	var deviceURL, listen string
	cmd := &cobra.Command{
		Use:    "bench-peer --device URL [--listen ADDR]",
		Short:  "Serve network.yang.get from a bare go-sdk server (the baseline of netmcp bench)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runBenchPeer(cmd.Context(), cmd, deviceURL, listen)
		},
	}
	cmd.Flags().StringVar(&deviceURL, "device", "sim://r1", "device URL")
	cmd.Flags().StringVar(&listen, "listen", "", "serve Streamable HTTP on this address instead of stdio")
	return cmd
}

func runBenchPeer(ctx context.Context, cmd *cobra.Command, deviceURL, listen string) error {
	drv, err := device.Open(ctx, deviceURL, device.Options{}) // state in memory, as --no-state
	if err != nil {
		return withExit(2, err)
	}
	defer drv.Close()
	srv := mcp.NewServer(&mcp.Implementation{Name: "netmcp-bench-peer", Version: version}, nil)
	srv.AddTool(&mcp.Tool{Name: netproto.ToolYangGet, InputSchema: json.RawMessage(benchPeerInput)},
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
	if listen == "" {
		err := srv.Run(ctx, &mcp.StdioTransport{})
		if ctx.Err() != nil || errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return withExit(2, err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "netmcp bench-peer: serving %s at http://%s/mcp\n", deviceURL, ln.Addr())
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	return serveHTTP(ctx, ln, mux) // the HTTP server netmcp serve uses, so only the MCP layers differ
}
