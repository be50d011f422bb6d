package server_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
)

// Other sessions' ids are never shown: the lock-conflict error and the
// commit history name a holder by identity and a handle, so a client of the
// same identity cannot learn another's session id and act on its candidate.
// The history and the approval prompt name the caller's identity, not the
// server's OS user.
func TestSessionIDsNotHandedOut(t *testing.T) {
	e := newSecEnv(t, envConfig{file: matrixPolicy})
	tok := e.token("otto", "", time.Hour)
	a, _ := e.session(tok, nil)
	b, _ := e.session(tok, nil)
	if a.ID() == "" || b.ID() == "" {
		t.Fatal("HTTP sessions without ids")
	}
	ar := needApproval(t, a, netproto.ToolYangEdit, loopEdit("half-done"))
	mustOK(t, a, netproto.ToolYangEdit, withToken(loopEdit("half-done"), ar.ApprovalToken))

	_, err := toolCall(t, b, netproto.ToolYangEdit, loopEdit("mine"))
	data := wantCode(t, err, netproto.CodeAccessDenied, "locked by session")
	holder, _ := data["holder"].(map[string]any)
	if got := errText(err); strings.Contains(got, a.ID()) {
		t.Fatalf("the lock error hands out the holder's session id: %s", got)
	}
	if holder["user"] != "jwt:otto" || holder["session"] == "" {
		t.Fatalf("holder %v: want the identity jwt:otto and a handle", holder)
	}
	if d, _ := data["detail"].(string); !strings.Contains(d, "jwt:otto") {
		t.Fatalf("detail %q does not name the holder's identity", d)
	}

	ar = needApproval(t, a, netproto.ToolCommit, `{"comment":"by otto"}`)
	mustOK(t, a, netproto.ToolCommit, withToken(`{"comment":"by otto"}`, ar.ApprovalToken))
	text, err := readResource(b, "network:///config/history", false)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text, a.ID()) || strings.Contains(text, b.ID()) {
		t.Fatalf("the commit history hands out session ids: %s", text)
	}
	var found bool
	for _, c := range history(t, b) {
		if c.Comment == "by otto" {
			found = true
			if c.User != "jwt:otto" || c.Session != holder["session"] {
				t.Fatalf("commit %+v: want user jwt:otto and the holder's handle %v", c, holder["session"])
			}
		}
	}
	if !found {
		t.Fatal("commit not in the history")
	}
}

// The operator's approval prompt names the caller's identity and role, not
// the server's OS user.
func TestApprovalPromptNamesCaller(t *testing.T) {
	e := newSim(t, "", server.Options{User: "root"})
	if _, err := e.srv.Secure(server.SecurityOptions{LocalUser: "alice"}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var prompt string
	cs := e.dial(t, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		defer mu.Unlock()
		prompt = req.Params.Message
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	}})
	mustOK(t, cs, netproto.ToolYangEdit, loopEdit("by alice"))
	mustOK(t, cs, netproto.ToolCommit, `{"comment":"alice's"}`)
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(prompt, "requested by stdio:alice (operator)") || strings.Contains(prompt, "root") {
		t.Fatalf("prompt does not name the caller:\n%s", prompt)
	}
	if h := history(t, cs); len(h) == 0 || h[0].User != "stdio:alice" {
		t.Fatalf("history %+v: want the commit by stdio:alice", h)
	}
}
