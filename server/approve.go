package server

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// approve is the one path of every state-changing call to the Gate. It
// refuses everything on a read-only server.
func (s *Server) approve(ctx context.Context, ss *mcp.ServerSession, tool string, args json.RawMessage, summary string) error {
	if s.opts.ReadOnly {
		return accessDenied(tool)
	}
	err := s.opts.Gate.Approve(ctx, ApprovalRequest{
		Session:    s.owner(ss).Session,
		Tool:       tool,
		Arguments:  args,
		Summary:    summary,
		MCPSession: ss,
	})
	if err != nil {
		s.log.Info("call refused by the approval gate", "tool", tool, "error", err)
		return rpc(err)
	}
	return nil
}
