package server

import (
	"context"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
)

// URICommitHistory is the commit history resource (a netmcp addition to
// MCP-NET 5.1): the ids network.rollback accepts, with who, when, comment
// and status of every commit, newest first.
const URICommitHistory = "network:///config/history"

// URICommitTemplate is what one commit of the history changed (a netmcp
// addition): its entry and the diff from the configuration before it.
// URICommitPrefix is the template's fixed part.
const (
	URICommitTemplate = "network:///config/history/{id}"
	URICommitPrefix   = "network:///config/history/"
)

// commitContents is the JSON of URICommitTemplate.
type commitContents struct {
	Commit  device.CommitInfo `json:"commit"`
	Diff    string            `json:"diff"`
	Changes []device.Change   `json:"changes"`
}

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
	if _, ok := s.drv.(device.CommitDiffer); ok {
		s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: URICommitTemplate, Name: "commit", MIMEType: netproto.MIMEJSON,
			Description: "What one commit of the history changed: its history entry, and a unified diff (with the changed nodes) from the configuration running before it. Secrets masked.",
			Meta:        mcp.Meta{"readOnly": true}},
			func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				res, err := s.readCommit(ctx, req.Params.URI)
				if err != nil {
					return nil, err
				}
				return res.ReadResourceResult, nil
			})
	}
}

// readCommit reads URICommitTemplate.
func (s *Server) readCommit(ctx context.Context, uri string) (*readResult, error) {
	differ, ok := s.drv.(device.CommitDiffer)
	if !ok {
		return nil, invalidParams("this device keeps no configuration per commit: %s is not served", URICommitTemplate)
	}
	id, err := url.PathUnescape(strings.TrimPrefix(uri, URICommitPrefix))
	if err != nil || id == "" {
		return nil, invalidParams("bad commit id in %s (see %s)", uri, URICommitHistory)
	}
	hist, err := s.cfg.History(ctx)
	if err != nil {
		return nil, rpc(err)
	}
	i := slices.IndexFunc(hist, func(c device.CommitInfo) bool { return c.ID == id })
	if i < 0 {
		return nil, invalidParams("unknown commit id %q (see %s)", id, URICommitHistory)
	}
	d, err := differ.CommitDiff(ctx, id)
	if err != nil {
		return nil, rpc(err)
	}
	return s.jsonResult(uri, netproto.MIMEJSON, commitContents{Commit: hist[i], Diff: d.Unified, Changes: nonNil(d.Changes)}, nil, mcp.Meta{}, "")
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
