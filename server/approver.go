package server

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Approver approves or refuses a call. Every state-changing call
// (network.cli.configure, network.yang.edit, network.commit,
// network.rollback, network.file.push, resources/write) passes through
// Server.approve and so through exactly one Approver; a read-only tool
// passes through it too when the Approver also implements ToolPolicy and
// says the tool needs approval. A non-nil error refuses the call: an
// *approval.ApprovalRequired becomes an "approval-required" tool result (or
// a -32083 error for resources/write, see docs/configuration.md), a
// *netproto.Error its JSON-RPC error, an *jsonrpc.Error passes unchanged.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) error
}

// ToolPolicy is implemented by Approvers that decide per tool. The server asks
// it which read-only tools need approval and which tools accept the
// approval arguments (approvalToken, consent) in their input schema.
type ToolPolicy interface {
	// Needs reports whether a call of tool needs approval; write tells
	// whether the call changes state.
	Needs(tool string, write bool) bool
}

// ApprovalRequest describes one call waiting for its approval.
type ApprovalRequest struct {
	// Session identifies the MCP session asking.
	Session string
	// User is the caller's identity ("jwt:alice"), or the session's user
	// without an access-control layer. Pending approvals are pooled per User.
	User string
	// Role lists the caller's roles, comma-separated, for the operator.
	Role string
	// Tool is the tool name as the draft spells it ("network.commit"), or
	// "resources/write" for a resource write.
	Tool string
	// Arguments are the call's arguments exactly as received (approval
	// evidence included; defaults not applied), so that a signed consent
	// covers what the client sent.
	Arguments json.RawMessage
	// Write tells whether the call changes state.
	Write bool
	// Summary tells a human what will change: the candidate diff, the
	// confirmed-commit rollback window, or the file written.
	Summary string
	// RollbackWindow is the confirmed-commit window in seconds (0: none).
	RollbackWindow int
	// Device is the name of the device, to which a signed consent must be
	// bound.
	Device string
	// Binding is a digest of the state the call acts on beyond its
	// arguments: for network.commit the SHA-256 of the candidate whose diff
	// Summary shows. An approval given for one Binding is refused for
	// another (see approval.Request.Binding).
	Binding string
	// MCPSession is the session itself, for Approvers that ask the operator
	// through MCP elicitation. It may be nil (e.g. in unit tests).
	MCPSession *mcp.ServerSession
}

// ApproverFunc adapts a function to the Approver interface.
type ApproverFunc func(ctx context.Context, req ApprovalRequest) error

// Approve implements Approver.
func (f ApproverFunc) Approve(ctx context.Context, req ApprovalRequest) error { return f(ctx, req) }

// AllowAll approves every call without asking anyone. It exists for tests
// of other layers and for deployments that enforce approval elsewhere; it
// must be chosen explicitly (Options.Approver). New's default is
// NewMCPApprover(approval.New(approval.Options{})): every write needs
// approval.
var AllowAll Approver = ApproverFunc(func(context.Context, ApprovalRequest) error { return nil })
