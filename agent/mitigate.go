package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/d2d/report"
	"github.com/netmcp/netmcp/d2d/sign"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/remedy"
)

// Mitigation proposals (the draft's remediation, kept behind the
// device's approval gate). When the hypothesis is a filter (an egress or
// ingress ACL), the run reads the ACLs of the device it blames (a signed
// result, in the evidence) and proposes the controller's fix
// (remedy.ACLFix: remove the deciding entry, or unbind the ACL) as a
// report.Proposal: a YANG edit, its diff and CLI. The run applies nothing:
// D2D negotiates no write capability. Only the blamed device's own agent
// applies a proposal (Mitigate), through its write session to the device
// (Config.Writer), whose approval gate needs the operator's consent: it
// edits the candidate, commits it as a confirmed commit (ConfirmWindow),
// runs the intent again, and confirms the commit only if the direction
// it fixes is measured clean, else cancels it (the device rolls back).

// ConfirmWindow is the rollback window of a mitigation's confirmed
// commit, in seconds (the controller's: remedy.ConfirmWindow).
const ConfirmWindow = remedy.ConfirmWindow

// pathACL is where the devices serve their ACLs (openconfig-acl).
const pathACL = remedy.PathACL

// ErrConsentRequired is a mitigation refused by the device's approval
// gate for want of the operator's consent: nothing was changed.
var ErrConsentRequired = errors.New("agent: the device's approval gate needs the operator's consent; nothing was changed")

// propose returns the mitigations of the hypothesis h: the fix of the ACL
// that filters, read on h's device.
func (r *run) propose(ctx context.Context, h *report.Finding) []report.Proposal {
	if h == nil || (h.Cause != "egress-filter" && h.Cause != "ingress-filter") || h.Interface == "" {
		return nil
	}
	res, i, err := r.do(ctx, h.Device, netproto.ToolYangGet, map[string]any{"path": pathACL})
	if err != nil {
		return nil
	}
	var body struct {
		Data any `json:"data"`
	}
	if json.Unmarshal(res.Body, &body) != nil {
		return nil
	}
	// The workflow's probes are ICMP echo requests.
	fix, ch, ok := remedy.ACLFix(h.Device, body.Data, h.Interface, h.Cause == "egress-filter", remedy.Traffic{Protocol: "ICMP"})
	if !ok {
		return nil
	}
	p := report.Proposal{Device: h.Device, Interface: h.Interface, Direction: h.Direction, Cause: h.Cause, Summary: ch.Summary, Fix: fix,
		Diff: ch.Diff, CLI: ch.CLI, Evidence: []int{i}}
	for _, e := range ch.Edit {
		op := report.EditOp{Operation: e.Operation, Path: e.Path}
		if e.Value != nil {
			op.Value, _ = json.Marshal(e.Value)
		}
		p.Edit = append(p.Edit, op)
	}
	return []report.Proposal{p}
}

// Writer is the write session Mitigate needs (Config.Writer): an
// *mcp.ClientSession to the device's server, or a wrapper of one.
type Writer interface {
	CallTool(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error)
}

// Mitigation names, in the context of each write Mitigate makes on
// Config.Writer, the mitigation the write belongs to (MitigationOf).
type Mitigation struct {
	// Device is this agent's device; Report the report's id.
	Device, Report string
	// Proposal is the change being applied (its edit, diff, summary,
	// cause) as this device computed it from its own diagnosis: its
	// words describe the edit the write makes, not a report's labels.
	Proposal report.Proposal
	// Consent is who consented, as given to Mitigate ("" for none).
	Consent string
	// Operator is the MCP session of the operator who called d2d.mitigate
	// (nil when Mitigate was called directly): the one to ask when the
	// device's approval gate asks for approval.
	Operator *mcp.ServerSession
}

type mitigationKey struct{}

type operatorKey struct{}

// MitigationOf returns the mitigation a write's context belongs to.
func MitigationOf(ctx context.Context) (Mitigation, bool) {
	m, ok := ctx.Value(mitigationKey{}).(Mitigation)
	return m, ok
}

// MitigationResult is what Mitigate did.
type MitigationResult struct {
	// Report is the id of the report whose proposal was applied.
	Report string `json:"report"`
	// Proposal is the change: once this device has diagnosed the path
	// itself, the one it computed (equal in its edit to the report's).
	Proposal report.Proposal `json:"proposal"`
	// Diagnosis is the id of this device's own report of the intent, the
	// diagnosis the change was computed from.
	Diagnosis string `json:"diagnosis,omitempty"`
	// Consent is who consented ("" when the caller gave none).
	Consent string `json:"consent,omitempty"`
	// Diff is the device's diff of the candidate, when it gave one.
	Diff string `json:"diff,omitempty"`
	// Committed: the confirmed commit was made; Confirmed or RolledBack
	// after the verification.
	Committed  bool `json:"committed"`
	Confirmed  bool `json:"confirmed"`
	RolledBack bool `json:"rolledBack"`
	// Verified: the run of the intent again no longer finds the cause;
	// Verification is that run's report.
	Verified     bool           `json:"verified"`
	Verification *report.Report `json:"verification,omitempty"`
	// Result says what happened in one sentence.
	Result string `json:"result"`
}

// Mitigate applies this device's proposal of rep, with consent (who
// consented: "operator:NAME"; "" for none). rep must verify against the
// CA. The proposal's edit is not taken on trust: this agent runs rep's
// intent itself, computes the fix from its own diagnosis (remedy.ACLFix
// on its own ACLs), and applies that fix only if its edit equals the
// proposal's; the mitigation each write names (MitigationOf) is that
// recomputed change, whatever words the report gave it. Every write goes
// through the device's approval gate on Config.Writer: without consent
// the gate's refusal stands and nothing changes (ErrConsentRequired); with
// it, the gate's single-use token is presented (as the controller's
// remediation does), or the gate asks the operator itself when the
// writer's client answers elicitations.
func (a *Agent) Mitigate(ctx context.Context, rep report.Report, consent string) (MitigationResult, error) {
	out := MitigationResult{Report: rep.ID, Consent: consent}
	if a.cfg.Writer == nil {
		return out, errors.New("agent: no write session to the device (Config.Writer): mitigations cannot be applied here")
	}
	// The change is verified by running the intent again over D2D: what
	// cannot be verified is not changed.
	if err := a.allowed(ctx); err != nil {
		return out, fmt.Errorf("agent: not mitigating, the path could not be verified again: %w", err)
	}
	if _, err := report.Verify(rep, report.CAVerifier(a.roots, a.cfg.Now())); err != nil {
		return out, fmt.Errorf("agent: report %s does not verify: %w", rep.ID, err)
	}
	var asked *report.Proposal
	for i := range rep.Proposals {
		if rep.Proposals[i].Device == a.name {
			asked = &rep.Proposals[i]
			break
		}
	}
	if asked == nil {
		return out, fmt.Errorf("agent: report %s proposes no change of %s", rep.ID, a.name)
	}
	out.Proposal = *asked
	own, err := a.Ask(ctx, rep.Intent)
	if err != nil {
		return out, fmt.Errorf("agent: not mitigating: %s could not diagnose the path itself: %w", a.name, err)
	}
	out.Diagnosis = own.ID
	var p *report.Proposal
	for i := range own.Proposals {
		if own.Proposals[i].Device == a.name {
			p = &own.Proposals[i]
			break
		}
	}
	if p == nil {
		return out, fmt.Errorf("agent: not mitigating: %s's own diagnosis of %q (report %s) proposes no change of %s", a.name, rep.Intent, own.ID, a.name)
	}
	if !sameEdit(asked.Edit, p.Edit) {
		return out, fmt.Errorf("agent: not mitigating: the edit report %s proposes is not the fix %s computes from its own diagnosis (report %s: %s)", rep.ID, a.name, own.ID, p.Summary)
	}
	out.Proposal = *p
	op, _ := ctx.Value(operatorKey{}).(*mcp.ServerSession)
	ctx = context.WithValue(ctx, mitigationKey{}, Mitigation{Device: a.name, Report: rep.ID, Proposal: *p, Consent: consent, Operator: op})
	ops := make([]map[string]any, len(p.Edit))
	for i, e := range p.Edit {
		op := map[string]any{"operation": e.Operation, "path": e.Path}
		if len(e.Value) > 0 {
			var v any
			if err := json.Unmarshal(e.Value, &v); err != nil {
				return out, fmt.Errorf("agent: proposal value: %w", err)
			}
			op["value"] = v
		}
		ops[i] = op
	}
	edit, err := a.write(ctx, netproto.ToolYangEdit, map[string]any{"target": "candidate", "edit": ops}, consent)
	if err != nil {
		out.Result = "not applied: " + err.Error()
		return out, err
	}
	out.Diff = diffOf(edit)
	comment := "netmcp d2d mitigation, report " + rep.ID + ": " + p.Summary
	if consent != "" {
		comment += " (consent: " + consent + ")"
	}
	if _, err := a.write(ctx, netproto.ToolCommit, map[string]any{"confirmed": ConfirmWindow, "comment": comment}, consent); err != nil {
		out.Result = "not committed (the edit stays in the candidate, not running): " + err.Error()
		return out, err
	}
	out.Committed = true
	again, verr := a.Ask(ctx, rep.Intent)
	if verr == nil {
		out.Verification = &again
		out.Verified = cleanAgain(again, *p)
	}
	args := map[string]any{"cancel": true}
	if out.Verified {
		args = map[string]any{"confirm": true}
	}
	if _, err := a.write(ctx, netproto.ToolCommit, args, consent); err != nil {
		out.Result = fmt.Sprintf("committed; closing the confirmed commit failed (%v): the device rolls back by itself after %d s unless confirmed", err, ConfirmWindow)
		return out, err
	}
	out.Confirmed, out.RolledBack = out.Verified, !out.Verified
	switch {
	case out.Verified:
		out.Result = fmt.Sprintf("%s on %s: applied, the path verified again (report %s), confirmed", p.Summary, a.name, again.ID)
	case verr != nil:
		out.Result = fmt.Sprintf("%s on %s: applied; the verification could not run (%v): rolled back", p.Summary, a.name, verr)
	default:
		out.Result = fmt.Sprintf("%s on %s: applied; the %s direction is not verified clean (report %s): rolled back", p.Summary, a.name, p.Direction, again.ID)
	}
	return out, nil
}

// sameEdit tells whether two edits are the same operations on the same
// paths with the same values (compared as canonical JSON; an omitted
// operation is network.yang.edit's default, merge).
func sameEdit(x, y []report.EditOp) bool {
	if len(x) != len(y) {
		return false
	}
	norm := func(e report.EditOp) (string, bool) {
		op := e.Operation
		if op == "" {
			op = "merge"
		}
		v := []byte("null")
		if len(e.Value) > 0 {
			c, err := sign.Canonical(e.Value)
			if err != nil {
				return "", false
			}
			v = c
		}
		return op + "\x00" + e.Path + "\x00" + string(v), true
	}
	for i := range x {
		a, ok1 := norm(x[i])
		b, ok2 := norm(y[i])
		if !ok1 || !ok2 || a != b {
			return false
		}
	}
	return true
}

// cleanAgain tells whether the run of the intent again shows the
// proposal's direction clean: every path device trusted and no finding
// on that direction (neither the cause, another loss, nor not-measured).
func cleanAgain(r report.Report, p report.Proposal) bool {
	if len(r.Untrusted) > 0 {
		return false
	}
	for _, f := range r.Findings {
		if f.Direction == p.Direction || f.Cause == "not-measured" {
			return false
		}
	}
	return true
}

// write makes a state-changing call on the device through its approval
// gate. A refusal pending approval (a single-use token) is answered with
// the token only when consent was given; otherwise it is
// ErrConsentRequired, and nothing was changed.
func (a *Agent) write(ctx context.Context, tool string, args map[string]any, consent string) (*mcp.CallToolResult, error) {
	res, err := a.cfg.Writer.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("agent: %s: %w%s", tool, err, errorDetail(err))
	}
	if !res.IsError {
		return res, nil
	}
	var ar netproto.ApprovalRequiredResult
	if b, e := json.Marshal(res.StructuredContent); e != nil || json.Unmarshal(b, &ar) != nil || ar.Status != netproto.StatusApprovalRequired {
		return nil, fmt.Errorf("agent: %s: %s", tool, textOf(res))
	}
	if consent == "" {
		return nil, fmt.Errorf("%w (%s: %s)", ErrConsentRequired, tool, ar.Summary)
	}
	with := map[string]any{"approvalToken": ar.ApprovalToken}
	for k, v := range args {
		with[k] = v
	}
	if res, err = a.cfg.Writer.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: with}); err != nil {
		return nil, fmt.Errorf("agent: %s: %w%s", tool, err, errorDetail(err))
	}
	if res.IsError {
		return nil, fmt.Errorf("agent: %s: %s", tool, textOf(res))
	}
	return res, nil
}

// errorDetail is the detail of an MCP-NET error (its data's "detail",
// e.g. why the approval gate refused), as " (detail)", or "".
func errorDetail(err error) string {
	var je *jsonrpc.Error
	var data struct {
		Detail string `json:"detail"`
	}
	if errors.As(err, &je) && json.Unmarshal(je.Data, &data) == nil && data.Detail != "" {
		return " (" + data.Detail + ")"
	}
	return ""
}

// diffOf is the diff member of an edit's result.
func diffOf(res *mcp.CallToolResult) string {
	var out struct {
		Diff string `json:"diff"`
	}
	if b, err := json.Marshal(res.StructuredContent); err == nil {
		_ = json.Unmarshal(b, &out)
	}
	return out.Diff
}
