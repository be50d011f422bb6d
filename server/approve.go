package server

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/approval"
	"github.com/netmcp/netmcp/policy"
)

// MethodResourcesWrite is the custom method of MCP-NET 5.3; its approval
// refusals are JSON-RPC errors since it has no tool result.
const MethodResourcesWrite = "resources/write"

// approve is the path of a state-changing call to the Approver, with the
// summary the operator reviews. args are the arguments as received.
func (s *Server) approve(ctx context.Context, ss *mcp.ServerSession, tool string, args json.RawMessage, summary string) error {
	return s.approveRequest(ctx, ApprovalRequest{MCPSession: ss, Tool: tool, Arguments: args, Summary: summary, Write: true})
}

// approveRequest sends req to the Approver after filling in the session and
// user. A read-only server refuses every write (-32083) without asking. An
// *approval.ApprovalRequired is returned as is for a tool (the tool layer
// turns it into an "approval-required" result) and as a -32083 error with
// the token in data for resources/write.
func (s *Server) approveRequest(ctx context.Context, req ApprovalRequest) error {
	if req.Write && s.opts.ReadOnly {
		return accessDenied(req.Tool)
	}
	if len(req.Arguments) == 0 || string(req.Arguments) == "null" {
		req.Arguments = json.RawMessage("{}")
	}
	owner := s.owner(req.MCPSession)
	req.Session, req.User = owner.Session, owner.User
	// The caller is the identity the access-control layer authenticated
	// for this request: the operator reads who asks, and each identity has
	// its own pool of pending approvals.
	if id, ok := policy.IdentityFrom(ctx); ok {
		req.User, req.Role = id.String(), strings.Join(id.Roles, ",")
	}
	// A call of protocol 2026-07-28 over HTTP has a session of its own, so
	// its approval (a token, an input-required answer) is bound to what
	// outlives it: the handle it acts under, or else the caller's identity;
	// the arguments, handle included, are bound by their digest.
	if o, ok := ctx.Value(ownerKey{}).(callOwner); ok {
		req.Session = o.approval
	} else if statelessSession(req.MCPSession) {
		req.Session = "stateless:" + s.callIdentity(ctx)
	}
	req.Device = s.info.Name
	err := s.opts.Approver.Approve(ctx, req)
	if err == nil {
		return nil
	}
	if _, ok := err.(*elicitationRequired); ok {
		return err // the tool layer answers input-required
	}
	var ar *approval.ApprovalRequired
	if errors.As(err, &ar) {
		s.log.Info("approval required", "tool", req.Tool, "session", req.Session, "expires", ar.ExpiresAt)
		if req.Tool == MethodResourcesWrite {
			return approvalRequiredError(ar)
		}
		return ar
	}
	s.log.Info("call refused by the approval gate", "tool", req.Tool, "error", err)
	return rpc(err)
}

// rawArgs returns the call's arguments exactly as the client sent them.
func (c *call) rawArgs() json.RawMessage {
	if c.req == nil || c.req.Params == nil || len(c.req.Params.Arguments) == 0 {
		return json.RawMessage("{}")
	}
	return c.req.Params.Arguments
}

// approveRead passes a read-only tool's call through the Approver when its
// policy says the tool needs approval (mode "always").
func (s *Server) approveRead(ctx context.Context, c *call) error {
	p, ok := s.opts.Approver.(ToolPolicy)
	if !ok || !p.Needs(c.tool, false) {
		return nil
	}
	return s.approveRequest(ctx, ApprovalRequest{MCPSession: c.req.Session, Tool: c.tool, Arguments: c.rawArgs(),
		Summary: "run " + c.tool + " (read-only; the approval policy asks for every call of this tool)"})
}
