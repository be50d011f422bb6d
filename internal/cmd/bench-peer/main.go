// Command bench-peer is the baseline of `netmcp bench` and the tests: a
// bare go-sdk server with one tool, network.yang.get, answering from the
// same driver with the same JSON as netmcp's, and none of netmcp's layers
// (authorization, validation, masking, audit, limits, approval). It is a
// test program, not part of the netmcp binary:
//
//	go build -o bench-peer ./internal/cmd/bench-peer
//	bench-peer [--device sim://r1] [--listen 127.0.0.1:0 [--stateless]]
//
// Over stdio by default; with --listen it serves Streamable HTTP at /mcp
// and prints the URL on stderr. With --stateless the SDK's handler runs in
// its stateless mode, the only one in which it serves protocol 2026-07-28
// (no session, each request on its own).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/internal/benchpeer"
	"github.com/netmcp/netmcp/transport"

	// The drivers netmcp links, sim:// among them (lab/serve), so that
	// the peer's start (package initialisation, code) is closer to
	// netmcp's. It still lacks netmcp's commands, controller and agent:
	// its RSS is lower than when it was a command of the netmcp binary.
	_ "github.com/netmcp/netmcp/device/linux"
	_ "github.com/netmcp/netmcp/device/netconf"
	_ "github.com/netmcp/netmcp/device/snmp"
	_ "github.com/netmcp/netmcp/device/sshcli"
	_ "github.com/netmcp/netmcp/lab/serve"
)

func main() {
	deviceURL := flag.String("device", "sim://r1", "device URL")
	listen := flag.String("listen", "", "serve Streamable HTTP on this address instead of stdio")
	stateless := flag.Bool("stateless", false, "with --listen: the SDK handler's stateless mode (protocol 2026-07-28, no sessions)")
	flag.Parse()
	if *stateless && *listen == "" {
		fmt.Fprintln(os.Stderr, "bench-peer: --stateless needs --listen")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *deviceURL, *listen, *stateless); err != nil {
		fmt.Fprintln(os.Stderr, "bench-peer:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, deviceURL, listen string, stateless bool) error {
	drv, err := device.Open(ctx, deviceURL, device.Options{}) // state in memory, as netmcp serve --no-state
	if err != nil {
		return err
	}
	defer drv.Close()
	srv := benchpeer.New(drv, "netmcp-bench-peer", "1")
	if listen == "" {
		err := srv.Run(ctx, &mcp.StdioTransport{})
		if ctx.Err() != nil || errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "bench-peer: serving %s at http://%s/mcp\n", deviceURL, ln.Addr())
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: stateless}))
	// The HTTP server netmcp serve uses, so that only the MCP layers differ.
	return transport.Serve(ctx, ln, transport.NewHTTPServer(mux, transport.ServerTimeouts{}))
}
