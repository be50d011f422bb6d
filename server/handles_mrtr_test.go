package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/approval"
	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/server/servertest"
)

// TestMRTRApprovalGoSDK: the official Go SDK client in its default mode
// speaks 2026-07-28 over HTTP; a write that needs the operator's approval
// answers input_required with the prompt, the SDK asks its elicitation
// handler and repeats the call with inputResponses, and the change is
// applied once. A declined answer changes nothing.
func TestMRTRApprovalGoSDK(t *testing.T) {
	dir := t.TempDir()
	drv := servertest.New()
	gate := server.NewMCPApprover(approval.New(approval.Options{StateDir: dir}), nil)
	url := serveHTTP(t, newHandleServer(t, drv, server.Options{StateDir: dir, Approver: gate}))

	var asked atomic.Int32
	var answer atomic.Value
	answer.Store("accept")
	var prompts []string
	client := mcp.NewClient(&mcp.Implementation{Name: "mrtr-test", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			prompts = append(prompts, req.Params.Message)
			return &mcp.ElicitResult{Action: answer.Load().(string), Content: map[string]any{"approve": true}}, nil
		},
	})
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("the SDK negotiated %s, want 2026-07-28", v)
	}
	call := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if res.IsError {
			b, _ := json.Marshal(res.Content)
			t.Fatalf("%s: tool error %s", tool, b)
		}
		m, _ := res.StructuredContent.(map[string]any)
		return m
	}

	edit := map[string]any{"edit": []any{map[string]any{"path": "/a", "value": 1}}}
	h, _ := call(netproto.ToolYangEdit, edit)["handle"].(string)
	if h == "" || asked.Load() != 1 {
		t.Fatalf("edit: handle %q after %d questions, want a handle after 1", h, asked.Load())
	}
	if !strings.Contains(prompts[0], "/a") {
		t.Errorf("the operator was asked %q, which does not show the change", prompts[0])
	}
	if r := call(netproto.ToolCommit, map[string]any{"handle": h}); r["status"] != "committed" || asked.Load() != 2 {
		t.Fatalf("commit: %v after %d questions", r, asked.Load())
	}
	if hist, _ := drv.History(t.Context()); len(hist) != 1 {
		t.Fatalf("%d commits, want 1", len(hist))
	}

	answer.Store("decline")
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: netproto.ToolYangEdit, Arguments: edit})
	if err == nil && !res.IsError {
		t.Fatalf("declined edit applied: %v", res.StructuredContent)
	}
	if got := drv.Locker(); got != "" {
		t.Errorf("candidate locked by %q after a declined edit", got)
	}
}

// TestMRTRApprovalRaw follows the multi round-trip rules on the wire: the
// first call answers resultType input_required with the prompt and a
// requestState and changes nothing; the retry (a new JSON-RPC id) with
// inputResponses applies the change; the same retry sent again (the
// handler runs twice) is refused as a replay and changes nothing; the
// answer does not cover other arguments; and another copy of the server
// with the same state directory honours a request state the first issued.
func TestMRTRApprovalRaw(t *testing.T) {
	dir := t.TempDir()
	drv1, drv2 := servertest.New(), servertest.New()
	newSrv := func(drv *servertest.Device) string {
		gate := server.NewMCPApprover(approval.New(approval.Options{StateDir: dir}), nil)
		return serveHTTP(t, newHandleServer(t, drv, server.Options{StateDir: dir, Approver: gate}))
	}
	caps := `{"elicitation":{"form":{}}}`
	c1 := &rawClient{t: t, url: newSrv(drv1), caps: caps}
	c2 := &rawClient{t: t, url: newSrv(drv2), caps: caps}

	edit := `{"edit":[{"path":"/a","value":1}]}`
	ask := func(c *rawClient, args string) string {
		t.Helper()
		r := c.send("tools/call", `{"name":"`+netproto.ToolYangEdit+`","arguments":`+args+`}`, "")
		if r.Error != nil || r.Result["resultType"] != "input_required" {
			t.Fatalf("first call: %+v %v, want resultType input_required", r.Error, r.Result)
		}
		reqs, _ := r.Result["inputRequests"].(map[string]any)
		q, _ := reqs["netmcp-approval"].(map[string]any)
		params, _ := q["params"].(map[string]any)
		if q["method"] != "elicitation/create" || !strings.Contains(params["message"].(string), "/a") {
			t.Fatalf("inputRequests %v, want an elicitation showing the change", reqs)
		}
		state, _ := r.Result["requestState"].(string)
		if state == "" {
			t.Fatal("input_required without requestState")
		}
		return state
	}
	retry := func(c *rawClient, args, state string) rawReply {
		st, _ := json.Marshal(state)
		return c.send("tools/call", `{"name":"`+netproto.ToolYangEdit+`","arguments":`+args+
			`,"inputResponses":{"netmcp-approval":{"action":"accept","content":{"approve":true}}},"requestState":`+string(st)+`}`, "")
	}
	changes := func(drv *servertest.Device) int {
		d, _ := drv.Diff(t.Context(), device.Owner{})
		return len(d.Changes)
	}

	state := ask(c1, edit)
	if changes(drv1) != 0 || drv1.Locker() != "" {
		t.Fatal("the first call changed the candidate before the answer")
	}
	r := retry(c1, edit, state)
	if r.Error != nil || r.Result["resultType"] != "complete" || r.structured()["handle"] == nil {
		t.Fatalf("retry with the answer: %+v %v", r.Error, r.Result)
	}
	if changes(drv1) != 1 {
		t.Fatalf("%d changes after the approved retry, want 1", changes(drv1))
	}
	r = retry(c1, edit, state)
	if !refused(r, "already used") || changes(drv1) != 1 {
		t.Fatalf("the retry sent again: %+v %v (%d changes), want a replay refusal and 1 change", r.Error, r.Result, changes(drv1))
	}
	state = ask(c1, edit)
	if r := retry(c1, `{"edit":[{"path":"/b","value":2}]}`, state); !refused(r, "other arguments") {
		t.Fatalf("answer used for other arguments: %+v %v", r.Error, r.Result)
	}

	// Another copy of the server (same state directory) honours it once.
	state = ask(c1, edit)
	if r := retry(c2, edit, state); r.Error != nil || r.Result["isError"] == true {
		t.Fatalf("retry on the second server: %+v %v", r.Error, r.Result)
	}
	if changes(drv2) != 1 {
		t.Fatalf("second server: %d changes, want 1", changes(drv2))
	}
	if r := retry(c1, edit, state); !refused(r, "already used") {
		t.Fatalf("the answer used on the second server was honoured again by the first: %+v %v", r.Error, r.Result)
	}
}

// refused reports whether r is an access-denied refusal naming want.
func refused(r rawReply, want string) bool {
	if r.Error != nil {
		d, _ := r.Error.Data["detail"].(string)
		return r.Error.Code == netproto.CodeAccessDenied && strings.Contains(r.Error.Message+d, want)
	}
	b, _ := json.Marshal(r.Result)
	return r.Result["isError"] == true && strings.Contains(string(b), want)
}

// deviceOwner is an owner for the fake device, whose Diff ignores it.
func deviceOwner() device.Owner { return device.Owner{} }
