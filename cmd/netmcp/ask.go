package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/controller"
)

// labBuiltin is the value of a bare --lab: the built-in topology.
const labBuiltin = "builtin"

// askOptions are the flags of `netmcp controller ask`.
type askOptions struct {
	inventory  string
	lab        string
	faults     []string
	json       bool
	show       string
	reportsDir string
	yes        bool
	policy     string
	noFix      bool
	timeout    time.Duration
	flapWindow time.Duration
	llm        llmOptions // --llm: the model plans the intent (ask_llm.go)
}

// newAskCmd builds "netmcp controller ask".
func newAskCmd() *cobra.Command {
	var o askOptions
	cmd := &cobra.Command{
		Use:   `ask [--inventory FILE | --lab[=TOPOLOGY]] [--fault WORDS ...] [--json] "intent"`,
		Short: "Diagnose the network from an intent: plan MCP calls across the fleet, name the root cause, offer a fix",
		Long: "Turn an intent into MCP calls across every device of the fleet, correlate what they show, and print a\n" +
			"report: the diagnosis, the root causes with their evidence, the recommended fix (docs/controller.md).\n\n" +
			"Intents, in words or as a JSON/YAML object ({\"kind\":\"reachability\",\"source\":\"r1\",\"destination\":\"h3\"}):\n" +
			"  verify reachability between r1 and h3       path MTU from r1 to 10.3.0.10\n" +
			"  why is BGP neighbor 10.0.12.2 down on r1    why is the OSPF adjacency between r2 and r3 down\n" +
			"  what is wrong with the network?\n\n" +
			"--lab starts the built-in simulated lab in this process (--lab=FILE another topology); --fault breaks it\n" +
			"with a NIKA fault, \"NAME TARGET key=value\", as `netmcp lab up --fault`. Progress goes to stderr, the\n" +
			"report to stdout (--json: the documented schema with NIKA's is_anomaly, faulty_devices, root_cause_name).\n" +
			"Reports are kept in --reports (show one again with --show ID, or --show last).\n\n" +
			"A proposed fix is applied only with consent: a y/N question on a terminal, or --yes with a --policy file\n" +
			"that allows it; it is a confirmed commit, kept only if the intent verifies afterwards, else rolled back.",
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAsk(cmd.Context(), o, strings.Join(args, " "), cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.inventory, "inventory", "", "inventory YAML of the fleet (see package inventory)")
	f.StringVar(&o.lab, "lab", "", "start a simulated lab in this process: the built-in one, or --lab=TOPOLOGY.yaml")
	f.Lookup("lab").NoOptDefVal = labBuiltin
	f.StringArrayVar(&o.faults, "fault", nil, `inject a fault into the --lab: "NAME TARGET [key=value ...]" (repeatable)`)
	f.BoolVar(&o.json, "json", false, "print the report as JSON (docs/controller.md)")
	f.StringVar(&o.show, "show", "", "print a saved report (an id, a unique prefix of one, or last) and exit")
	f.StringVar(&o.reportsDir, "reports", controller.DefaultReportsDir(), "directory of saved reports")
	f.BoolVar(&o.yes, "yes", false, "apply the proposed fix without asking, if --policy allows it")
	f.StringVar(&o.policy, "policy", "", "remediation policy file (YAML; see docs/controller.md) that --yes needs")
	f.BoolVar(&o.noFix, "no-fix", false, "never offer to apply the proposed fix")
	f.DurationVar(&o.timeout, "timeout", 2*time.Minute, "bound on the whole run")
	f.DurationVar(&o.flapWindow, "flap-window", controller.DefaultFlapWindow, "how far back a link's state changes in its ends' logs count as flapping (older ones are history; 0: the default)")
	o.llm.addFlags(f, false)
	return cmd
}

// runAsk is `netmcp controller ask`.
func runAsk(ctx context.Context, o askOptions, text string, stdin io.Reader, stdout, stderr io.Writer) error {
	store := controller.Store{Dir: o.reportsDir}
	if o.show != "" {
		rep, err := store.Load(o.show)
		if err != nil {
			return withExit(2, err)
		}
		return printReport(stdout, rep, o.json)
	}
	if o.llm.url != "" || o.llm.model != "" || o.llm.sampling {
		return runAskLLM(ctx, o, text, stdin, stdout, stderr)
	}
	if o.flapWindow < 0 {
		return withExit(2, fmt.Errorf("ask: --flap-window must not be negative, got %s", o.flapWindow))
	}
	if strings.TrimSpace(text) == "" {
		return withExit(2, errors.New(`ask: no intent (e.g. netmcp controller ask --lab "what is wrong with the network?")`))
	}
	in, err := controller.ParseIntent(text)
	if err != nil {
		return withExit(2, err)
	}
	var policy *controller.Policy
	if o.policy != "" {
		if policy, err = controller.LoadPolicy(o.policy); err != nil {
			return withExit(2, err)
		}
	}
	if o.yes && policy == nil {
		return withExit(2, errors.New("--yes needs a --policy file that allows automatic remediation"))
	}
	switch {
	case o.inventory != "" && o.lab != "":
		return withExit(2, errors.New("--inventory and --lab are exclusive"))
	case o.inventory == "" && o.lab == "":
		return withExit(2, errors.New("ask: give the fleet: --inventory FILE or --lab"))
	case len(o.faults) > 0 && o.lab == "":
		return withExit(2, errors.New("--fault needs --lab"))
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()

	inv, hosts, domains, stopLab, err := fleetOf(ctx, o.lab, o.inventory, o.faults, stderr)
	if err != nil {
		return withExit(2, err)
	}
	defer stopLab()
	if o.lab != "" {
		fmt.Fprintf(stderr, "lab: %d devices (routers and hosts) serving MCP on 127.0.0.1\n", len(inv.Devices))
	}

	tty := isTerminal(stderr) && isReaderTerminal(stdin)
	op := &operator{in: bufio.NewReader(stdin), out: stderr, tty: tty, policy: policy, yes: o.yes}
	fleet, err := client.New(inv, client.Options{Name: "netmcp-controller", Version: version, CallTimeout: time.Minute, Elicit: op.elicit})
	if err != nil {
		return withExit(2, err)
	}
	defer fleet.Close()
	cctx, ccancel := context.WithTimeout(ctx, 20*time.Second)
	if err := fleet.Connect(cctx); err != nil {
		fmt.Fprintf(stderr, "connect: %v (the run goes on without them)\n", err)
	}
	ccancel()
	ctl := &controller.Controller{Fleet: fleet, Hosts: hosts, Domains: domains, Progress: stderr, FlapWindow: o.flapWindow}
	rep, err := ctl.Ask(ctx, in)
	if err != nil {
		return err
	}
	save := func() {
		if path, err := store.Save(rep); err != nil {
			fmt.Fprintf(stderr, "report not saved: %v\n", err)
		} else {
			fmt.Fprintf(stderr, "report saved: %s\n", path)
		}
	}
	save()
	if err := printReport(stdout, rep, o.json); err != nil {
		return err
	}
	if len(rep.ProposedChanges) == 0 || o.noFix {
		return nil
	}
	consent, ok := op.consent(rep)
	if !ok {
		rep.Remediation = &controller.Remediation{Consent: consent, Result: "not applied: " + consent}
		save()
		return nil
	}
	if err := ctl.Remediate(ctx, rep, consent); err != nil {
		return err
	}
	save()
	if o.json {
		return printReport(stdout, rep, true)
	}
	fmt.Fprintf(stdout, "\nRemediation: %s\n", rep.Remediation.Result)
	return nil
}

// printReport prints a report as text or JSON.
func printReport(w io.Writer, rep *controller.Report, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	rep.WriteText(w)
	return nil
}

// isReaderTerminal reports whether r is a terminal.
func isReaderTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// operator is the person at the terminal: consent to fixes and answers to
// the devices' elicitations. Without a terminal, only a policy (with
// --yes) consents, and elicitations are answered as that consent allows.
type operator struct {
	mu       sync.Mutex
	in       *bufio.Reader
	out      io.Writer
	tty      bool
	policy   *controller.Policy
	yes      bool
	approved bool // the operator or the policy consented to the fix
}

// consent asks for consent to the report's changes; it returns who
// consented, or why not.
func (o *operator) consent(rep *controller.Report) (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.yes {
		if ok, why := o.policy.Allows(rep.ProposedChanges); !ok {
			fmt.Fprintf(o.out, "--yes: %s; not applied\n", why)
			return "declined by policy: " + why, false
		}
		o.approved = true
		fmt.Fprintln(o.out, "--yes: the policy allows these changes")
		return "policy", true
	}
	if !o.tty {
		return "not asked (no terminal; use --yes with a --policy that allows it)", false
	}
	fmt.Fprintf(o.out, "\nProposed changes:\n")
	for _, ch := range rep.ProposedChanges {
		fmt.Fprintf(o.out, "%s: %s\n%s", ch.Device, ch.Summary, ch.Diff)
	}
	fmt.Fprintf(o.out, "Apply as a confirmed commit, kept only if the intent verifies afterwards? [y/N] ")
	line, _ := o.in.ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a == "y" || a == "yes" {
		o.approved = true
		return "operator", true
	}
	return "declined by the operator", false
}

// elicit relays a device's elicitation to the operator: on a terminal the
// question is asked; otherwise it is accepted only when the fix it belongs
// to was consented to (the device asks to approve the write the
// controller makes for it), else declined.
func (o *operator) elicit(ctx context.Context, d *client.Device, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return o.answer(d.Name(), p.Message), nil
}

// answer decides a device's elicitation (see elicit).
func (o *operator) answer(device, message string) *mcp.ElicitResult {
	o.mu.Lock()
	defer o.mu.Unlock()
	fmt.Fprintf(o.out, "[%s] asks: %s\n", device, message)
	accept := &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true, "confirm": true}}
	if o.tty {
		fmt.Fprintf(o.out, "Accept? [y/N] ")
		line, _ := o.in.ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a == "y" || a == "yes" {
			return accept
		}
		return &mcp.ElicitResult{Action: "decline"}
	}
	if o.approved {
		fmt.Fprintf(o.out, "[%s] accepted: the fix was consented to (%s)\n", device, map[bool]string{true: "policy", false: "operator"}[o.yes])
		return accept
	}
	fmt.Fprintf(o.out, "[%s] declined: no consent\n", device)
	return &mcp.ElicitResult{Action: "decline"}
}
