// Command conformance-server serves the MCP conformance suite's fixtures
// (package conformance) through netmcp's own Streamable HTTP stack, for
// the conformance tests. It is a test program, not part of the netmcp
// binary:
//
//	go build -o conformance-server ./internal/cmd/conformance-server
//	conformance-server [--listen 127.0.0.1:0] [--verbose]
//
// It prints the URL it serves on stderr and runs until interrupted.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/conformance"
	"github.com/netmcp/netmcp/transport"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to serve Streamable HTTP on")
	verbose := flag.Bool("verbose", false, "log server activity to stderr")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *listen, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "conformance-server:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, listen string, verbose bool) error {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	srv := conformance.NewServer(ctx, conformance.Options{Logger: logger})
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "conformance-server: fixtures at http://%s%s\n", ln.Addr(), transport.Path)
	h := transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv }, transport.HTTPOptions{Logger: logger})
	return transport.Serve(ctx, ln, transport.NewHTTPServer(h, transport.ServerTimeouts{}))
}
