package server

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
)

// URICommitHistory is the commit history resource (a netmcp addition to
// MCP-NET 5.1): the ids network.rollback accepts, with who, when, comment
// and status of every commit, newest first.
const URICommitHistory = "network:///config/history"

// historyContents is the JSON of URICommitHistory.
type historyContents struct {
	Commits []device.CommitInfo `json:"commits"`
}

// addConfigResources lists the commit history of a configurable device;
// wireMiddleware serves its reads through Server.read.
func (s *Server) addConfigResources() {
	if s.cfg == nil {
		return
	}
	s.mcp.AddResource(&mcp.Resource{URI: URICommitHistory, Name: "commit-history", MIMEType: netproto.MIMEJSON,
		Description: "Commit history, newest first: commit-id (for network.rollback), time, user (the caller's identity), session (a handle of the session, not its id), comment, status (committed, confirmed, rolled-back...).",
		Meta:        mcp.Meta{"readOnly": true}},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			res, err := s.readHistory(ctx)
			if err != nil {
				return nil, err
			}
			return res.ReadResourceResult, nil
		})
}

// readHistory reads URICommitHistory.
func (s *Server) readHistory(ctx context.Context) (*readResult, error) {
	hist, err := s.cfg.History(ctx)
	if err != nil {
		return nil, rpc(err)
	}
	if hist == nil {
		hist = []device.CommitInfo{}
	}
	return s.jsonResult(URICommitHistory, netproto.MIMEJSON, historyContents{Commits: hist}, nil, mcp.Meta{}, "")
}
