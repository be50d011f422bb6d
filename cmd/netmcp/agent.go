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
	"github.com/spf13/pflag"

	"github.com/netmcp/netmcp/agent"
	"github.com/netmcp/netmcp/agent/discover"
	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/d2d/report"
	"github.com/netmcp/netmcp/d2d/sign"
	"github.com/netmcp/netmcp/d2d/tlv"
	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/lab/serve"
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

// agentRequired are the flags `netmcp agent run` cannot do without.
var agentRequired = []string{"device", "cert", "key", "ca"}

// newAgentCmd builds "netmcp agent": run, ask, sync, report verify, and
// the hidden old spelling of `netmcp lab agents` (agent lab). As before
// the subcommands, `netmcp agent --device ... --cert ...` runs the agent
// (netmcp agent run); without a flag it prints its help.
func newAgentCmd() *cobra.Command {
	cmd := newAgentRunCmd()
	cmd.Use = "agent"
	cmd.Short = "The device-to-device collaboration agent (troubleshooting draft section 5): run, ask, sync, report"
	cmd.Long = "The collaboration agent of a device: run one (netmcp agent run), inject an intent on one and get\n" +
		"its signed report (ask), push the reports it kept to the controller (sync), check a report's\n" +
		"signatures (report verify). An agent on every router of the simulated lab: netmcp lab agents.\n" +
		"`netmcp agent` with the flags of `agent run` runs the agent, as it did before the subcommands."
	run := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if c.Flags().NFlag() == 0 {
			return c.Help()
		}
		for _, n := range agentRequired {
			_ = c.MarkFlagRequired(n)
		}
		if err := c.ValidateRequiredFlags(); err != nil {
			return err
		}
		return run(c, args)
	}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		f.Hidden = true // those of agent run: its help shows them
		delete(f.Annotations, cobra.BashCompOneRequiredFlag)
	})
	cmd.AddCommand(newAgentRunCmd(), newAgentAskCmd(), newAgentSyncCmd(), newReportCmd(),
		alias("lab", "lab agents", newLabAgentsCmd()))
	return cmd
}

// newAgentRunCmd builds "netmcp agent run".
func newAgentRunCmd() *cobra.Command {
	var f agentFlags
	cmd := &cobra.Command{
		Use:   "run --device URL --cert F --key F --ca F",
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
	for _, n := range agentRequired {
		_ = cmd.MarkFlagRequired(n)
	}
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
	updates := agent.NewLocalUpdates()
	local, err := agent.LocalSession(ctx, srv.MCP(), updates)
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
	a, err := agent.New(ctx, agent.Config{CertPEM: certPEM, KeyPEM: keyPEM, CAPEM: caPEM, Local: local, LocalUpdates: updates, Writer: writer, Signer: signer, Audit: alog,
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
		keep, err := serve.DeviceTLVs(f.device, f.topology)
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

// toolText joins the text content of a tool result.
func toolText(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.TrimSpace(strings.Join(parts, "\n"))
}
