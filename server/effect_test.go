package server_test

import (
	"context"
	"encoding/json"
	"maps"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
)

// callApproved calls a state-changing tool, then repeats it with the
// approval token it was given, and returns the final structured result.
func callApproved(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) map[string]any {
	t.Helper()
	var out map[string]any
	for range 2 {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s %v: %v", tool, args, err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		out = map[string]any{}
		_ = json.Unmarshal(b, &out)
		tok, ok := out["approvalToken"].(string)
		if !ok {
			return out
		}
		args = maps.Clone(args)
		args["approvalToken"] = tok
	}
	t.Fatalf("%s: still asks for approval after its token: %v", tool, out)
	return nil
}

// TestRollbackAuthorizedByEffect: after an admin changes the admin
// password, an operator may not roll that change back (it would restore a
// secret leaf), but may roll back a change of ordinary leaves (writes
// are decided by the leaves they change, whatever the tool).
func TestRollbackAuthorizedByEffect(t *testing.T) {
	env := newSecEnv(t, envConfig{file: matrixPolicy})
	admin, _ := env.session(env.token("ada", "", time.Hour), nil)
	operator, _ := env.session(env.token("otto", "", time.Hour), nil)
	pw := map[string]any{"edit": []any{map[string]any{
		"path": "/openconfig-system:system/aaa/authentication/users/user[username='admin']/config/password", "value": "N3w-Adm1n-pw"}}}
	callApproved(t, admin, netproto.ToolYangEdit, pw)
	if r := callApproved(t, admin, netproto.ToolCommit, map[string]any{"comment": "rotate the admin password"}); r["status"] == nil {
		t.Fatalf("commit: %v", r)
	}
	_, err := callTool(operator, netproto.ToolRollback, map[string]any{})
	if rpcCode(err) != int64(netproto.CodeAccessDenied) {
		t.Fatalf("operator's rollback of a password change: %v, want -32083", err)
	}
	// A change of the hostname only: the operator may roll it back.
	host := map[string]any{"edit": []any{map[string]any{"path": "/openconfig-system:system/config/hostname", "value": "r1-renamed"}}}
	callApproved(t, admin, netproto.ToolYangEdit, host)
	callApproved(t, admin, netproto.ToolCommit, map[string]any{})
	if r := callApproved(t, operator, netproto.ToolRollback, map[string]any{}); r["status"] != "rolled-back" {
		t.Fatalf("operator's rollback of a hostname change: %v", r)
	}
}
