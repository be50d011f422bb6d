package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/device/sim"
	"github.com/netmcp/netmcp/device/sim/topology"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/transport"
)

func init() {
	labCmd := &cobra.Command{Use: "lab", Short: "Run a simulated network whose devices are MCP servers"}
	var topoFile, stateDir string
	var basePort int
	up := &cobra.Command{
		Use:   "up",
		Short: "Start every router of the topology as its own MCP server over HTTP on 127.0.0.1",
		Long: "Start every router or switch of the topology as its own MCP-NET server (Streamable HTTP at /mcp\n" +
			"on 127.0.0.1, consecutive ports from --base-port; 0 picks free ports) and print one line per device:\n" +
			"device, CLI dialect and URL. Runs until interrupted.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			topo := sim.DefaultTopology()
			if topoFile != "" {
				var err error
				if topo, err = sim.LoadTopology(topoFile); err != nil {
					return withExit(2, err)
				}
			}
			return runLab(cmd.Context(), topo, sim.LabOptions{StateDir: stateDir}, basePort, cmd)
		},
	}
	up.Flags().StringVar(&topoFile, "topology", "", "topology YAML (default: the built-in lab)")
	up.Flags().IntVar(&basePort, "base-port", 0, "first TCP port; device i listens on base-port+i (0: any free port)")
	up.Flags().StringVar(&stateDir, "state-dir", "", "directory for each device's persistent state")
	labCmd.AddCommand(up)
	rootCmd.AddCommand(labCmd)
}

// runLab serves every router of topo until ctx is done.
func runLab(ctx context.Context, topo topology.Topology, opts sim.LabOptions, basePort int, cmd *cobra.Command) error {
	lab, err := sim.NewLab(topo, opts)
	if err != nil {
		return withExit(2, err)
	}
	defer lab.Close()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errc := make(chan error, len(lab.Routers()))
	for i, name := range lab.Routers() {
		drv, err := lab.Device(name)
		if err != nil {
			return err
		}
		srv, err := server.New(drv, server.Options{Version: version, Logger: logger.With("device", name)})
		if err != nil {
			return err
		}
		defer srv.Close()
		port := 0
		if basePort > 0 {
			port = basePort + i
		}
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			return withExit(2, fmt.Errorf("device %s: %w", name, err))
		}
		fmt.Fprintf(cmd.OutOrStdout(), "%s\t%s\thttp://%s%s\n", name, drv.Info().CLIDialect, ln.Addr(), transport.Path)
		h := transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, transport.HTTPOptions{Logger: logger})
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := serveHTTP(ctx, ln, h); err != nil {
				errc <- fmt.Errorf("device %s: %w", name, err)
				cancel()
			}
		}()
	}
	wg.Wait()
	close(errc)
	return <-errc
}
