package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/pflag"

	"github.com/netmcp/netmcp/agent"
	"github.com/netmcp/netmcp/approval"
	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/policy"
	"github.com/netmcp/netmcp/server"
)

// The agent's write session (agent.Config.Writer): d2d.mitigate applies
// this device's proposal through it. It is an in-process session to a
// second server of the device, built as `netmcp serve` builds one (not
// read-only, the approval gate, Secure with the agent's audit log), so
// every write passes the device's approval gate. The session's client
// answers the gate's elicitations (mitigationWriter.elicit): only for a
// mitigation the operator asked for with consent, and then by asking a
// human: the operator who called d2d.mitigate (relayed over their MCP
// session, when their client supports elicitation), else the agent's
// terminal, else --yes with a --policy that allows the change. Nothing is
// approved silently: with nobody to ask the gate refuses and nothing
// changes.

// mitigateFlags are the consent flags of `netmcp agent` and `agent lab`.
type mitigateFlags struct {
	yes    bool
	policy string
}

func (f *mitigateFlags) bind(fl *pflag.FlagSet) {
	fl.BoolVar(&f.yes, "yes", false, "let d2d.mitigate apply a proposal the operator consented to without asking anyone, if --policy allows it")
	fl.StringVar(&f.policy, "policy", "", "remediation policy file (YAML, as netmcp ask's: auto-approve, root-causes, devices) that --yes needs")
}

// consenter builds the answerer of the gate's questions from the flags;
// in and errw are the agent's terminal, if they are one.
func (f mitigateFlags) consenter(in io.Reader, errw io.Writer) (*mitigationConsent, error) {
	var pol *controller.Policy
	if f.policy != "" {
		var err error
		if pol, err = controller.LoadPolicy(f.policy); err != nil {
			return nil, withExit(2, err)
		}
	}
	if f.yes && pol == nil {
		return nil, withExit(2, errors.New("--yes needs a --policy file that allows automatic remediation"))
	}
	return &mitigationConsent{in: bufio.NewReader(in), out: errw, tty: isTerminal(errw) && isReaderTerminal(in), policy: pol, yes: f.yes}, nil
}

// mitigationConsent decides the device gate's questions when the operator
// who asked for the mitigation cannot be asked: the agent's terminal, or
// --yes with a policy.
type mitigationConsent struct {
	mu     sync.Mutex // one question at a time on the terminal
	in     *bufio.Reader
	out    io.Writer
	tty    bool
	policy *controller.Policy
	yes    bool
}

var acceptApproval = &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}

// decide answers the gate's question (message) about mitigation m, or
// says why nobody could be asked.
func (c *mitigationConsent) decide(m agent.Mitigation, message string) (*mcp.ElicitResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := m.Proposal
	if c.tty {
		fmt.Fprintf(c.out, "\n[%s] mitigation of report %s (consent: %s): %s\n%s[%s] asks: %s\nAccept? [y/N] ",
			m.Device, m.Report, m.Consent, p.Summary, p.Diff, m.Device, message)
		line, _ := c.in.ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a == "y" || a == "yes" {
			return acceptApproval, nil
		}
		fmt.Fprintf(c.out, "[%s] declined\n", m.Device)
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	if c.yes {
		ch := controller.Change{Device: p.Device, Summary: p.Summary, Diff: p.Diff, CLI: p.CLI, Cause: p.Cause}
		if ok, why := c.policy.Allows([]controller.Change{ch}); !ok {
			return nil, fmt.Errorf("--yes: %s", why)
		}
		fmt.Fprintf(c.out, "[%s] --yes: the policy allows %s (report %s, consent: %s)\n", m.Device, p.Summary, m.Report, m.Consent)
		return acceptApproval, nil
	}
	return nil, errors.New("nobody to ask: the agent has no terminal and no --yes with a --policy that allows it")
}

// mitigationWriter is the agent's write session: it serialises the writes
// so that each elicitation of the gate belongs to the write in flight.
type mitigationWriter struct {
	cs      *mcp.ClientSession
	consent *mitigationConsent
	log     *slog.Logger

	call sync.Mutex // one write at a time
	mu   sync.Mutex
	cur  *writeCall // the write in flight
}

// writeCall is a write in flight: its context (the d2d.mitigate call's,
// through which the operator is asked) and its mitigation.
type writeCall struct {
	ctx context.Context
	m   agent.Mitigation
	ok  bool
}

// CallTool implements agent.Writer.
func (w *mitigationWriter) CallTool(ctx context.Context, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	w.call.Lock()
	defer w.call.Unlock()
	m, ok := agent.MitigationOf(ctx)
	w.mu.Lock()
	w.cur = &writeCall{ctx: ctx, m: m, ok: ok}
	w.mu.Unlock()
	defer func() { w.mu.Lock(); w.cur = nil; w.mu.Unlock() }()
	return w.cs.CallTool(ctx, p)
}

// elicit answers the device gate's elicitation for the write in flight.
// An error refuses the write: the gate says the operator could not be
// asked, and nothing changes.
func (w *mitigationWriter) elicit(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	w.mu.Lock()
	cur := w.cur
	w.mu.Unlock()
	if cur == nil || !cur.ok {
		return nil, errors.New("this session only applies mitigations, and none is in progress")
	}
	m := cur.m
	if m.Consent == "" {
		return nil, errors.New(`no consent: the operator must call d2d.mitigate with "consent": true`)
	}
	var relayErr error
	if op := m.Operator; op != nil && server.CanElicit(op) {
		// The operator who called d2d.mitigate decides, on the stream of
		// that call.
		res, err := op.Elicit(cur.ctx, &mcp.ElicitParams{Mode: "form", RequestedSchema: req.Params.RequestedSchema,
			Message: fmt.Sprintf("%s's agent is applying its mitigation of report %s: %s.\n%s\n%s",
				m.Device, m.Report, m.Proposal.Summary, m.Proposal.Diff, req.Params.Message)})
		if err == nil {
			w.log.Info("mitigation: the operator answered", "device", m.Device, "report", m.Report, "action", res.Action)
			return res, nil
		}
		relayErr = fmt.Errorf("the operator's client could not be asked: %v", err)
		w.log.Warn("mitigation: relaying the approval to the operator failed", "error", err)
	}
	res, err := w.consent.decide(m, req.Params.Message)
	if err != nil && relayErr == nil {
		relayErr = errors.New("the operator's MCP client does not support elicitation")
	}
	if err != nil {
		return nil, fmt.Errorf("%v; %v", relayErr, err)
	}
	return res, nil
}

// mitigationWriterFor builds the write session of the agent of device
// drv (identity id): a second server of the device as `netmcp serve`
// builds it, its approval gate (used consent nonces in stateDir), its
// requests audited in alog, and an in-process client whose elicitations
// consent answers. It lives until ctx ends.
func mitigationWriterFor(ctx context.Context, drv device.Driver, id, stateDir string, alog *audit.Log, consent *mitigationConsent, logger *slog.Logger) (*mitigationWriter, error) {
	aopts := policy.Default().Approval()
	aopts.StateDir = stateDir
	aopts.DeviceIDs = []string{id}
	ag, err := approval.Open(aopts)
	if err != nil {
		return nil, err
	}
	srv, err := server.New(drv, server.Options{Version: version, Logger: logger, Approver: server.NewMCPApprover(ag, logger), User: "d2d-agent"})
	if err != nil {
		return nil, err
	}
	if _, err := srv.Secure(server.SecurityOptions{Policy: policy.Default(), LocalUser: "d2d-agent", Audit: alog}); err != nil {
		srv.Close()
		return nil, err
	}
	w := &mitigationWriter{consent: consent, log: logger}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("agent: write session: %w", err)
	}
	go func() { <-ctx.Done(); ss.Close(); srv.Close() }()
	w.cs, err = mcp.NewClient(&mcp.Implementation{Name: "netmcp-agent-writer", Version: version},
		&mcp.ClientOptions{ElicitationHandler: w.elicit}).Connect(ctx, ct, nil)
	if err != nil {
		return nil, fmt.Errorf("agent: write session: %w", err)
	}
	return w, nil
}
