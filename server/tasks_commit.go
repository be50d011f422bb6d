package server

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
)

// A confirmed commit (network.commit with "confirmed") from a client that
// declares the Tasks extension runs as a task that stays working through
// the rollback window: until the commit is confirmed, cancelled or rolled
// back, which the commit history tells. Its result is the commit's, with
// the final status.

// windowPoll is how often a commit window task reads the commit history.
const windowPoll = 200 * time.Millisecond

// wantsWindowTask reports whether c is a confirmed commit to run as a task.
func wantsWindowTask(tool string, req *mcp.CallToolRequest, args json.RawMessage) bool {
	if tool != netproto.ToolCommit || !DeclaresTasks(req) {
		return false
	}
	var in struct {
		Confirmed any  `json:"confirmed"`
		DryRun    bool `json:"dryRun"`
	}
	if json.Unmarshal(args, &in) != nil || in.DryRun {
		return false
	}
	switch v := in.Confirmed.(type) {
	case bool:
		return v
	case float64:
		return v > 0
	}
	return false
}

// awaitWindow waits, after a confirmed commit answered res, for the end of
// its rollback window and returns res with the commit's final status.
func (s *Server) awaitWindow(ctx context.Context, res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return res, nil
	}
	var out map[string]any
	if json.Unmarshal(b, &out) != nil {
		return res, nil
	}
	id, _ := out["commit-id"].(string)
	if out["status"] != device.StatusCommitted || id == "" {
		return res, nil
	}
	secs, _ := out["rollbackTimeout"].(float64)
	when := fmt.Sprintf("within %v s", secs)
	if dl, ok := out["deadline"].(string); ok {
		when = "before " + dl
	}
	TaskProgress(ctx, fmt.Sprintf("commit %s applied; confirm it with {\"confirm\":true} %s or it is rolled back", id, when))
	tick := time.NewTicker(windowPoll)
	defer tick.Stop()
	// A device whose history does not tell the end of the window ends the
	// task a minute after the window, with the commit's first result.
	limit := time.NewTimer(time.Duration(secs)*time.Second + time.Minute)
	defer limit.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-limit.C:
			return res, nil
		case <-tick.C:
		}
		hist, err := s.cfg.History(ctx)
		if err != nil {
			continue
		}
		for _, h := range hist {
			if h.ID != id || h.Status == device.StatusCommitted {
				continue
			}
			out["status"] = h.Status
			b, err := marshal(out)
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}, nil
		}
	}
}

// startWindowTask runs the confirmed commit c as a task that ends with its
// rollback window.
func (s *Server) startWindowTask(ctx context.Context, d toolDef, c *call) (*mcp.CallToolResult, error) {
	return s.startTaskWith(ctx, d, c, func(ctx context.Context, res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
		if res.IsError || res.InputRequests != nil {
			return res, nil
		}
		return s.awaitWindow(ctx, res)
	})
}
