package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
)

// One identity's approval requests cannot evict another's pending
// approval: 1100 refused commits of an operator leave an admin's token
// valid.
func TestApprovalPoolPerIdentity(t *testing.T) {
	e := newSecEnv(t, envConfig{file: matrixPolicy})
	admin, _ := e.session(e.token("ada", "", time.Hour), nil)
	flood, _ := e.session(e.token("otto", "", time.Hour), nil)
	ar := needApproval(t, admin, netproto.ToolYangEdit, loopEdit("admin's change"))
	for i := 0; i < 1100; i++ {
		res, err := toolCall(t, flood, netproto.ToolCommit, `{"comment":"flood"}`)
		if err != nil || !res.IsError {
			t.Fatalf("flood call %d: %v, want an approval-required result", i, err)
		}
	}
	mustOK(t, admin, netproto.ToolYangEdit, withToken(loopEdit("admin's change"), ar.ApprovalToken))
}

// Sessions are bounded per identity and overall; a refused initialize
// leaves no session state.
func TestSessionBounds(t *testing.T) {
	e := newSecEnv(t, envConfig{file: matrixPolicy})
	otto := e.token("otto", "", time.Hour)
	var mine []*mcp.ClientSession
	for i := 0; i < server.DefaultMaxSessionsPerIdentity; i++ {
		cs, _ := e.session(otto, nil)
		mine = append(mine, cs)
	}
	before := e.srv.Sessions()
	_, _, err := e.trySession(otto, nil)
	if want := fmt.Sprintf("jwt:otto has %d sessions open, the limit per identity", server.DefaultMaxSessionsPerIdentity); err == nil || !strings.Contains(errText(err), want) {
		t.Fatalf("65th session of one identity: %v, want the per-identity limit", err)
	}
	if n := e.srv.Sessions(); n != before {
		t.Fatalf("a refused initialize left session state: %d sessions, want %d", n, before)
	}
	// Another identity is not affected.
	ada, _ := e.session(e.token("ada", "", time.Hour), nil)
	if _, err := callTool(ada, netproto.ToolCLIExec, map[string]any{"cmd": "display version"}); err != nil {
		t.Fatal(err)
	}
	// Closing a session frees its place.
	mine[0].Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, _, err := e.trySession(otto, nil)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a closed session's place was not freed: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The overall bound holds for sessions without an identity too.
func TestSessionBoundOverall(t *testing.T) {
	e := newSim(t, "", server.Options{MaxSessions: 2})
	e.dial(t, nil)
	e.dial(t, nil)
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := e.srv.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	_, err := mcp.NewClient(&mcp.Implementation{Name: "third", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err == nil || !strings.Contains(errText(err), "2 sessions open, its limit") {
		t.Fatalf("third session: %v, want the server's session limit", err)
	}
}
