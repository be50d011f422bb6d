package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/agent"
	"github.com/netmcp/netmcp/agent/discover"
	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/d2d/report"
	"github.com/netmcp/netmcp/d2d/sign"
	"github.com/netmcp/netmcp/d2d/tlv"
	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/pki"
	"github.com/netmcp/netmcp/server"
)

// agentFlags are the flags of `netmcp agent`.
type agentFlags struct {
	device, topology string
	listen           string
	cert, key, ca    string
	stateDir         string
	offer            []string
	neighbors        string
	peerHosts        []string
	callTimeout      time.Duration
	controller       string
	controllerMCP    string
	localCollab      bool
	lldpcli          string
	lldpNetns        string
	verbose          bool
	mitigate         mitigateFlags
}

// newAgentCmd builds "netmcp agent" and its ask and lab subcommands.
func newAgentCmd() *cobra.Command {
	var f agentFlags
	cmd := &cobra.Command{
		Use:   "agent --device URL --cert F --key F --ca F",
		Short: "Run the device-to-device collaboration agent of a device (troubleshooting draft section 5)",
		Long: "Run the collaboration agent of one device: an MCP server to its neighbours and operators on\n" +
			"TLS 1.3 with mutual TLS (port 9514 by default) and an MCP client to its neighbours. Neighbours are\n" +
			"found from the device's openconfig-lldp state (the D2D TLV, OUI 00:00:5e subtype 2), or from\n" +
			"--neighbors FILE. The TLV to advertise is printed at start (see docs/agent.md).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runAgent(cmd.Context(), f, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.device, "device", "", "device URL, e.g. sim://r1 or linux://ns1 (required)")
	fl.StringVar(&f.topology, "topology", "", "topology YAML for sim:// devices")
	fl.StringVar(&f.listen, "listen", fmt.Sprintf(":%d", agent.DefaultPort), "address to serve the agent on")
	fl.StringVar(&f.cert, "cert", "", "device certificate (PEM; its common name is the device's identity)")
	fl.StringVar(&f.key, "key", "", "device key (PEM)")
	fl.StringVar(&f.ca, "ca", "", "CA certificate every peer must chain to (PEM)")
	fl.StringVar(&f.stateDir, "state-dir", "", "directory of the signing key, nonce and D2D audit log (default ~/.netmcp/agent/<identity>)")
	fl.StringSliceVar(&f.offer, "offer", nil, "capabilities neighbours may call (default: "+strings.Join(agent.DefaultOffer, ",")+")")
	fl.StringVar(&f.neighbors, "neighbors", "", "JSON file of static neighbours [{name,localInterface,portId,address,tlv}] instead of LLDP")
	fl.StringVar(&f.lldpcli, "lldpcli", "", "discover through a real lldpd: its control socket (\"default\" for lldpd's own), read with lldpcli -f json0")
	fl.StringVar(&f.lldpNetns, "lldp-netns", "", "network namespace of that lldpd (runs lldpcli through ip netns exec)")
	fl.StringSliceVar(&f.peerHosts, "peer-host", nil, "NAME=HOST: dial neighbour NAME at HOST instead of its LLDP management address")
	fl.DurationVar(&f.callTimeout, "call-timeout", agent.DefaultCallTimeout, "bound on each call to a neighbour; a neighbour exceeding it is marked untrusted")
	fl.StringVar(&f.controller, "controller", "", "HOST:PORT of the controller: while it is reachable, D2D calls are refused unless --local-collaboration")
	fl.StringVar(&f.controllerMCP, "controller-mcp", "", "the controller's MCP URL (netmcp controller serve --listen, e.g. http://ctl:8080/mcp): a run with an untrusted path device falls back to its ask tool, and every report is pushed to its submit_report (queued in the state dir while it is unreachable)")
	fl.BoolVar(&f.localCollab, "local-collaboration", false, "allow D2D calls even while the controller is reachable")
	fl.BoolVar(&f.verbose, "verbose", false, "log to stderr")
	f.mitigate.bind(fl)
	for _, n := range []string{"device", "cert", "key", "ca"} {
		_ = cmd.MarkFlagRequired(n)
	}
	cmd.AddCommand(newAgentAskCmd(), newAgentLabCmd(), newAgentSyncCmd())
	return cmd
}

func agentLogger(verbose bool, w io.Writer) *slog.Logger {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

func runAgent(ctx context.Context, f agentFlags, in io.Reader, out, errw io.Writer) error {
	consent, err := f.mitigate.consenter(in, errw)
	if err != nil {
		return err
	}
	certPEM, err1 := os.ReadFile(f.cert)
	keyPEM, err2 := os.ReadFile(f.key)
	caPEM, err3 := os.ReadFile(f.ca)
	if err := errors.Join(err1, err2, err3); err != nil {
		return withExit(2, err)
	}
	cert, err := tlsLeaf(certPEM)
	if err != nil {
		return withExit(2, err)
	}
	id := cert.Subject.CommonName
	stateDir := f.stateDir
	if stateDir == "" {
		home, _ := os.UserHomeDir()
		stateDir = filepath.Join(home, ".netmcp", "agent", id)
	}
	signer, err := sign.OpenSigner(stateDir, id)
	if err != nil {
		return withExit(2, err)
	}
	alog, err := audit.Open(audit.PathIn(stateDir), audit.Options{})
	if err != nil {
		return withExit(2, err)
	}
	defer alog.Close()
	params := map[string]string{}
	if f.topology != "" {
		params["topology"] = f.topology
	}
	drv, err := device.Open(ctx, f.device, device.Options{StateDir: filepath.Join(stateDir, "device"), Params: params})
	if err != nil {
		return withExit(2, err)
	}
	defer drv.Close()
	logger := agentLogger(f.verbose, errw)
	// The agent's own device server is read-only: nothing a neighbour or
	// the workflow does may change the device.
	srv, err := server.New(drv, server.Options{Version: version, ReadOnly: true, Logger: logger, User: "d2d-agent", DiagLimiter: agent.DeviceDiagLimiter()})
	if err != nil {
		return err
	}
	defer srv.Close()
	local, err := agent.LocalSession(ctx, srv.MCP())
	if err != nil {
		return err
	}
	// d2d.mitigate writes through the device's approval gate
	// (agent_mitigate.go).
	writer, err := mitigationWriterFor(ctx, drv, id, stateDir, alog, consent, logger)
	if err != nil {
		return err
	}
	var disc discover.Discoverer = discover.LLDP{Get: agent.YangGetter(local), Skipped: func(n, why string) { logger.Info("LLDP neighbour skipped", "name", n, "why", why) }}
	switch {
	case f.neighbors != "":
		if disc, err = loadNeighbors(f.neighbors); err != nil {
			return withExit(2, err)
		}
	case f.lldpcli != "":
		sock := f.lldpcli
		if sock == "default" {
			sock = ""
		}
		disc = discover.LLDPCli{Run: discover.LLDPCliCommand(sock, f.lldpNetns),
			Skipped: func(n, why string) { logger.Info("LLDP neighbour skipped", "name", n, "why", why) }}
	}
	var ln net.Listener
	var dial func(context.Context, string, string) (net.Conn, error)
	if nd, ok := drv.(interface{ Netns() string }); ok && nd.Netns() != "" {
		// linux://NETNS: the agent listens and calls its neighbours from
		// inside the namespace, on its addresses.
		ln, err = agent.ListenInNetns(nd.Netns(), "tcp", f.listen)
		dial = agent.DialInNetns(nd.Netns())
	} else {
		ln, err = net.Listen("tcp", f.listen)
	}
	if err != nil {
		return withExit(2, err)
	}
	hosts := map[string]string{}
	for _, ph := range f.peerHosts {
		n, h, ok := strings.Cut(ph, "=")
		if !ok {
			return withExit(2, fmt.Errorf("--peer-host %q: want NAME=HOST", ph))
		}
		hosts[n] = h
	}
	var fallback *agent.ControllerFallback
	if f.controllerMCP != "" {
		fallback = &agent.ControllerFallback{Endpoint: f.controllerMCP}
	}
	a, err := agent.New(ctx, agent.Config{CertPEM: certPEM, KeyPEM: keyPEM, CAPEM: caPEM, Local: local, Writer: writer, Signer: signer, Audit: alog,
		Gate: &agent.ControllerGate{Controller: f.controller, LocalCollaboration: f.localCollab}, Controller: fallback, Push: reportPusher(f.controllerMCP, stateDir),
		Offer: f.offer, Discoverer: disc, Port: uint16(ln.Addr().(*net.TCPAddr).Port), CallTimeout: f.callTimeout, Logger: logger, Dial: dial,
		Resolve: func(n discover.Neighbor) string {
			if h, ok := hosts[n.Name]; ok {
				return h
			}
			return n.Address
		}})
	if err != nil {
		return withExit(2, err)
	}
	defer a.Close()
	go a.SyncReports(ctx) // reports an earlier run could not push (agent_sync.go)
	if la, ok := drv.(device.LLDPAgent); ok && f.neighbors == "" && f.lldpcli == "" {
		// The device's own LLDP agent carries the TLV (the simulator's).
		keep, err := deviceLLDPTLVs(f)
		if err != nil {
			return withExit(2, err)
		}
		if err := a.AdvertiseLLDP(ctx, la, keep); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "agent %s on %s\nLLDP TLV (OUI 00:00:5e subtype 2): %s\nlldpd: %s\n", id, ln.Addr(), a.Advert().Hex(), a.Advert().LLDPDConfig())
	return a.Serve(ctx, ln)
}

// loadNeighbors reads a static neighbour file.
func loadNeighbors(path string) (discover.Static, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raw []struct {
		Name           string `json:"name"`
		LocalInterface string `json:"localInterface"`
		PortID         string `json:"portId"`
		Address        string `json:"address"`
		TLV            string `json:"tlv"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out discover.Static
	for _, r := range raw {
		adv, err := decodeTLV(r.TLV)
		if err != nil {
			return nil, fmt.Errorf("%s: neighbour %s: %w", path, r.Name, err)
		}
		out = append(out, discover.Neighbor{Name: r.Name, LocalInterface: r.LocalInterface, PortID: r.PortID, Address: r.Address, Advert: adv})
	}
	return out, nil
}

// operatorFlags reach an agent as an operator.
type operatorFlags struct {
	device, agentAddr, cert, key, ca string
	timeout                          time.Duration
}

func bindOperatorFlags(cmd *cobra.Command, f *operatorFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.device, "device", "", "the device whose agent to ask (its certificate's name)")
	fl.StringVar(&f.agentAddr, "agent", fmt.Sprintf("127.0.0.1:%d", agent.DefaultPort), "HOST:PORT of the device's agent")
	fl.StringVar(&f.cert, "cert", "", "operator client certificate (PEM; netmcp pki issue --kind client)")
	fl.StringVar(&f.key, "key", "", "operator key (PEM)")
	fl.StringVar(&f.ca, "ca", "", "CA certificate (PEM)")
	fl.DurationVar(&f.timeout, "timeout", 5*time.Minute, "give up after this long")
}

// dialAgent opens an operator's mTLS MCP session to an agent.
func dialAgent(ctx context.Context, f operatorFlags) (*mcp.ClientSession, error) {
	certPEM, err1 := os.ReadFile(f.cert)
	keyPEM, err2 := os.ReadFile(f.key)
	caPEM, err3 := os.ReadFile(f.ca)
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, withExit(2, err)
	}
	cfg, err := pki.ClientTLSConfig(caPEM, certPEM, keyPEM, f.device)
	if err != nil {
		return nil, withExit(2, err)
	}
	return mcp.NewClient(&mcp.Implementation{Name: "netmcp-agent-ask", Version: version}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: "https://" + f.agentAddr + "/mcp", HTTPClient: httpsClient(cfg), MaxRetries: -1}, nil)
}

func newAgentAskCmd() *cobra.Command {
	var f operatorFlags
	cmd := &cobra.Command{
		Use:   `ask --device NAME [--agent HOST:PORT] --cert F --key F --ca F "INTENT"`,
		Short: "Inject an intent on a device's agent and print the signed report",
		Example: `  netmcp agent ask --device r1 --agent 127.0.0.1:9514 --cert alice.pem --key alice.key --ca ca.pem \
    "verify packet loss on the path from r1 to r3 via r2"`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), f.timeout)
			defer cancel()
			cs, err := dialAgent(ctx, f)
			if err != nil {
				return err
			}
			defer cs.Close()
			start := time.Now()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: agent.ToolAsk, Arguments: map[string]any{"intent": args[0]}})
			if err != nil {
				return err
			}
			if res.IsError {
				return fmt.Errorf("%s", toolText(res))
			}
			var rep report.Report
			b, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(b, &rep); err != nil {
				return err
			}
			pretty, _ := json.MarshalIndent(rep, "", "  ")
			fmt.Fprintln(cmd.OutOrStdout(), string(pretty))
			hyp := "no fault found"
			if rep.Hypothesis != nil {
				hyp = rep.Hypothesis.Statement
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "report %s (%d signed results, %s): %s\n", rep.URI, len(rep.Evidence), time.Since(start).Round(time.Millisecond), hyp)
			return nil
		},
	}
	bindOperatorFlags(cmd, &f)
	for _, n := range []string{"device", "cert", "key", "ca"} {
		_ = cmd.MarkFlagRequired(n)
	}
	return cmd
}

// newAgentLabCmd builds "netmcp agent lab": an agent on every router of
// the simulated lab, in one process so they share one network model.
func newAgentLabCmd() *cobra.Command {
	var dir, topo string
	var base int
	var mf mitigateFlags
	cmd := &cobra.Command{
		Use:   "lab [--dir DIR] [--base-port 9514]",
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
	t := sim.DefaultTopology()
	if topoFile != "" {
		var err error
		if t, err = sim.LoadTopology(topoFile); err != nil {
			return withExit(2, err)
		}
	}
	lab, err := sim.NewLab(t, sim.LabOptions{})
	if err != nil {
		return err
	}
	defer lab.Close()
	return serveAgentLab(ctx, lab, t, dir, base, consent, out, errw)
}

// serveAgentLab runs an agent on every router of lab (of topology t), its
// CA and certificates in dir, until ctx ends.
func serveAgentLab(ctx context.Context, lab *sim.Lab, t topology.Topology, dir string, base int, consent *mitigationConsent, out, errw io.Writer) error {
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
	for i, name := range lab.Routers() {
		drv, err := lab.Device(name)
		if err != nil {
			return err
		}
		srv, err := server.New(drv, server.Options{Version: version, ReadOnly: true, Logger: logger, User: "d2d-agent", DiagLimiter: agent.DeviceDiagLimiter()})
		if err != nil {
			return err
		}
		local, err := agent.LocalSession(ctx, srv.MCP())
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
		a, err := agent.New(ctx, agent.Config{CertPEM: certPEM, KeyPEM: keyPEM, CAPEM: ca.CertPEM, Local: local, Writer: writer, Signer: signer, Audit: alog,
			Discoverer: disc, Port: uint16(port), Logger: logger,
			Resolve: func(discover.Neighbor) string { return "127.0.0.1" }})
		if err != nil {
			return err
		}
		// The device's LLDP agent advertises the agent's TLV next to
		// the custom TLVs the topology gives it.
		keep, err := simLLDPTLVs(t, name)
		if err != nil {
			return err
		}
		if err := a.AdvertiseLLDP(ctx, drv, keep); err != nil {
			return err
		}
		agents[name] = a
		fmt.Fprintf(out, "%s: agent on https://%s/mcp\n", name, ln.Addr())
	}
	// Every TLV is set: each agent's first discovery, through the
	// simulated LLDP.
	for _, name := range lab.Routers() {
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

func tlsLeaf(certPEM []byte) (*x509.Certificate, error) {
	blk, _ := pem.Decode(certPEM)
	if blk == nil {
		return nil, errors.New("no PEM certificate")
	}
	return x509.ParseCertificate(blk.Bytes)
}

func decodeTLV(s string) (tlv.Advert, error) { return tlv.DecodeHex(s) }

func httpsClient(cfg *tls.Config) *http.Client {
	return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}
}
