package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/console"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/controller/cluster"
	"github.com/netmcp/netmcp/controller/serve"
	"github.com/netmcp/netmcp/policy"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/transport"
)

// controllerServeOptions are the flags of `netmcp controller serve`.
type controllerServeOptions struct {
	inventory, lab, listen, reportsDir string
	d2dCA                              string        // controller_d2d.go
	policy                             string        // who may call what (docs/security.md, "The controller's hosts")
	tlsCert, tlsKey, clientCA          string        // HTTPS and mutual TLS: the client certificate names the host
	audit                              string        // the controller's audit log ("off": none)
	web                                string        // the web console's address ("": none)
	poll                               time.Duration // period of the reads feeding subscriptions of devices without a change stream
	faults                             []string
	webViewers                         []string       // viewer logins to print
	llm                                llmOptions     // --llm: answers the devices' sampling requests (ask_llm.go)
	cluster                            clusterOptions // --cluster: a replica of a controller cluster (controller_cluster.go)
}

// defaultPoll is --poll's default (the name serve is a command below).
const defaultPoll = serve.DefaultPollInterval

// newControllerCmd builds "netmcp controller": ask and serve.
func newControllerCmd() *cobra.Command {
	c := &cobra.Command{Use: "controller", Short: "The fleet controller: diagnose from an intent (ask), or serve the fleet to an MCP host (serve)"}
	var o controllerServeOptions
	serve := &cobra.Command{
		Use:   "serve [--inventory FILE | --lab[=TOPOLOGY]] [--listen ADDR [--tls-cert F --tls-key F [--client-ca F]]] [--policy FILE]",
		Short: "Expose the whole fleet to an MCP host over one connection: list_devices, call_device_tool, ask",
		Long: "Serve MCP (stdio, or Streamable HTTP at /mcp with --listen) with three tools: list_devices,\n" +
			"call_device_tool (a device's own tool, under the device's policy and approval gate; its elicitations\n" +
			"are forwarded to the host) and ask (an intent, as `netmcp controller ask`, with progress notifications; the\n" +
			"report is returned and saved, its fix is not applied).\n\n" +
			"Who may call what: the host's identity (bearer token, mTLS client certificate with --client-ca,\n" +
			"or the stdio user \"local\") and --policy FILE (roles with tool:, yang:, resource: and device: scopes,\n" +
			"docs/controller.md). Without --policy the stdio user may do everything and HTTP hosts may read,\n" +
			"diagnose and ask but not write. Every host call and refusal is recorded in the audit log (--audit).\n\n" +
			"SIGHUP reloads --inventory: added devices are connected, removed ones closed, changed ones\n" +
			"reconnected; an inventory that does not load is refused and changes nothing (docs/cluster.md).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runControllerServe(cmd.Context(), o, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := serve.Flags()
	f.StringVar(&o.inventory, "inventory", "", "inventory YAML of the fleet")
	f.StringVar(&o.lab, "lab", "", "start a simulated lab in this process: the built-in one, or --lab=TOPOLOGY.yaml")
	f.Lookup("lab").NoOptDefVal = labBuiltin
	f.StringArrayVar(&o.faults, "fault", nil, `inject a fault into the --lab: "NAME TARGET [key=value ...]" (repeatable)`)
	f.StringVar(&o.listen, "listen", "", "serve Streamable HTTP on this address (default: stdio)")
	f.StringVar(&o.reportsDir, "reports", controller.DefaultReportsDir(), "directory of saved reports, and of the tasks of ask (tasks/); with --cluster the tasks are the cluster's")
	f.StringVar(&o.policy, "policy", "", "policy YAML (the format of `netmcp serve --policy`, with device: scopes): which host identity may call which tool on which device (default: the stdio user may do everything; HTTP hosts may read, diagnose and ask, not write)")
	f.StringVar(&o.tlsCert, "tls-cert", "", "server certificate (PEM) for HTTPS (--listen); TLS 1.3 only")
	f.StringVar(&o.tlsKey, "tls-key", "", "private key (PEM) of --tls-cert")
	f.StringVar(&o.clientCA, "client-ca", "", "CA bundle (PEM): require client certificates it signed (mutual TLS); the certificate's CN names the host")
	f.StringVar(&o.audit, "audit", "", "the controller's audit log: every host call and refusal, hash-chained (default: controller-audit.jsonl in --reports; \"off\": none)")
	f.StringVar(&o.d2dCA, "d2d-ca", "", "CA certificate (PEM) of the device agents: submit_report accepts their D2D reports (none without it)")
	f.StringVar(&o.web, "web", "", "also serve the web console of the fleet on this address: its map, live, the ask box, saved reports and the approvals queue; its one-time login URL (loopback) goes to stderr; the --policy identities log in with a bearer token or, with --tls-cert and --client-ca, a client certificate; an address other than loopback needs --tls-cert and --policy (default: none)")
	f.DurationVar(&o.poll, "poll", defaultPoll, "period of the reads that feed resource subscriptions to a device without a change stream (a device with a gnmi: URL in the inventory is followed by its ON_CHANGE stream instead); 0: no polling")
	f.StringArrayVar(&o.webViewers, "web-viewer", nil, "with --web, also print a one-time console login for a viewer of this name, who may look but not ask, apply or approve (repeatable)")
	o.llm.addFlags(f, true)
	o.cluster.addFlags(f, true)
	c.AddCommand(newAskCmd(), serve, newControllerStatusCmd())
	return c
}

// listenShutdownGrace bounds how long controller serve waits, when it
// stops, for open subscriptions/listen streams to take their result.
const listenShutdownGrace = 250 * time.Millisecond

// runControllerServe serves the controller until ctx is done or the
// stdio host goes away.
func runControllerServe(ctx context.Context, o controllerServeOptions, stdin io.Reader, stdout, stderr io.Writer) error {
	switch {
	case o.inventory != "" && o.lab != "":
		return withExit(2, errors.New("--inventory and --lab are exclusive"))
	case o.inventory == "" && o.lab == "":
		return withExit(2, errors.New("controller serve: give the fleet: --inventory FILE or --lab"))
	case len(o.faults) > 0 && o.lab == "":
		return withExit(2, errors.New("--fault needs --lab"))
	}
	if err := o.cluster.check(); err != nil {
		return withExit(2, err)
	}
	var tlsCfg *tls.Config
	if o.tlsCert != "" || o.tlsKey != "" || o.clientCA != "" {
		if o.listen == "" {
			return withExit(2, errors.New("--tls-cert, --tls-key and --client-ca need --listen"))
		}
		var err error
		if tlsCfg, err = transport.LoadServerTLS(o.tlsCert, o.tlsKey, o.clientCA); err != nil {
			return withExit(2, err)
		}
	}
	access, closeAccess, err := o.access()
	if err != nil {
		return withExit(2, err)
	}
	defer closeAccess()
	inv, hosts, domains, stopLab, err := fleetOf(ctx, o.lab, o.inventory, o.faults, stderr)
	if err != nil {
		return withExit(2, err)
	}
	defer stopLab()
	sample, err := o.llm.sampler(nil, stderr) // no terminal: only --llm-sampling consents
	if err != nil {
		return withExit(2, err)
	}
	var srv *serve.Server
	web := &webConsole{}
	var sessions cluster.FleetSessions
	// A question a host request owns goes to that host, or to the
	// console's queue when that host cannot be asked or four-eyes wants
	// another approver than the requester.
	hostQuestion := func(ctx context.Context, d *client.Device, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		if c := web.console(); c != nil {
			if who, canAsk, ok := srv.Requester(d, p); ok && (!canAsk || c.FourEyes()) {
				return c.Gate(ctx, d, p, who)
			}
		}
		return srv.Elicit(ctx, d, p)
	}
	// A question a host request owns goes to hostQuestion; the console
	// answers those of the changes it applies; the rest are declined.
	answer := func(ctx context.Context, d *client.Device, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		if srv == nil {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
		if srv.Owns(p) {
			return hostQuestion(ctx, d, p)
		}
		return consoleElicit(web.console, srv.Elicit)(ctx, d, p)
	}
	copts := client.Options{Name: "netmcp-controller", Version: version, CallTimeout: time.Minute, Sample: sample,
		// In a cluster, a question that a call forwarded by another
		// replica caused goes back there, to be answered there.
		Elicit: func(ctx context.Context, d *client.Device, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			if srv != nil && srv.Owns(p) {
				return hostQuestion(ctx, d, p)
			}
			if o.cluster.url != "" {
				if res, ok, err := sessions.RelayElicit(ctx, d, p); ok {
					if err != nil {
						fmt.Fprintf(stderr, "controller: %s's approval question not relayed to the replica that forwarded its call, declined: %v\n", d.Name(), err)
						return &mcp.ElicitResult{Action: "decline"}, nil
					}
					return res, nil
				}
			}
			return answer(ctx, d, p)
		}}
	if o.cluster.url != "" {
		copts.Remote = sessions.Remote // a device another replica holds
		copts.RemoteRequest = sessions.RemoteRequest
	}
	fleet, err := client.New(inv, copts)
	if err != nil {
		return withExit(2, err)
	}
	defer fleet.Close()
	var replica *clusterReplica
	var d2d *serve.SharedD2D // in a cluster, where the D2D reports are kept
	if o.cluster.url != "" {
		digest := "none"
		if access.Policy != nil {
			digest = access.Policy.Digest()
		}
		invDigest := "" // a --lab's URLs differ from replica to replica: its device names
		if o.inventory != "" {
			invDigest = inventoryDigest(inv)
		}
		// The questions relayed by the owners of the devices are answered
		// as those of this replica's own.
		if replica, err = joinCluster(ctx, o.cluster, fleet, &sessions, inv, invDigest, digest, answer, stderr); err != nil {
			return withExit(2, err)
		}
		defer replica.leave()
		if access.Audit != nil {
			if err := replica.shareAudit(ctx, access.Audit, stderr); err != nil {
				return withExit(2, err)
			}
		}
		if o.reportsDir != "" {
			st, err := replica.sharedD2D(ctx, serve.D2DDir(o.reportsDir))
			if err != nil {
				return withExit(2, err)
			}
			d2d = &st
		}
	} else {
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		if err := fleet.Connect(cctx); err != nil {
			fmt.Fprintf(stderr, "connect: %v (retried in the background)\n", err)
		}
		cancel()
	}
	if o.web != "" {
		// The console's identities and permissions are the controller's:
		// its policy, its bearer tokens and, over HTTPS, its clients'
		// certificates.
		co := console.Options{Inventory: inv, Policy: access.Policy, Verifier: access.Verifier, TLS: tlsCfg}
		co.AllowRemote = tlsCfg != nil && access.Policy != nil
		if co.D2DCA, err = readD2DCA(o.d2dCA); err != nil {
			return withExit(2, err)
		}
		if o.reportsDir != "" {
			co.D2DReports = serve.D2DDir(o.reportsDir)
		}
		if d2d != nil {
			co.D2D = d2d // every replica's, not only this one's
		}
		if access.Audit != nil {
			co.AuditFiles = []console.AuditFile{{Name: "controller", Path: access.Audit.Path()}}
		}
		if replica != nil {
			// The fixes waiting for approval, and the reports they fix,
			// are the cluster's: queued through one replica's console,
			// applied through any, once.
			if co.Pending, err = replica.pending(ctx); err != nil {
				return withExit(2, err)
			}
			// So are the devices' own approval questions: listed in every
			// replica's console, decided through any, once.
			if co.Gates, err = replica.gates(ctx); err != nil {
				return withExit(2, err)
			}
			co.Engine = &consoleEngine{fleet: fleet, hosts: hosts, domains: domains,
				store: serve.NewSharedReports(controller.Store{Dir: o.reportsDir}, replica), describe: replica.describeFor(stderr)}
		}
		w, err := serveConsole(o.web, co, fleet, inv, hosts, o.reportsDir, "", access.Audit)
		if err != nil {
			return withExit(2, err)
		}
		web.ptr.Store(w.console())
		defer w.close()
		fmt.Fprintf(stderr, "controller: console at %s\n", w.console().LoginURL())
		if err := printViewerLogins(stderr, w.console(), "controller: console", o.webViewers); err != nil {
			return withExit(2, err)
		}
	}
	srv = serve.New(&controller.Controller{Fleet: fleet, Hosts: hosts, Domains: domains}, controller.Store{Dir: o.reportsDir}, version)
	srv.SetAccess(access)
	poll := o.poll
	if poll <= 0 {
		poll = -1 // no polling
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	srv.SetWatch(serve.WatchOptions{PollInterval: poll, Log: logger})
	defer srv.Close()
	if replica != nil {
		srv.SetCluster(replica)
	}
	if d2d != nil {
		srv.SetD2DStore(d2d)
	}
	if err := keepTasks(ctx, srv, o.reportsDir, replica, logger); err != nil {
		return withExit(2, err)
	}
	if err := enableD2D(srv, o.d2dCA); err != nil {
		return withExit(2, err)
	}
	defer reloadOnHangup(ctx, o.inventory, fleet, replica, stderr)() // controller_reload.go
	if o.listen == "" {
		return srv.MCP().Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}})
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return withExit(2, err)
	}
	scheme := "http"
	if tlsCfg != nil {
		ln, scheme = transport.TLSListener(ln, tlsCfg), "https"
	}
	fmt.Fprintf(stderr, "controller: %d devices, MCP at %s://%s%s\n", len(inv.Devices), scheme, ln.Addr(), transport.Path)
	hs := &http.Server{Handler: srv.HTTPHandler(transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, transport.HTTPOptions{}))}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		// Shutdown first, briefly: the transport then ends open
		// subscriptions/listen streams with their result, as MCP
		// 2026-07-28 asks. Requests still running are cut, as before.
		sctx, cancel := context.WithTimeout(context.Background(), listenShutdownGrace)
		defer cancel()
		_ = hs.Shutdown(sctx)
		_ = hs.Close()
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	<-stopped // Serve returns as Shutdown begins: let the listens take their result
	return nil
}

// keepTasks keeps the tasks of ask (the Tasks extension) beyond this
// process: in the cluster's bucket for a replica, so that any replica
// answers for them; otherwise in reportsDir/tasks, so that a restarted
// controller does. Without either they are in memory only.
func keepTasks(ctx context.Context, srv *serve.Server, reportsDir string, replica *clusterReplica, log *slog.Logger) error {
	switch {
	case replica != nil:
		tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		recs, err := replica.Tasks(tctx, serve.TaskTTL)
		if err != nil {
			return err
		}
		srv.KeepTasks(serve.SharedTasks(recs), log)
	case reportsDir != "":
		st, err := server.OpenTaskDir(reportsDir)
		if err != nil {
			return fmt.Errorf("--reports %s: tasks: %w", reportsDir, err)
		}
		srv.KeepTasks(st, log)
	}
	return nil
}

// access loads the policy file (with its bearer-token verifier) and opens
// the audit log; the returned function closes it.
func (o controllerServeOptions) access() (serve.AccessOptions, func(), error) {
	var a serve.AccessOptions
	if o.policy != "" {
		pol, err := policy.Load(o.policy)
		if err != nil {
			return a, nil, err
		}
		a.Policy = pol
		if pol.File().JWT != nil {
			if a.Verifier, err = pol.Verifier(); err != nil {
				return a, nil, err
			}
		}
	}
	path := o.audit
	switch {
	case path == "off":
		return a, func() {}, nil
	case path == "" && o.reportsDir == "":
		return a, nil, errors.New("the audit log needs --reports or --audit FILE (--audit off: none)")
	case path == "":
		path = filepath.Join(o.reportsDir, serve.AuditFile)
	}
	log, err := audit.Open(path, audit.Options{Sync: audit.SyncWrites})
	if err != nil {
		return a, nil, err
	}
	a.Audit = log
	return a, func() { _ = log.Close() }, nil
}

// nopWriteCloser makes a writer an io.WriteCloser.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
