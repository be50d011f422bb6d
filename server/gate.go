package server

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Gate approves or refuses a state-changing call. Every such call
// (network.cli.configure, network.yang.edit, network.commit,
// network.rollback, network.file.push, resources/write) passes through
// Server.approve and so through exactly one Gate. A non-nil error refuses
// the call and is returned to the client as is (a *netproto.Error becomes
// its JSON-RPC error; an *jsonrpc.Error passes unchanged).
type Gate interface {
	Approve(ctx context.Context, req ApprovalRequest) error
}

// ApprovalRequest describes one state-changing call.
type ApprovalRequest struct {
	// Session identifies the MCP session asking.
	Session string
	// Tool is the tool name as the draft spells it ("network.commit"), or
	// "resources/write" for a resource write.
	Tool string
	// Arguments are the call's arguments as received.
	Arguments json.RawMessage
	// Summary tells a human what will change: the candidate diff, the
	// confirmed-commit rollback window, or the file written.
	Summary string
	// MCPSession is the session itself, for gates that ask the operator
	// through MCP elicitation. It may be nil (e.g. in unit tests).
	MCPSession *mcp.ServerSession
}

// GateFunc adapts a function to the Gate interface.
type GateFunc func(ctx context.Context, req ApprovalRequest) error

// Approve implements Gate.
func (f GateFunc) Approve(ctx context.Context, req ApprovalRequest) error { return f(ctx, req) }

// AllowAll approves every call. It is TEMPORARY: New uses it only when
// Options.Gate is nil, until the approval mechanism (elicitation,
// single-use tokens, signed consent) is wired in. Do not rely on it in a
// deployment; pass a real Gate, or Options.ReadOnly to refuse all writes.
var AllowAll Gate = GateFunc(func(context.Context, ApprovalRequest) error { return nil })
