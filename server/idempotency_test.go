package server_test

import (
	"encoding/json"
	"testing"

	"github.com/netmcp/netmcp/approval"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/server/servertest"
)

// TestIdempotentCommitRetry: a commit sent again with the same idempotency
// key (a new JSON-RPC id, as after a broken stream) gets the first result,
// marked as a replay, and the device commits once; the key with other
// arguments is refused; another server with the same state directory
// knows the key too. With approval over input_required, the retry that
// carried the operator's answer, sent twice, is answered from the record
// instead of being refused as a replay.
func TestIdempotentCommitRetry(t *testing.T) {
	dir := t.TempDir()
	drv := servertest.New()
	c := &rawClient{t: t, url: serveHTTP(t, newHandleServer(t, drv, server.Options{StateDir: dir}))}
	c2 := &rawClient{t: t, url: serveHTTP(t, newHandleServer(t, servertest.New(), server.Options{StateDir: dir}))}

	h := c.call(netproto.ToolYangEdit, `{"edit":[{"path":"/a","value":1}]}`)["handle"].(string)
	commit := `{"name":"` + netproto.ToolCommit + `","arguments":` + withHandle(`{"comment":"once"}`, h) + `}`
	key := `"netmcp/idempotencyKey":"commit-7f3a"`
	first := c.send("tools/call", commit, key)
	if first.Error != nil || first.structured()["status"] != "committed" {
		t.Fatalf("first commit: %+v %v", first.Error, first.Result)
	}
	again := c.send("tools/call", commit, key)
	if again.Error != nil {
		t.Fatalf("commit sent again: %+v", again.Error)
	}
	if a, b := again.structured()["commit-id"], first.structured()["commit-id"]; a != b {
		t.Errorf("commit sent again answered commit-id %v, want the first's %v", a, b)
	}
	if meta, _ := again.Result["_meta"].(map[string]any); meta[server.MetaIdempotentReplay] != true {
		t.Errorf("replayed result's _meta %v lacks %s", again.Result["_meta"], server.MetaIdempotentReplay)
	}
	if hist, _ := drv.History(t.Context()); len(hist) != 1 {
		t.Fatalf("%d commits after the commit was sent twice, want 1", len(hist))
	}
	// The key is known to another copy of the server.
	if r := c2.send("tools/call", commit, key); r.Error != nil || r.structured()["commit-id"] != first.structured()["commit-id"] {
		t.Fatalf("commit sent again to another server: %+v %v", r.Error, r.Result)
	}
	// The same key with other arguments.
	other := `{"name":"` + netproto.ToolCommit + `","arguments":` + withHandle(`{"comment":"twice"}`, h) + `}`
	if r := c.send("tools/call", other, key); r.Error == nil || r.Error.Code != -32602 {
		t.Fatalf("same key, other arguments: %+v %v, want -32602", r.Error, r.Result)
	}
	// A key that is not printable ASCII.
	if r := c.send("tools/call", other, `"netmcp/idempotencyKey":"a b"`); r.Error == nil || r.Error.Code != -32602 {
		t.Fatalf("bad key: %+v, want -32602", r.Error)
	}
	if hist, _ := drv.History(t.Context()); len(hist) != 1 {
		t.Fatalf("%d commits, want 1", len(hist))
	}

	// Approval over input_required, then the answered retry sent twice.
	drv3 := servertest.New()
	gate := server.NewMCPApprover(approval.New(approval.Options{StateDir: t.TempDir()}), nil)
	c3 := &rawClient{t: t, url: serveHTTP(t, newHandleServer(t, drv3, server.Options{StateDir: t.TempDir(), Approver: gate})),
		caps: `{"elicitation":{"form":{}}}`}
	edit := `{"name":"` + netproto.ToolYangEdit + `","arguments":{"edit":[{"path":"/a","value":1}]}`
	key = `"netmcp/idempotencyKey":"edit-1"`
	r := c3.send("tools/call", edit+`}`, key)
	if r.Result["resultType"] != "input_required" {
		t.Fatalf("first call: %+v %v", r.Error, r.Result)
	}
	st, _ := json.Marshal(r.Result["requestState"])
	answered := edit + `,"inputResponses":{"netmcp-approval":{"action":"accept","content":{"approve":true}}},"requestState":` + string(st) + `}`
	r1 := c3.send("tools/call", answered, key)
	r2 := c3.send("tools/call", answered, key)
	if r1.Error != nil || r2.Error != nil || r1.structured()["handle"] == nil || r2.structured()["handle"] != r1.structured()["handle"] {
		t.Fatalf("answered retry sent twice: %+v %v / %+v %v, want the same result", r1.Error, r1.Result, r2.Error, r2.Result)
	}
	d, _ := drv3.Diff(t.Context(), deviceOwner())
	if len(d.Changes) != 1 {
		t.Fatalf("%d changes after the answered retry was sent twice, want 1", len(d.Changes))
	}
}
