package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/conformance"
	"github.com/netmcp/netmcp/transport"
)

// newConformanceCmd builds "netmcp conformance-server".
func newConformanceCmd() *cobra.Command {
	var listen string
	var verbose bool
	cmd := &cobra.Command{
		Use:    "conformance-server --listen 127.0.0.1:PORT",
		Short:  "Serve the MCP conformance suite's fixtures through netmcp's own HTTP stack (for tests)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			level := slog.LevelWarn
			if verbose {
				level = slog.LevelInfo
			}
			logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
			ctx := cmd.Context()
			srv := conformance.NewServer(ctx, conformance.Options{Version: version, Logger: logger})
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return withExit(2, err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "netmcp: conformance fixtures at http://%s%s\n", ln.Addr(), transport.Path)
			h := transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv },
				transport.HTTPOptions{Logger: logger})
			return serveHTTP(ctx, ln, h)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:0", "address to serve Streamable HTTP on")
	cmd.Flags().BoolVar(&verbose, "verbose", false, "log server activity to stderr")
	return cmd
}
