package server

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
)

// URIHandles is the resource listing the caller's live handles (a netmcp
// addition to MCP-NET 5.1): what each holds, on which device, for whom and
// until when. Only the caller's own handles are listed, and never a token:
// the server keeps none, only their digests.
const URIHandles = "network:///handles"

// Kinds of a handle in URIHandles.
const (
	HandleKindCandidate = "candidate" // a candidate and its lock
	HandleKindUpload    = "upload"    // a chunked network.file.push in progress
)

// handleInfo is one handle in URIHandles.
type handleInfo struct {
	// ID is the handle's owner name on the device (the candidate lock
	// holder and the commit history's session): "h-" and 12 hex digits of
	// the token's digest, not the token.
	ID       string `json:"id"`
	Kind     string `json:"kind"`
	Device   string `json:"device"`
	Identity string `json:"identity"`
	Created  string `json:"created"`
	Expires  string `json:"expires"`
	// Changes counts the candidate's changes since the last commit.
	Changes int `json:"changes"`
	// Upload names the file a chunked push writes, and its size so far.
	Upload *handleUploadInfo `json:"upload,omitempty"`
}

// handleUploadInfo is a chunked upload in URIHandles.
type handleUploadInfo struct {
	Name     string `json:"name"`
	Received int    `json:"received"`
}

// handlesContents is the JSON of URIHandles.
type handlesContents struct {
	Handles []handleInfo `json:"handles"`
}

// list returns the records that have not expired at now.
func (hs *handleStore) list(now time.Time) []*handleRecord {
	var out []*handleRecord
	for _, key := range hs.recs.keys() {
		if r, err := hs.load(key); err == nil && r != nil && now.Before(r.Expires) {
			out = append(out, r)
		}
	}
	return out
}

// addHandleResources lists URIHandles on a configurable device;
// wireMiddleware serves its reads through Server.read.
func (s *Server) addHandleResources() {
	if s.cfg == nil && s.files == nil {
		return
	}
	s.mcp.AddResource(&mcp.Resource{URI: URIHandles, Name: "handles", MIMEType: netproto.MIMEJSON,
		Description: "Your live handles (protocol 2026-07-28 over HTTP), oldest first: id (the lock holder and commit history session, not the token), kind (candidate or upload), device, identity, created, expires, changes since the last commit. Other callers' handles are not listed.",
		Meta:        mcp.Meta{"readOnly": true}},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			res, err := s.readHandles(ctx)
			if err != nil {
				return nil, err
			}
			return res.ReadResourceResult, nil
		})
}

// readHandles reads URIHandles: the caller's handles only.
func (s *Server) readHandles(ctx context.Context) (*readResult, error) {
	now := time.Now()
	s.expireHandles(now)
	who := s.callIdentity(ctx)
	out := handlesContents{Handles: []handleInfo{}}
	for _, r := range s.handles.list(now) {
		if r.Identity != who {
			continue
		}
		hi := handleInfo{ID: r.Owner.Session, Kind: HandleKindCandidate, Device: s.info.Name, Identity: r.Identity,
			Created: r.Created.Format(time.RFC3339), Expires: r.Expires.Format(time.RFC3339), Changes: len(r.Ops)}
		if r.Upload != nil {
			hi.Kind = HandleKindUpload
			hi.Upload = &handleUploadInfo{Name: r.Upload.Name, Received: r.Upload.Size}
		}
		out.Handles = append(out.Handles, hi)
	}
	slices.SortFunc(out.Handles, func(a, b handleInfo) int {
		return strings.Compare(a.Created+a.ID, b.Created+b.ID)
	})
	return s.jsonResult(URIHandles, netproto.MIMEJSON, out, nil, mcp.Meta{}, "")
}
