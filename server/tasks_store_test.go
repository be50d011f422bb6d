package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/transport"
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

// memTasks is a task store shared by the "processes" of a test: one map of
// records, and the runs taken for dead.
type memTasks struct {
	mu     sync.Mutex // holds recs; Update runs f under it
	recs   map[string]server.TaskRecord
	deadMu sync.Mutex
	dead   map[string]bool
}

// memRun is one process's view of a memTasks.
type memRun struct {
	m   *memTasks
	run string
}

func (r memRun) Run() string { return r.run }

func (r memRun) Load(key string) (*server.TaskRecord, error) {
	r.m.mu.Lock()
	defer r.m.mu.Unlock()
	if rec, ok := r.m.recs[key]; ok {
		return &rec, nil
	}
	return nil, nil
}

func (r memRun) Update(key string, f func(*server.TaskRecord) *server.TaskRecord) error {
	r.m.mu.Lock()
	defer r.m.mu.Unlock()
	var cur *server.TaskRecord
	if rec, ok := r.m.recs[key]; ok {
		cur = &rec
	}
	if next := f(cur); next != nil {
		r.m.recs[key] = *next
	}
	return nil
}

func (r memRun) Alive(run string) bool {
	r.m.deadMu.Lock()
	defer r.m.deadMu.Unlock()
	return !r.m.dead[run]
}

func (memRun) Sweep(time.Time, time.Duration) {}
func (memRun) Close()                         {}

// TestTaskTakenForDead: Tasks serve an MCP server's tool from any
// TaskStore (here one shared in memory by two servers, as a cluster's
// bucket is by its replicas). A task running on the first is read
// working through the second; once the store no longer finds the first's
// run alive, the second reports the task failed, with the reason, and the
// first, which was only taken for dead, ends its task as the record says:
// its call is stopped and it reads failed too.
func TestTaskTakenForDead(t *testing.T) {
	shared := &memTasks{recs: map[string]server.TaskRecord{}, dead: map[string]bool{}}
	stopped := make(chan struct{})
	open := func(run string) *rawClient {
		srv := mcp.NewServer(&mcp.Implementation{Name: "tasks-test", Version: "1"}, nil)
		mcp.AddTool(srv, &mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			<-ctx.Done()
			close(stopped)
			return nil, nil, ctx.Err()
		})
		ts := server.NewTasks(0, func(context.Context) string { return "tester" }, nil)
		ts.SetStore(memRun{m: shared, run: run})
		if err := ts.Install(srv, "wait"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(ts.Close)
		hs := httptest.NewServer(transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv }, transport.HTTPOptions{}))
		t.Cleanup(hs.Close)
		return &rawClient{t: t, url: hs.URL + transport.Path, caps: `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`}
	}
	a, b := open("run-a"), open("run-b")
	r := a.send("tools/call", `{"name":"wait","arguments":{}}`, "")
	id, _ := r.Result["taskId"].(string)
	if r.Error != nil || id == "" {
		t.Fatalf("wait as a task: %+v %v", r.Error, r.Result)
	}
	get := func(c *rawClient) map[string]any {
		t.Helper()
		r := c.send("tasks/get", `{"taskId":"`+id+`"}`, "")
		if r.Error != nil {
			t.Fatalf("tasks/get: %+v", r.Error)
		}
		return r.Result
	}
	if g := get(b); g["status"] != "working" {
		t.Fatalf("through the second server while the first lives: %v", g)
	}
	shared.deadMu.Lock()
	shared.dead["run-a"] = true
	shared.deadMu.Unlock()
	g := get(b)
	if e, _ := g["error"].(map[string]any); g["status"] != "failed" || !strings.Contains(fmt.Sprint(e["message"]), "stopped before it finished") {
		t.Fatalf("through the second server once the first is taken for dead: %v", g)
	}
	testwait.Until(t, 30*time.Second, "the first server stops the call", func() (bool, string) {
		select {
		case <-stopped:
			return true, ""
		default:
			return false, "the call still runs"
		}
	})
	if g := get(a); g["status"] != "failed" {
		t.Fatalf("through the first server after it stopped the call: %v", g)
	}
}
