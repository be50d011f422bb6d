package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/approval"
	"github.com/netmcp/netmcp/netproto"
)

// MCPApprover is the Approver that obtains approval through MCP itself and
// lets an *approval.Authority decide: the evidence comes from the call's
// arguments (approvalToken, consent) and, when the client declared the
// elicitation capability, from the operator through elicitation/create on
// the calling session (or, under 2026-07-28, an input-required result). It
// implements ToolPolicy.
type MCPApprover struct {
	g    *approval.Authority
	log  *slog.Logger
	mrtr *mrtrApprover
}

var (
	_ Approver   = (*MCPApprover)(nil)
	_ ToolPolicy = (*MCPApprover)(nil)
)

// NewMCPApprover returns the Approver whose decisions g makes. Decisions
// are logged to log (nil discards them).
func NewMCPApprover(g *approval.Authority, log *slog.Logger) *MCPApprover {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m, err := newMRTRApprover(g.StateDir())
	if err != nil {
		// Without its shared key the gate still works in this process.
		log.Warn("request states kept in this process only", "error", err)
		m, _ = newMRTRApprover("")
	}
	return &MCPApprover{g: g, log: log, mrtr: m}
}

// Needs implements ToolPolicy.
func (a *MCPApprover) Needs(tool string, write bool) bool { return a.g.Needs(tool, write) }

// Approve implements Approver. It returns nil, an *approval.ApprovalRequired
// (repeat the call with the token), or a -32083 *netproto.Error saying why
// the approval was refused.
func (a *MCPApprover) Approve(ctx context.Context, req ApprovalRequest) error {
	ev, err := approval.EvidenceFromArguments(req.Arguments)
	if err != nil {
		return netproto.Errorf(netproto.CodeAccessDenied, "%v", err)
	}
	areq := approval.Request{
		Session: req.Session, Tool: req.Tool, Arguments: req.Arguments, Shown: shownArguments(req.Arguments), Write: req.Write,
		Summary: req.Summary, RollbackWindow: req.RollbackWindow, User: req.User, Role: req.Role, Binding: req.Binding,
		Device: req.Device,
	}
	if req.MCPSession != nil && CanElicit(req.MCPSession) && ev.Token == "" && len(ev.Consent) == 0 {
		switch {
		case !usesMRTR(ctx):
			if elicitAllowed(req.MCPSession) { // else the token path
				ev.Elicitor = sessionElicitor{req.MCPSession}
			}
		case req.Tool != MethodResourcesWrite && a.g.Needs(req.Tool, req.Write):
			// Protocol 2026-07-28: an input-required result, then the
			// repeated call with the operator's answer.
			hash, err := approval.ArgumentsHash(req.Arguments)
			if err != nil {
				return netproto.Errorf(netproto.CodeAccessDenied, "%v", err)
			}
			r, ok := ctx.Value(retryKey{}).(retry)
			if !ok {
				return a.mrtr.ask(areq, hash)
			}
			if err := a.mrtr.check(areq, hash, r); err != nil {
				a.log.Warn("approval refused", "tool", req.Tool, "session", req.Session, "error", err)
				return err
			}
			res, _ := r.responses[inputRequestID].(*mcp.ElicitResult)
			noteAnswerer(ctx, res)
			a.log.Info("approved", "tool", req.Tool, "session", req.Session, "method", "elicitation", "approver", "operator")
			return nil
		}
	}
	d, err := a.g.Approve(ctx, areq, ev)
	if err != nil {
		var ar *approval.ApprovalRequired
		if !errors.As(err, &ar) && !errors.As(err, new(*elicitationRequired)) {
			a.log.Warn("approval refused", "tool", req.Tool, "session", req.Session, "error", err)
		}
		return err
	}
	a.log.Info("approved", "tool", req.Tool, "session", req.Session, "method", d.Method, "approver", d.Approver)
	return nil
}

// CanElicit reports whether the client of ss declared form elicitation
// (a form, or elicitation without modes, which means form): what the
// approval gate needs to ask the operator through it.
func CanElicit(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return false
	}
	e := p.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil
}

// sessionElicitor adapts an MCP server session to approval.Elicitor.
type sessionElicitor struct{ ss *mcp.ServerSession }

// Elicit sends elicitation/create, naming in its _meta the correlation id
// of the call it asks about, and returns the operator's answer.
func (e sessionElicitor) Elicit(ctx context.Context, message string, schema map[string]any) (string, map[string]any, error) {
	p := &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: schema}
	if id, _ := ctx.Value(correlationKey{}).(string); id != "" {
		p.Meta = mcp.Meta{netproto.MetaCorrelationID: id}
	}
	res, err := e.ss.Elicit(ctx, p)
	if err != nil {
		return "", nil, err
	}
	if res == nil {
		return "", nil, fmt.Errorf("empty elicitation result")
	}
	noteAnswerer(ctx, res)
	return res.Action, res.Content, nil
}
