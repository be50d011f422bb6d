package server_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/server"
)

// TestTasksExtension: on protocol 2026-07-28 a client that declares the
// Tasks extension gets a long diagnostic as a task: tools/call answers
// resultType "task" at once, tasks/get shows it working with its latest
// output line, then completed with the tool's result; tasks/cancel stops a
// long ping (the diagnostic slot it held is free again: the limiter allows
// one); server/discover advertises the extension; a client without it
// gets the result itself.
func TestTasksExtension(t *testing.T) {
	lab, err := sim.NewLab(sim.DefaultTopology(), sim.LabOptions{Seed: 1, Realtime: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lab.Close() })
	drv, err := lab.Device("r1")
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New(drv, server.Options{DiagLimiter: diag.NewLimiter(1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	url := serveHTTP(t, s)
	tasks := &rawClient{t: t, url: url, caps: `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`}
	plain := &rawClient{t: t, url: url}

	d := tasks.send("server/discover", "{}", "")
	caps, _ := d.Result["capabilities"].(map[string]any)
	exts, _ := caps["extensions"].(map[string]any)
	if _, ok := exts[server.TasksExtensionID]; !ok {
		t.Errorf("server/discover extensions %v lack %s", exts, server.TasksExtensionID)
	}

	// A ping of count probes every intervalMs (the simulator paces them).
	ping := func(c *rawClient, count, intervalMs int) rawReply {
		return c.send("tools/call", fmt.Sprintf(`{"name":"ping","arguments":{"destination":%q,"count":%d,"intervalMs":%d}}`, h3, count, intervalMs), "")
	}
	get := func(id string) map[string]any {
		t.Helper()
		r := tasks.send("tasks/get", `{"taskId":"`+id+`"}`, "")
		if r.Error != nil {
			t.Fatalf("tasks/get: %+v", r.Error)
		}
		return r.Result
	}
	create := func(count, intervalMs int) string {
		t.Helper()
		r := ping(tasks, count, intervalMs)
		id, _ := r.Result["taskId"].(string)
		// A short ping may be done when the task is created.
		if st := r.Result["status"]; r.Error != nil || r.Result["resultType"] != "task" || st != "working" && st != "completed" || id == "" || r.Result["result"] != nil {
			t.Fatalf("ping as a task: %+v %v", r.Error, r.Result)
		}
		for _, k := range []string{"createdAt", "lastUpdatedAt", "ttlMs"} {
			if _, ok := r.Result[k]; !ok {
				t.Errorf("task lacks %s: %v", k, r.Result)
			}
		}
		return id
	}

	id := create(2, 200)
	testwait.Until(t, 30*time.Second, "short ping task completes", func() (bool, string) {
		g := get(id)
		return g["status"] == "completed", fmt.Sprint(g)
	})
	g := get(id)
	res, _ := g["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	if g["resultType"] != "complete" || sc["result"] == nil || res["resultType"] != "complete" {
		t.Fatalf("completed task %v: want the ping's result", g)
	}

	long := create(100, 10000) // 1,000 s unless cancelled
	testwait.Until(t, 30*time.Second, "long ping reports its output", func() (bool, string) {
		g := get(long)
		return g["status"] == "working" && g["statusMessage"] != nil, fmt.Sprint(g)
	})
	if r := tasks.send("tasks/cancel", `{"taskId":"`+long+`"}`, ""); r.Error != nil || r.Result["resultType"] != "complete" {
		t.Fatalf("tasks/cancel: %+v %v", r.Error, r.Result)
	}
	if g := get(long); g["status"] != "cancelled" {
		t.Fatalf("after tasks/cancel: %v", g)
	}
	if r := tasks.send("tasks/cancel", `{"taskId":"`+long+`"}`, ""); r.Error == nil {
		t.Errorf("cancelling a cancelled task: %v, want an error", r.Result)
	}
	// The cancelled ping released its slot: the next one runs.
	next := create(1, 200)
	testwait.Until(t, 30*time.Second, "ping after the cancelled one completes", func() (bool, string) {
		g := get(next)
		return g["status"] == "completed", fmt.Sprint(g)
	})

	if r := tasks.send("tasks/get", `{"taskId":"task-nope"}`, ""); r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("unknown task: %+v, want -32602", r.Error)
	}
	if r := ping(plain, 1, 200); r.Result["resultType"] != "complete" || r.structured()["result"] == nil {
		t.Errorf("ping without the extension: %+v %v, want its result", r.Error, r.Result)
	}
}
