package server_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
)

// TestCommitHistoryNamesApprover: a commit approved through elicitation
// by a proxy that names its own caller (the controller, the web console)
// is recorded in the commit history with that approver; one answered
// without a name, or approved otherwise, keeps its comment as given.
// Both ways of asking are checked: elicitation/create (protocol
// 2025-11-25) and the answer of a repeated call (2026-07-28).
func TestCommitHistoryNamesApprover(t *testing.T) {
	for _, version := range []string{"2025-11-25", ""} {
		t.Run("protocol "+version, func(t *testing.T) { testCommitHistoryNamesApprover(t, version) })
	}
}

func testCommitHistoryNamesApprover(t *testing.T, version string) {
	e := newSim(t, "", server.Options{})
	var by atomic.Value
	by.Store("mtls:alice")
	ct, st := mcp.NewInMemoryTransports()
	if _, err := e.srv.MCP().Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "proxy", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			res := &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}
			if who := by.Load().(string); who != "" {
				res.Meta = mcp.Meta{netproto.MetaAnsweredBy: who}
			}
			return res, nil
		}}).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	for _, c := range []struct {
		by, comment, want string
	}{
		{"mtls:alice", "set by jwt:bob", "set by jwt:bob (approved by mtls:alice)"},
		{"console:carol", "", "approved by console:carol"},
		{"", "plain", "plain"},
		{"bad\nname", "odd", "odd"}, // not a printable name: not recorded
	} {
		by.Store(c.by)
		mustOK(t, cs, netproto.ToolYangEdit, loopEdit("approver "+c.comment))
		args := map[string]any{}
		if c.comment != "" {
			args["comment"] = c.comment
		}
		mustOK(t, cs, netproto.ToolCommit, args)
		if got := history(t, cs)[0].Comment; got != c.want {
			t.Errorf("answered by %q, comment %q: history says %q, want %q", c.by, c.comment, got, c.want)
		}
	}
}
