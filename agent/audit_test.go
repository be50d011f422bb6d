package agent

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/netproto"
)

func auditRecords(t *testing.T, path string) []audit.Record {
	t.Helper()
	recs, err := audit.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestAuditTrail: every D2D call lands in the audit logs, the callee's
// (allowed and refused, under the caller's identity) and the caller's
// (outbound, "PEER:TOOL"), and both chains verify.
func TestAuditTrail(t *testing.T) {
	d := newDomain(t, domainOpts{audit: true})
	ctx := context.Background()
	a := d.agents["r1"]
	a.Discover(ctx)
	if _, err := a.Call(ctx, "r2", netproto.ToolYangGet, map[string]any{"path": countersPath}); err != nil {
		t.Fatal(err)
	}
	p, _ := a.Connect(ctx, "r2")
	p.Session().CallTool(ctx, &mcp.CallToolParams{Name: netproto.ToolCommit, Arguments: map[string]any{}})

	var ok, refused bool
	for _, r := range auditRecords(t, d.auditPath["r2"]) {
		if r.Identity != "r1" || r.Method != "tools/call" {
			continue
		}
		switch {
		case r.Tool == netproto.ToolYangGet && r.Outcome == audit.OutcomeOK:
			ok = true
		case r.Tool == netproto.ToolCommit && r.Outcome == audit.OutcomeError && r.ErrorCode == netproto.CodeAccessDenied:
			refused = true
		}
	}
	if !ok || !refused {
		t.Fatalf("r2's audit: allowed call %v, refused write %v", ok, refused)
	}
	var out bool
	for _, r := range auditRecords(t, d.auditPath["r1"]) {
		if r.Identity == "r1" && r.Tool == "r2:"+netproto.ToolYangGet && r.Outcome == audit.OutcomeOK {
			out = true
		}
	}
	if !out {
		t.Fatal("r1's audit has no outbound record")
	}
	for _, n := range []string{"r1", "r2"} {
		if _, err := audit.Verify(d.auditPath[n]); err != nil {
			t.Fatalf("%s's audit chain: %v", n, err)
		}
	}
}
