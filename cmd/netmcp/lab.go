package main

import (
	"context"
	"errors"
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

// newLabCmd builds "netmcp lab", which groups the simulated-lab commands
// (up, demo).
func newLabCmd() *cobra.Command {
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
			topo, err := loadTopology(topoFile)
			if err != nil {
				return withExit(2, err)
			}
			return runLab(cmd.Context(), topo, sim.LabOptions{StateDir: stateDir}, basePort, cmd)
		},
	}
	up.Flags().StringVar(&topoFile, "topology", "", "topology YAML (default: the built-in lab)")
	up.Flags().IntVar(&basePort, "base-port", 0, "first TCP port; device i listens on base-port+i (0: any free port)")
	up.Flags().StringVar(&stateDir, "state-dir", "", "directory for each device's persistent state")
	labCmd.AddCommand(up, newLabDemoCmd())
	return labCmd
}

// loadTopology reads a topology file, or returns the built-in lab for "".
func loadTopology(file string) (topology.Topology, error) {
	if file == "" {
		return sim.DefaultTopology(), nil
	}
	return sim.LoadTopology(file)
}

// runLab serves every router of topo until ctx is done.
func runLab(ctx context.Context, topo topology.Topology, opts sim.LabOptions, basePort int, cmd *cobra.Command) error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	rl, err := startLab(ctx, topo, opts, basePort, logger)
	if err != nil {
		return withExit(2, err)
	}
	for _, name := range rl.lab.Routers() {
		drv, _ := rl.lab.Device(name)
		fmt.Fprintf(cmd.OutOrStdout(), "%s\t%s\t%s\n", name, drv.Info().CLIDialect, rl.urls[name])
	}
	select {
	case <-ctx.Done():
	case <-rl.failed:
	}
	return rl.stop()
}

// runningLab is a simulated lab whose routers are served over HTTP.
type runningLab struct {
	lab    *sim.Lab
	urls   map[string]string // device -> MCP endpoint
	srvs   []*server.Server
	cancel context.CancelFunc
	failed chan struct{} // closed when a device's HTTP server fails
	once   sync.Once
	wg     sync.WaitGroup
	mu     sync.Mutex
	errs   []error
}

// startLab builds the lab of topo and serves each router as its own MCP
// server over Streamable HTTP on 127.0.0.1 (port basePort+i, or a free one
// when basePort is 0), and returns without blocking. Stop it with stop.
func startLab(ctx context.Context, topo topology.Topology, opts sim.LabOptions, basePort int, logger *slog.Logger) (*runningLab, error) {
	lab, err := sim.NewLab(topo, opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	rl := &runningLab{lab: lab, urls: map[string]string{}, cancel: cancel, failed: make(chan struct{})}
	for i, name := range lab.Routers() {
		if err := rl.serve(ctx, name, i, basePort, logger); err != nil {
			_ = rl.stop()
			return nil, err
		}
	}
	return rl, nil
}

// serve starts the MCP server of one device.
func (rl *runningLab) serve(ctx context.Context, name string, i, basePort int, logger *slog.Logger) error {
	drv, err := rl.lab.Device(name)
	if err != nil {
		return err
	}
	srv, err := server.New(drv, server.Options{Version: version, Logger: logger.With("device", name)})
	if err != nil {
		return err
	}
	rl.srvs = append(rl.srvs, srv)
	port := 0
	if basePort > 0 {
		port = basePort + i
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("device %s: %w", name, err)
	}
	rl.urls[name] = "http://" + ln.Addr().String() + transport.Path
	h := transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, transport.HTTPOptions{Logger: logger})
	rl.wg.Add(1)
	go func() {
		defer rl.wg.Done()
		if err := serveHTTP(ctx, ln, h); err != nil && !errors.Is(err, http.ErrServerClosed) {
			rl.mu.Lock()
			rl.errs = append(rl.errs, fmt.Errorf("device %s: %w", name, err))
			rl.mu.Unlock()
			rl.once.Do(func() { close(rl.failed) })
		}
	}()
	return nil
}

// stop shuts the HTTP servers down, waits for them and closes the lab.
func (rl *runningLab) stop() error {
	rl.cancel()
	rl.wg.Wait()
	for _, s := range rl.srvs {
		_ = s.Close()
	}
	rl.mu.Lock()
	defer rl.mu.Unlock()
	return errors.Join(append(rl.errs, rl.lab.Close())...)
}
