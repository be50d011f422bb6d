package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/agent"
	"github.com/netmcp/netmcp/agent/discover"
	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/d2d/sign"
	"github.com/netmcp/netmcp/lab/serve"
	"github.com/netmcp/netmcp/pki"
	"github.com/netmcp/netmcp/server"
)

// newLabAgentsCmd builds "netmcp lab agents": an agent on every router of
// the simulated lab, in one process so they share one network model.
func newLabAgentsCmd() *cobra.Command {
	var dir, topo string
	var base int
	var mf mitigateFlags
	cmd := &cobra.Command{
		Use:   "agents [--dir DIR] [--base-port 9514]",
		Short: "Run a collaboration agent on every router of the simulated lab (one process, one network model)",
		Long: "Issue a lab CA, device certificates and an operator certificate (alice) into --dir, and run an agent\n" +
			"per router of the simulated lab on consecutive loopback ports from --base-port. Neighbours come\n" +
			"from the simulated LLDP: each router's LLDP agent advertises its agent's TLV (a router with LLDP\n" +
			"disabled is heard by no one). Then, for example:\n" +
			"  netmcp agent ask --device r1 --agent 127.0.0.1:9514 --cert DIR/alice.pem --key DIR/alice.key --ca DIR/ca.pem \\\n" +
			"    \"verify packet loss on the path from r1 to r3 via r2\"",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			consent, err := mf.consenter(cmd.InOrStdin(), cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			return runAgentLab(cmd.Context(), dir, topo, base, consent, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	mf.bind(cmd.Flags())
	cmd.Flags().StringVar(&dir, "dir", "netmcp-agent-lab", "directory for the CA, certificates and agents' state")
	cmd.Flags().StringVar(&topo, "topology", "", "topology YAML (default: the built-in lab)")
	cmd.Flags().IntVar(&base, "base-port", agent.DefaultPort, "port of the first router's agent (0: any free ports)")
	return cmd
}

func runAgentLab(ctx context.Context, dir, topoFile string, base int, consent *mitigationConsent, out, errw io.Writer) error {
	t, err := serve.LoadTopology(topoFile)
	if err != nil {
		return withExit(2, err)
	}
	routers, closeLab, err := serve.OpenRouters(t)
	if err != nil {
		return err
	}
	defer closeLab()
	return serveAgentLab(ctx, routers, dir, base, consent, out, errw)
}

// serveAgentLab runs an agent on every router of a simulated network, its
// CA and certificates in dir, until ctx ends.
func serveAgentLab(ctx context.Context, routers []serve.Router, dir string, base int, consent *mitigationConsent, out, errw io.Writer) error {
	ca, err := pki.NewCA("netmcp agent lab CA")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return withExit(2, err)
	}
	if err := pki.WriteFile(filepath.Join(dir, pki.CACertFile), ca.CertPEM, 0o644); err != nil {
		return err
	}
	oc, ok, err := ca.Issue("alice", pki.KindClient, 0)
	if err != nil {
		return err
	}
	if _, _, err := pki.WriteKeyPair(dir, "alice", oc, ok); err != nil {
		return err
	}
	logger := agentLogger(false, errw)
	agents := map[string]*agent.Agent{}
	lns := map[string]net.Listener{}
	for i, r := range routers {
		name, drv := r.Name, r.Driver
		srv, err := server.New(drv, server.Options{Version: version, ReadOnly: true, Logger: logger, User: "d2d-agent", DiagLimiter: agent.DeviceDiagLimiter()})
		if err != nil {
			return err
		}
		updates := agent.NewLocalUpdates()
		local, err := agent.LocalSession(ctx, srv.MCP(), updates)
		if err != nil {
			return err
		}
		certPEM, keyPEM, err := ca.Issue(name, pki.KindServer, 0)
		if err != nil {
			return err
		}
		signer, err := sign.OpenSigner(filepath.Join(dir, name), name)
		if err != nil {
			return err
		}
		alog, err := audit.Open(audit.PathIn(filepath.Join(dir, name)), audit.Options{})
		if err != nil {
			return err
		}
		defer alog.Close()
		addr := "127.0.0.1:0" // --base-port 0: any free ports
		if base > 0 {
			addr = fmt.Sprintf("127.0.0.1:%d", base+i)
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return withExit(2, err)
		}
		// d2d.mitigate writes through the router's approval gate
		// (agent_mitigate.go).
		writer, err := mitigationWriterFor(ctx, drv, name, filepath.Join(dir, name), alog, consent, logger)
		if err != nil {
			return err
		}
		port := ln.Addr().(*net.TCPAddr).Port
		lns[name] = ln
		disc := discover.LLDP{Get: agent.YangGetter(local), Skipped: func(n, why string) { logger.Info("LLDP neighbour skipped", "name", n, "why", why) }}
		a, err := agent.New(ctx, agent.Config{CertPEM: certPEM, KeyPEM: keyPEM, CAPEM: ca.CertPEM, Local: local, LocalUpdates: updates, Writer: writer, Signer: signer, Audit: alog,
			Discoverer: disc, Port: uint16(port), Logger: logger,
			Resolve: func(discover.Neighbor) string { return "127.0.0.1" }})
		if err != nil {
			return err
		}
		// The device's LLDP agent advertises the agent's TLV next to
		// the custom TLVs the topology gives it.
		if err := a.AdvertiseLLDP(ctx, r.LLDP, r.TLVs); err != nil {
			return err
		}
		agents[name] = a
		fmt.Fprintf(out, "%s: agent on https://%s/mcp\n", name, ln.Addr())
	}
	// Every TLV is set: each agent's first discovery, through the
	// simulated LLDP.
	for _, r := range routers {
		name := r.Name
		ns, err := agents[name].Discover(ctx)
		if err != nil {
			return fmt.Errorf("%s: discovery: %w", name, err)
		}
		var heard []string
		for _, n := range ns {
			heard = append(heard, n.Name+" on "+n.LocalInterface)
		}
		if len(heard) == 0 {
			heard = []string{"none"}
		}
		fmt.Fprintf(out, "%s: LLDP neighbours: %s\n", name, strings.Join(heard, ", "))
	}
	fmt.Fprintf(out, "operator certificate: %s/alice.pem (key alice.key), CA %s/ca.pem\n", dir, dir)
	errc := make(chan error, len(agents))
	for name, a := range agents {
		go func() { errc <- a.Serve(ctx, lns[name]) }()
	}
	var first error
	for range agents {
		if err := <-errc; err != nil && first == nil {
			first = err
		}
	}
	return first
}
