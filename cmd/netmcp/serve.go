package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/approval"
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
	noState     bool
	policy      string
	compatNames bool
	readOnly    bool
	pageSize    int
	timeout     time.Duration
	eventStore  int
	verbose     bool
	sec         securityFlags // TLS, identities, limits, audit (serve_security.go)
}

// newServeCmd builds "netmcp serve".
func newServeCmd() *cobra.Command {
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
	fl.StringVar(&f.stateDir, "state-dir", "", "directory for state that must survive a crash: commit history, pending confirmed commits\n(default $XDG_STATE_HOME/netmcp/<device> or ~/.local/state/netmcp/<device>)")
	fl.BoolVar(&f.noState, "no-state", false, "keep configuration state in memory only (lost when the process ends)")
	fl.StringVar(&f.policy, "policy", "", "policy YAML: approval modes per tool (always, writes, never) and trustedKeys of approvers (see docs/configuration.md)")
	fl.BoolVar(&f.compatNames, "compat-names", false, "serve tools as network_cli_exec etc. (for hosts that reject dots in tool names)")
	fl.BoolVar(&f.readOnly, "read-only", false, "refuse every state-changing call with -32083")
	fl.IntVar(&f.pageSize, "page-size", server.DefaultPageSize, "entries per page of paginated resources")
	fl.DurationVar(&f.timeout, "session-timeout", transport.DefaultSessionTimeout, "close HTTP sessions idle for this long")
	fl.IntVar(&f.eventStore, "event-store-bytes", transport.DefaultEventStoreBytes, "bytes of SSE events kept so that an HTTP client resumes a dropped stream with Last-Event-ID\n(all sessions; the oldest go first; -1: keep none, streams cannot be resumed)")
	fl.BoolVar(&f.verbose, "verbose", false, "log server activity to stderr")
	bindSecurityFlags(fl, &f.sec)
	_ = cmd.MarkFlagRequired("device")
	return cmd
}

func runServe(ctx context.Context, f serveFlags, cmd *cobra.Command) error {
	f.sec.rateExplicit = cmd.Flags().Changed("rate") || cmd.Flags().Changed("burst")
	level := slog.LevelWarn
	if f.verbose {
		level = slog.LevelInfo
	}
	logger := f.sec.wrapLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
	params := map[string]string{}
	if f.topology != "" {
		params["topology"] = f.topology
	}
	stateDir, err := resolveStateDir(f)
	if err != nil {
		return withExit(2, err)
	}
	pol, err := loadPolicy(f.policy)
	if err != nil {
		return withExit(2, err)
	}
	aopts := pol.Approval()
	aopts.StateDir = stateDir // used consent nonces and pending tokens outlive the process
	ag, err := approval.Open(aopts)
	if err != nil {
		return withExit(2, err)
	}
	gate := server.NewMCPApprover(ag, logger)
	drv, err := device.Open(ctx, f.device, device.Options{StateDir: stateDir, Params: params})
	if err != nil {
		return withExit(2, err)
	}
	defer drv.Close()
	logger.Info("serving", "device", f.device, "stateDir", stateDir)
	srv, err := server.New(drv, server.Options{Version: version, CompatNames: f.compatNames, ReadOnly: f.readOnly,
		PageSize: f.pageSize, Logger: logger, Approver: gate, User: osUser(), StateDir: stateDir,
		MaxSessions: f.sec.maxSessions, MaxSessionsPerIdentity: f.sec.maxSessionsPerIdentity})
	if err != nil {
		return err
	}
	defer srv.Close()
	return serveSecure(ctx, &f.sec, srv, serveArgs{listen: f.listen, policy: pol, stateDir: stateDir,
		httpOpts: transport.HTTPOptions{SessionTimeout: f.timeout, EventStoreBytes: f.eventStore}, logger: logger, stderr: cmd.ErrOrStderr(),
		deviceURL: f.device, dialect: drv.Info().CLIDialect})
}

// serveHTTP serves h on ln until ctx is done, then shuts down gracefully.
// The server bounds headers and idle keep-alives (transport.NewHTTPServer);
// ln should be guarded (transport.GuardListener).
func serveHTTP(ctx context.Context, ln net.Listener, h http.Handler) error {
	return transport.Serve(ctx, ln, transport.NewHTTPServer(h, transport.ServerTimeouts{}))
}

// resolveStateDir returns the state directory of `netmcp serve`: the
// --state-dir flag, "" with --no-state, or the per-user default
// $XDG_STATE_HOME/netmcp/<device> (~/.local/state/netmcp/<device>), one per
// device URL so that two servers never share (and lock) one directory.
func resolveStateDir(f serveFlags) (string, error) {
	switch {
	case f.noState && f.stateDir != "":
		return "", fmt.Errorf("--no-state and --state-dir exclude each other")
	case f.noState:
		return "", nil
	case f.stateDir != "":
		return f.stateDir, nil
	}
	return defaultStateDir(f.device, f.topology)
}

// defaultStateDir is the per-user state directory of a device served by
// `netmcp serve --device URL [--topology FILE]`, where its commit history
// and audit log live: $XDG_STATE_HOME/netmcp/<device> or
// ~/.local/state/netmcp/<device>.
func defaultStateDir(device, topology string) (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no --state-dir and no home directory for the default one: %w", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "netmcp", deviceDirName(device, topology)), nil
}

// deviceDirName turns a device URL into one safe path element:
// "sim://r1" -> "sim_r1". A --topology file is part of the name, since the
// same device name in another topology is another device.
func deviceDirName(device, topology string) string {
	name := device
	if topology != "" {
		name += "@" + filepath.Base(topology)
	}
	name = strings.ReplaceAll(name, "://", "_")
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_', r == '@':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := strings.Trim(b.String(), "._")
	if out == "" {
		out = "device"
	}
	return out
}

// osUser names the user running the server, recorded with its commits.
func osUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return os.Getenv("USER")
}
