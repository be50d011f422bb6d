package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/server"
)

// slowAskFault makes an ask last about 10 s: r1's link is down at both
// ends with both administratively up, so the sweep watches it for the
// flap watch before it names link_down.
const slowAskFault = "link_flap r1:GigabitEthernet0/0/0 period=3600 down=3599"

// taskRPCError is a JSON-RPC error of taskRPC.
type taskRPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// taskRPC posts one request of protocol 2026-07-28 (no session), from a
// host that declares the Tasks extension, and returns its result or its
// error.
func taskRPC(t *testing.T, url, method, params string) (map[string]any, *taskRPCError) {
	t.Helper()
	b, status := post2026(t, url, method, params, `{"extensions":{"`+server.TasksExtensionID+`":{}}}`, "")
	var r struct {
		Result map[string]any `json:"result"`
		Error  *taskRPCError  `json:"error"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: status %d: %v: %s", method, status, err, b)
	}
	return r.Result, r.Error
}

// askTask calls ask through url as a task and returns the task's id.
func askTask(t *testing.T, url string) string {
	t.Helper()
	res, e := taskRPC(t, url, "tools/call", `{"name":"ask","arguments":{"intent":"what is wrong with the network?"}}`)
	id, _ := res["taskId"].(string)
	if e != nil || res["resultType"] != "task" || res["status"] != "working" || id == "" {
		t.Fatalf("ask as a task through %s: %+v %v", url, e, res)
	}
	return id
}

// getTask is tasks/get of id through url; it fails the test on an error.
func getTask(t *testing.T, url, id string) map[string]any {
	t.Helper()
	res, e := taskRPC(t, url, "tasks/get", `{"taskId":"`+id+`"}`)
	if e != nil {
		t.Fatalf("tasks/get %s through %s: %+v", id, url, e)
	}
	return res
}

// waitTask waits until task id, read through url, has status want, and
// returns it.
func waitTask(t *testing.T, url, id, want string) map[string]any {
	t.Helper()
	var g map[string]any
	testwait.Until(t, time.Minute, "task "+id+" "+want, func() (bool, string) {
		g = getTask(t, url, id)
		return g["status"] == want, fmt.Sprint(g)
	})
	return g
}

// checkAskReport fails the test unless g, a completed ask's task, holds
// the report of slowAskFault.
func checkAskReport(t *testing.T, g map[string]any) {
	t.Helper()
	res, _ := g["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	if g["status"] != "completed" || sc["is_anomaly"] != true || !strings.Contains(fmt.Sprint(sc["faulty_devices"]), "r1") {
		t.Fatalf("completed ask: %v, want the report naming r1", g)
	}
}

// checkDiedTask fails the test unless g is a task failed because its
// process died.
func checkDiedTask(t *testing.T, g map[string]any) {
	t.Helper()
	e, _ := g["error"].(map[string]any)
	if g["status"] != "failed" || !strings.Contains(fmt.Sprint(e["message"]), "stopped before it finished") {
		t.Fatalf("task of a killed controller: %v, want failed with the reason", g)
	}
}

// kill SIGKILLs a controller child and waits for it to end.
func (r *replicaProc) kill() {
	_ = r.cmd.Process.Kill()
	_ = r.cmd.Wait()
}

// TestControllerTasksSurviveRestart: `netmcp controller serve` keeps the
// tasks of ask in <reports>/tasks. SIGKILLed and started again on the
// same directory, it answers tasks/get for an ask that finished before
// with its report, and reports the ask it was running when killed as
// failed, with the reason.
func TestControllerTasksSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	args := []string{"controller", "serve", "--lab", "--fault", slowAskFault, "--listen", "127.0.0.1:0", "--reports", dir}
	first := startControllerProc(t, "controller", args)
	done := askTask(t, first.url)
	checkAskReport(t, waitTask(t, first.url, done, "completed"))
	running := askTask(t, first.url)
	if g := getTask(t, first.url, running); g["status"] != "working" {
		t.Fatalf("a 10 s ask just started: %v", g)
	}
	first.kill()

	again := startControllerProc(t, "restarted", args)
	checkAskReport(t, getTask(t, again.url, done))
	checkDiedTask(t, getTask(t, again.url, running))
	if _, e := taskRPC(t, again.url, "tasks/cancel", `{"taskId":"`+running+`"}`); e == nil || e.Code != -32602 || !strings.Contains(e.Message, "already failed") {
		t.Fatalf("tasks/cancel of the failed task: %+v, want -32602 already failed", e)
	}
	if _, e := taskRPC(t, again.url, "tasks/get", `{"taskId":"task-unknown"}`); e == nil || e.Code != -32602 {
		t.Fatalf("tasks/get of an unknown task: %+v, want -32602", e)
	}
}

// TestControllerClusterTasks: the tasks of ask are the cluster's. Two
// replicas; an ask started as a task through A is read through B while it
// works and, once done, with its report; one cancelled through B stops on
// A (A reads it cancelled, and says it stopped it); and an ask whose
// replica is SIGKILLed while it works is failed, with the reason, through
// the survivor once the dead replica's presence expires.
func TestControllerClusterTasks(t *testing.T) {
	natsURL := startTestNATS(t)
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout(4*time.Minute))
	defer cancel()
	inv := faultedLab(t, ctx, t.TempDir(), slowAskFault)
	a, b := startReplica(t, natsURL, inv, "ta"), startReplica(t, natsURL, inv, "tb")
	var names []string
	for _, d := range sim.DefaultTopology().Devices {
		names = append(names, d.Name)
	}
	sort.Strings(names)
	ownedOnce(t, ctx, []*replicaProc{a, b}, names, "every device held by exactly one replica")

	done := askTask(t, a.url)
	if g := getTask(t, b.url, done); g["status"] != "working" {
		t.Fatalf("A's 10 s ask read through B: %v, want working", g)
	}
	checkAskReport(t, waitTask(t, b.url, done, "completed"))

	stopped := askTask(t, a.url)
	if _, e := taskRPC(t, b.url, "tasks/cancel", `{"taskId":"`+stopped+`"}`); e != nil {
		t.Fatalf("tasks/cancel through B: %+v", e)
	}
	cancelled := time.Now()
	if g := getTask(t, b.url, stopped); g["status"] != "cancelled" {
		t.Fatalf("after tasks/cancel through B, read through B: %v", g)
	}
	waitTask(t, a.url, stopped, "cancelled")
	testwait.Until(t, 30*time.Second, "A stops the ask cancelled through B", func() (bool, string) {
		return strings.Contains(a.stderr.String(), "task ended through another server process"), a.stderr.String()
	})
	t.Logf("cancel through B seen by A after %v", time.Since(cancelled).Round(time.Millisecond))
	if _, e := taskRPC(t, a.url, "tasks/cancel", `{"taskId":"`+stopped+`"}`); e == nil || !strings.Contains(e.Message, "already cancelled") {
		t.Fatalf("a second tasks/cancel through A: %+v, want already cancelled", e)
	}

	orphan := askTask(t, a.url)
	if g := getTask(t, b.url, orphan); g["status"] != "working" {
		t.Fatalf("A's ask read through B: %v, want working", g)
	}
	a.kill()
	killed := time.Now()
	checkDiedTask(t, waitTask(t, b.url, orphan, "failed"))
	t.Logf("ask of a killed replica failed after %v (lease TTL %v)", time.Since(killed).Round(time.Millisecond), clusterTestTTL)
	checkAskReport(t, getTask(t, b.url, done)) // still kept
}
