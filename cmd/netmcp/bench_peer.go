package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/internal/benchpeer"
)

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
	srv := benchpeer.New(drv, "netmcp-bench-peer", version)
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
