package server_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/server"
)

// TestTasksInStateDir: with a state directory, tasks are kept there, so
// that another server process on the same directory (here a second
// server, with its own run) answers tasks/get for a task the first runs
// or ran; tasks/cancel through the second stops the first's ping; a task
// whose process ended while it was working is reported failed, with the
// reason; and a server started later (a restart) still has the finished
// task's result.
func TestTasksInStateDir(t *testing.T) {
	lab, err := sim.NewLab(sim.DefaultTopology(), sim.LabOptions{Seed: 1, Realtime: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lab.Close() })
	drv, err := lab.Device("r1")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	open := func() (*server.Server, *rawClient) {
		s, err := server.New(drv, server.Options{StateDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s, &rawClient{t: t, url: serveHTTP(t, s), caps: `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`}
	}
	s1, c1 := open()
	_, c2 := open()
	ping := func(count int) string {
		t.Helper()
		r := c1.send("tools/call", fmt.Sprintf(`{"name":"ping","arguments":{"destination":%q,"count":%d,"intervalMs":200}}`, h3, count), "")
		id, _ := r.Result["taskId"].(string)
		if r.Error != nil || id == "" {
			t.Fatalf("ping as a task: %+v %v", r.Error, r.Result)
		}
		return id
	}
	get := func(c *rawClient, id string) map[string]any {
		t.Helper()
		r := c.send("tasks/get", `{"taskId":"`+id+`"}`, "")
		if r.Error != nil {
			t.Fatalf("tasks/get %s: %+v", id, r.Error)
		}
		return r.Result
	}
	waitStatus := func(c *rawClient, id, want string) map[string]any {
		t.Helper()
		var g map[string]any
		testwait.Until(t, 30*time.Second, "task "+id+" "+want, func() (bool, string) {
			g = get(c, id)
			return g["status"] == want, fmt.Sprint(g)
		})
		return g
	}

	short := ping(2)
	g := waitStatus(c2, short, "completed")
	res, _ := g["result"].(map[string]any)
	if sc, _ := res["structuredContent"].(map[string]any); sc == nil {
		t.Fatalf("completed task through the other server: no result: %v", g)
	}

	long := ping(100)
	if st := get(c2, long)["status"]; st != "working" {
		t.Fatalf("long ping through the other server: %v", st)
	}
	if r := c2.send("tasks/cancel", `{"taskId":"`+long+`"}`, ""); r.Error != nil {
		t.Fatalf("tasks/cancel through the other server: %+v", r.Error)
	}
	waitStatus(c1, long, "cancelled") // the first server stopped it

	orphan := ping(100)
	t.Cleanup(func() { c1.send("tasks/cancel", `{"taskId":"`+orphan+`"}`, "") })
	s1.Close() // its run ends, as when its process dies
	g = waitStatus(c2, orphan, "failed")
	if e, _ := g["error"].(map[string]any); !strings.Contains(fmt.Sprint(e["message"]), "stopped before it finished") {
		t.Fatalf("task of a stopped server: %v", g)
	}

	_, c3 := open() // a restart
	if st := get(c3, short)["status"]; st != "completed" {
		t.Fatalf("finished task after a restart: %v", st)
	}
	if r := c3.send("tasks/get", `{"taskId":"task-unknown"}`, ""); r.Error == nil || r.Error.Code != -32602 {
		t.Fatalf("unknown task: %+v", r)
	}
}
