package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/transport"
)

// serveFlags are the flags of `netmcp serve`.
type serveFlags struct {
	device      string
	topology    string
	listen      string
	stateDir    string
	compatNames bool
	readOnly    bool
	pageSize    int
	timeout     time.Duration
	verbose     bool
}

func init() {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve --device URL",
		Short: "Serve one device as an MCP server (stdio by default, or Streamable HTTP with --listen)",
		Long: "Serve one device as an MCP-NET server. Without --listen the session runs on stdin/stdout\n" +
			"(logs go to stderr); with --listen 127.0.0.1:PORT it serves stateful Streamable HTTP at /mcp.\n" +
			"Devices: sim://r1 (simulated lab; --topology FILE for another topology).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd.Context(), f, cmd) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.device, "device", "", "device URL, e.g. sim://r1 (required)")
	fl.StringVar(&f.topology, "topology", "", "topology YAML for sim:// devices (default: the built-in lab)")
	fl.StringVar(&f.listen, "listen", "", "serve Streamable HTTP on this address (e.g. 127.0.0.1:8080) instead of stdio")
	fl.StringVar(&f.stateDir, "state-dir", "", "directory for state that must survive a crash (commit history, pending confirmed commits)")
	fl.BoolVar(&f.compatNames, "compat-names", false, "serve tools as network_cli_exec etc. (for hosts that reject dots in tool names)")
	fl.BoolVar(&f.readOnly, "read-only", false, "refuse every state-changing call with -32083")
	fl.IntVar(&f.pageSize, "page-size", server.DefaultPageSize, "entries per page of paginated resources")
	fl.DurationVar(&f.timeout, "session-timeout", transport.DefaultSessionTimeout, "close HTTP sessions idle for this long")
	fl.BoolVar(&f.verbose, "verbose", false, "log server activity to stderr")
	_ = cmd.MarkFlagRequired("device")
	rootCmd.AddCommand(cmd)
}

func runServe(ctx context.Context, f serveFlags, cmd *cobra.Command) error {
	level := slog.LevelWarn
	if f.verbose {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	params := map[string]string{}
	if f.topology != "" {
		params["topology"] = f.topology
	}
	drv, err := device.Open(ctx, f.device, device.Options{StateDir: f.stateDir, Params: params})
	if err != nil {
		return withExit(2, err)
	}
	defer drv.Close()
	srv, err := server.New(drv, server.Options{Version: version, CompatNames: f.compatNames, ReadOnly: f.readOnly,
		PageSize: f.pageSize, Logger: logger})
	if err != nil {
		return err
	}
	defer srv.Close()
	if f.listen == "" {
		return transport.ServeStdio(ctx, srv.MCP())
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return withExit(2, err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "netmcp: serving %s (%s) at http://%s%s\n", f.device, drv.Info().CLIDialect, ln.Addr(), transport.Path)
	h := transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() },
		transport.HTTPOptions{SessionTimeout: f.timeout, Logger: logger})
	return serveHTTP(ctx, ln, h)
}

// serveHTTP serves h on ln until ctx is done, then shuts down gracefully.
func serveHTTP(ctx context.Context, ln net.Listener, h http.Handler) error {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := hs.Shutdown(sctx)
		if errors.Is(err, context.DeadlineExceeded) {
			return hs.Close()
		}
		return err
	}
}
