package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/approval"
	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
)

// TestCommitWindowTask: a confirmed commit from a client that declares
// the Tasks extension is a task that stays working through the rollback
// window, its status message telling how to confirm, and completes with
// the commit's final status: confirmed when network.commit
// {"confirm":true} follows, cancelled when {"cancel":true} does.
func TestCommitWindowTask(t *testing.T) {
	s, err := server.New(simR1(t), server.Options{Approver: server.AllowAll, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c := &rawClient{t: t, url: serveHTTP(t, s), caps: `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`}

	for _, end := range []struct{ args, status string }{{`{"confirm":true}`, "confirmed"}, {`{"cancel":true}`, "cancelled"}} {
		h := c.call(netproto.ToolYangEdit, loopEdit("window "+end.status))["handle"].(string)
		r := c.send("tools/call", `{"name":"network.commit","arguments":`+withHandle(`{"confirmed":600}`, h)+`}`, "")
		id, _ := r.Result["taskId"].(string)
		if r.Error != nil || r.Result["resultType"] != "task" || id == "" {
			t.Fatalf("confirmed commit as a task: %+v %v", r.Error, r.Result)
		}
		get := func() map[string]any {
			t.Helper()
			g := c.send("tasks/get", `{"taskId":"`+id+`"}`, "")
			if g.Error != nil {
				t.Fatalf("tasks/get: %+v", g.Error)
			}
			return g.Result
		}
		testwait.Until(t, 30*time.Second, "the commit is applied and its window open", func() (bool, string) {
			g := get()
			msg, _ := g["statusMessage"].(string)
			return g["status"] == "working" && msg != "", fmt.Sprint(g)
		})
		if g := get(); g["status"] != "working" {
			t.Fatalf("task during the window: %v, want working", g)
		}
		c.call(netproto.ToolCommit, end.args)
		var g map[string]any
		testwait.Until(t, 30*time.Second, "the task ends with the window", func() (bool, string) {
			g = get()
			return g["status"] != "working", fmt.Sprint(g)
		})
		res, _ := g["result"].(map[string]any)
		sc, _ := res["structuredContent"].(map[string]any)
		if g["status"] != "completed" || sc["status"] != end.status || sc["commit-id"] == nil {
			t.Fatalf("after %s: task %v, want completed with status %s", end.args, g, end.status)
		}
	}
}

// TestCommitWindowTaskApproval: a confirmed commit run as a task under the
// approval gate waits as input_required with the gate's question; the
// answer sent with tasks/update commits, and the task then stays working
// through the window until the commit is confirmed.
func TestCommitWindowTaskApproval(t *testing.T) {
	dir := t.TempDir()
	gate := server.NewMCPApprover(approval.New(approval.Options{StateDir: dir}), nil)
	s, err := server.New(simR1(t), server.Options{Approver: gate, StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c := &rawClient{t: t, url: serveHTTP(t, s), caps: `{"elicitation":{"form":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}}`}
	accept := `"inputResponses":{"netmcp-approval":{"action":"accept","content":{"approve":true}}}`
	// approved calls tool, answering the gate's question once.
	approved := func(tool, args string) map[string]any {
		t.Helper()
		r := c.send("tools/call", `{"name":"`+tool+`","arguments":`+args+`}`, "")
		if r.Error == nil && r.Result["resultType"] == "input_required" {
			st, _ := json.Marshal(r.Result["requestState"])
			r = c.send("tools/call", `{"name":"`+tool+`","arguments":`+args+`,`+accept+`,"requestState":`+string(st)+`}`, "")
		}
		if r.Error != nil || r.Result["isError"] == true {
			t.Fatalf("%s %s: %+v %v", tool, args, r.Error, r.Result)
		}
		return r.structured()
	}
	h := approved(netproto.ToolYangEdit, loopEdit("approved window"))["handle"].(string)
	r := c.send("tools/call", `{"name":"network.commit","arguments":`+withHandle(`{"confirmed":600}`, h)+`}`, "")
	id, _ := r.Result["taskId"].(string)
	if r.Error != nil || r.Result["resultType"] != "task" || id == "" {
		t.Fatalf("confirmed commit as a task: %+v %v", r.Error, r.Result)
	}
	var g map[string]any
	get := func() map[string]any {
		t.Helper()
		g := c.send("tasks/get", `{"taskId":"`+id+`"}`, "")
		if g.Error != nil {
			t.Fatalf("tasks/get: %+v", g.Error)
		}
		return g.Result
	}
	testwait.Until(t, 30*time.Second, "the commit task asks for approval", func() (bool, string) {
		g = get()
		return g["status"] == "input_required", fmt.Sprint(g)
	})
	if b, _ := json.Marshal(g["inputRequests"]); !strings.Contains(string(b), "rollback") {
		t.Errorf("input requests %s, want the gate's question about the confirmed commit", b)
	}
	if u := c.send("tasks/update", `{"taskId":"`+id+`",`+accept+`}`, ""); u.Error != nil {
		t.Fatalf("tasks/update: %+v", u.Error)
	}
	testwait.Until(t, 30*time.Second, "the approved commit's window is open", func() (bool, string) {
		g = get()
		msg, _ := g["statusMessage"].(string)
		return g["status"] == "working" && strings.Contains(msg, "confirm"), fmt.Sprint(g)
	})
	approved(netproto.ToolCommit, `{"confirm":true}`)
	testwait.Until(t, 30*time.Second, "the task ends with the confirmation", func() (bool, string) {
		g = get()
		return g["status"] != "working", fmt.Sprint(g)
	})
	res, _ := g["result"].(map[string]any)
	if sc, _ := res["structuredContent"].(map[string]any); g["status"] != "completed" || sc["status"] != "confirmed" {
		t.Fatalf("task %v, want completed with status confirmed", g)
	}
}

// TestCommitWindowTaskAnsweredElsewhere: two servers on one state
// directory (as two processes behind a load balancer). A confirmed
// commit run as a task by the first waits for approval; the answer sent
// with tasks/update through the second reaches the first, which commits
// and keeps the task working through the window; tasks/get through
// either server shows it. A second answer is refused: the task no longer
// waits.
func TestCommitWindowTaskAnsweredElsewhere(t *testing.T) {
	dir := t.TempDir()
	drv := simR1(t)
	open := func() *rawClient {
		gate := server.NewMCPApprover(approval.New(approval.Options{StateDir: dir}), nil)
		s, err := server.New(drv, server.Options{Approver: gate, StateDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return &rawClient{t: t, url: serveHTTP(t, s), caps: `{"elicitation":{"form":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}}`}
	}
	c1, c2 := open(), open()
	accept := `"inputResponses":{"netmcp-approval":{"action":"accept","content":{"approve":true}}}`
	r := c1.send("tools/call", `{"name":"`+netproto.ToolYangEdit+`","arguments":`+loopEdit("answered elsewhere")+`}`, "")
	if r.Error == nil && r.Result["resultType"] == "input_required" {
		st, _ := json.Marshal(r.Result["requestState"])
		r = c1.send("tools/call", `{"name":"`+netproto.ToolYangEdit+`","arguments":`+loopEdit("answered elsewhere")+`,`+accept+`,"requestState":`+string(st)+`}`, "")
	}
	h, _ := r.structured()["handle"].(string)
	if r.Error != nil || h == "" {
		t.Fatalf("edit: %+v %v", r.Error, r.Result)
	}
	r = c1.send("tools/call", `{"name":"network.commit","arguments":`+withHandle(`{"confirmed":600}`, h)+`}`, "")
	id, _ := r.Result["taskId"].(string)
	if r.Error != nil || id == "" {
		t.Fatalf("confirmed commit as a task: %+v %v", r.Error, r.Result)
	}
	status := func(c *rawClient) (string, string) {
		t.Helper()
		g := c.send("tasks/get", `{"taskId":"`+id+`"}`, "")
		if g.Error != nil {
			t.Fatalf("tasks/get: %+v", g.Error)
		}
		msg, _ := g.Result["statusMessage"].(string)
		st, _ := g.Result["status"].(string)
		return st, msg
	}
	testwait.Until(t, 30*time.Second, "the commit task asks for approval", func() (bool, string) {
		st, msg := status(c2)
		return st == "input_required", st + " " + msg
	})
	if u := c2.send("tasks/update", `{"taskId":"`+id+`",`+accept+`}`, ""); u.Error != nil {
		t.Fatalf("tasks/update through the other server: %+v", u.Error)
	}
	for _, c := range []*rawClient{c1, c2} {
		testwait.Until(t, 30*time.Second, "the approved commit's window is open", func() (bool, string) {
			st, msg := status(c)
			return st == "working" && strings.Contains(msg, "confirm"), st + " " + msg
		})
	}
	if u := c2.send("tasks/update", `{"taskId":"`+id+`",`+accept+`}`, ""); u.Error == nil || u.Error.Code != -32602 {
		t.Fatalf("a second answer: %+v, want -32602 (not waiting)", u.Error)
	}
	if u := c1.send("tasks/cancel", `{"taskId":"`+id+`"}`, ""); u.Error != nil {
		t.Fatalf("tasks/cancel: %+v", u.Error)
	}
}
