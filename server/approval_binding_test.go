package server_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/approval"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
)

// A commit token approves the candidate whose diff it showed: after a
// further edit it is refused and nothing is committed.
func TestCommitTokenBoundToCandidate(t *testing.T) {
	e := newSim(t, "", server.Options{})
	cs := e.dial(t, nil)
	edit := func(desc string) {
		t.Helper()
		ar := needApproval(t, cs, netproto.ToolYangEdit, loopEdit(desc))
		mustOK(t, cs, netproto.ToolYangEdit, withToken(loopEdit(desc), ar.ApprovalToken))
	}
	vlan := fmt.Sprintf(pathVLAN, 42)
	edit("change A")
	ar := needApproval(t, cs, netproto.ToolCommit, `{"comment":"A"}`)
	// Change B after the approval was asked for.
	vlanEdit := `{"edit":[{"path":"` + vlan + `","value":{"vlan-id":42,"config":{"vlan-id":42,"name":"B"}}}]}`
	br := needApproval(t, cs, netproto.ToolYangEdit, vlanEdit)
	mustOK(t, cs, netproto.ToolYangEdit, withToken(vlanEdit, br.ApprovalToken))

	_, err := toolCall(t, cs, netproto.ToolCommit, withToken(`{"comment":"A"}`, ar.ApprovalToken))
	wantCode(t, err, netproto.CodeAccessDenied, "the candidate changed since this approval was given")
	if e.running(t, pathLo100) != nil || e.running(t, vlan) != nil {
		t.Fatal("a stale commit token committed the candidate")
	}
	// A secret-free but different value that the masked diff would hide
	// changes the binding too: edit the description only.
	ar = needApproval(t, cs, netproto.ToolCommit, `{"comment":"A+B"}`)
	edit("change A'")
	_, err = toolCall(t, cs, netproto.ToolCommit, withToken(`{"comment":"A+B"}`, ar.ApprovalToken))
	wantCode(t, err, netproto.CodeAccessDenied, "candidate changed")
	// A fresh approval of the current candidate commits it.
	ar = needApproval(t, cs, netproto.ToolCommit, `{"comment":"A+B"}`)
	if out := mustOK(t, cs, netproto.ToolCommit, withToken(`{"comment":"A+B"}`, ar.ApprovalToken)); out["status"] != "committed" {
		t.Fatalf("commit: %v", out)
	}
	if e.running(t, pathLo100) == nil || e.running(t, vlan) == nil {
		t.Fatal("the approved candidate was not committed")
	}
}

// Invalid changes and changes that meet another session's lock are refused
// with their own codes before anyone is asked to approve them.
func TestChangeCheckedBeforeApproval(t *testing.T) {
	e := newSim(t, "", server.Options{})
	var mu sync.Mutex
	asked := 0
	elicit := &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		defer mu.Unlock()
		asked++
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	}}
	holder, other := e.dial(t, elicit), e.dial(t, elicit)
	tokenClient := e.dial(t, nil)
	vlan4095 := `{"edit":[{"path":"` + fmt.Sprintf(pathVLAN, 4095) + `","value":{"vlan-id":4095,"config":{"vlan-id":4095}}}]}`
	tests := []struct {
		name string
		cs   *mcp.ClientSession
		tool string
		args string
		code int64
		want string
	}{
		{"VLAN 4095", other, netproto.ToolYangEdit, vlan4095, netproto.CodeConfigIncompatible, "4095"},
		{"VLAN 4095, token client", tokenClient, netproto.ToolYangEdit, vlan4095, netproto.CodeConfigIncompatible, "4095"},
		{"bad mtu", other, netproto.ToolYangEdit, `{"edit":[{"path":"` + pathGE0 + `/config/mtu","value":"big"}]}`, netproto.CodeYangSyntaxError, "mtu"},
		{"bad CLI", other, netproto.ToolCLIConfigure, `{"lines":"interface GigabitEthernet0/0/0\nmtu 99999"}`, netproto.CodeConfigIncompatible, ""},
		{"locked edit", other, netproto.ToolYangEdit, loopEdit("other"), netproto.CodeAccessDenied, "locked by"},
		{"locked CLI", other, netproto.ToolCLIConfigure, `{"lines":"sysname other"}`, netproto.CodeAccessDenied, "locked by"},
		{"locked commit", other, netproto.ToolCommit, `{}`, netproto.CodeAccessDenied, "locked by"},
		{"locked commit, token client", tokenClient, netproto.ToolCommit, `{"confirmed":60}`, netproto.CodeAccessDenied, "locked by"},
	}
	for i, tt := range tests {
		if i == 4 {
			// From here on, the holder's candidate is locked.
			mustOK(t, holder, netproto.ToolYangEdit, loopEdit("holder"))
			mu.Lock()
			asked = 0
			mu.Unlock()
		}
		res, err := toolCall(t, tt.cs, tt.tool, tt.args)
		if err == nil {
			t.Errorf("%s: result %v, want error %d", tt.name, structured(t, res), tt.code)
			continue
		}
		wantCode(t, err, tt.code, tt.want)
		mu.Lock()
		n := asked
		mu.Unlock()
		if n != 0 {
			t.Errorf("%s: the operator was asked %d times to approve a change that cannot apply", tt.name, n)
		}
	}
}

// A signed consent is used once, even across a restart of the server, and
// only on the device it names.
func TestConsentNotReplayable(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	stateDir := t.TempDir()
	gate := func() server.Approver {
		g, err := approval.Open(approval.Options{StateDir: stateDir,
			TrustedKeys: map[string]ed25519.PublicKey{"alice": pub}})
		if err != nil {
			t.Fatal(err)
		}
		return server.NewMCPApprover(g, nil)
	}
	edit := loopEdit("consented")
	sign := func(device, nonce string) string {
		c := approval.Consent{Tool: netproto.ToolYangEdit, Parameters: json.RawMessage(edit), User: "alice",
			Timestamp: time.Now(), Expires: time.Now().Add(2 * time.Minute), Nonce: nonce, Device: device}
		b, err := c.Sign("alice", priv)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSuffix(edit, "}") + `,"consent":` + string(b) + `}`
	}
	withConsent := sign("r1", "n-1")

	e := newSim(t, "", server.Options{Approver: gate()})
	first := e.dial(t, nil)
	mustOK(t, first, netproto.ToolYangEdit, withConsent)
	first.Close() // releases the candidate lock, asynchronously

	// The same device served again by a new process: same state directory.
	r1, err := e.lab.Device("r1")
	if err != nil {
		t.Fatal(err)
	}
	restarted, err := server.New(r1, server.Options{Approver: gate(), User: "tester"})
	if err != nil {
		t.Fatal(err)
	}
	defer restarted.Close()
	cs := dialServer(t, restarted)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, err = toolCall(t, cs, netproto.ToolYangEdit, withConsent)
		var je *jsonrpc.Error
		if !errors.As(err, &je) || !strings.Contains(string(je.Data), "locked by") || time.Now().After(deadline) {
			break
		}
	}
	wantCode(t, err, netproto.CodeAccessDenied, "already used (replay)")

	// A second device refuses a consent made for r1, even a fresh one.
	r2, err := e.lab.Device("r2")
	if err != nil {
		t.Fatal(err)
	}
	other, err := server.New(r2, server.Options{Approver: gate(), User: "tester"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	_, err = toolCall(t, dialServer(t, other), netproto.ToolYangEdit, sign("r1", "n-2"))
	wantCode(t, err, netproto.CodeAccessDenied, `consent is for device "r1"`)
}

// dialServer opens an in-memory client session to srv.
func dialServer(t testing.TB, srv *server.Server) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
