package server

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
)

// The Tasks extension (io.modelcontextprotocol/tasks, protocol 2026-07-28)
// lets a long call outlive its request: a client that declares the
// extension in its capabilities and calls a long diagnostic (ping,
// traceroute, tracepath, dns_lookup, capture) gets a task at once
// (resultType "task") and polls tasks/get for its status (working,
// input_required, completed, failed, cancelled), its latest output line
// (statusMessage) and, at the end, the tool's result; tasks/cancel stops
// it; tasks/update answers a task waiting for input. The SDK has no Tasks,
// so the server implements them: tasks run in the process, bound to the
// caller's identity, are kept in the state directory when there is one
// (tasks_store.go) and are forgotten Options.TaskTTL after they finish.
// Tasks serves them for another MCP server too (the controller's), kept
// in any TaskStore (Tasks.SetStore).

// TasksExtensionID names the Tasks extension in capabilities.extensions.
const TasksExtensionID = "io.modelcontextprotocol/tasks"

// Task states of the Tasks extension.
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// DefaultTaskTTL is how long a finished task is kept (Options.TaskTTL).
const DefaultTaskTTL = 10 * time.Minute

// taskPollInterval is the poll interval the server suggests.
const taskPollInterval = 500 * time.Millisecond

// taskTools are the tools served as tasks when the client asks for them.
var taskTools = []string{netproto.ToolPing, netproto.ToolTraceroute, netproto.ToolTracepath, netproto.ToolDNSLookup, netproto.ToolCapture}

// task is one task.
type task struct {
	id       string
	identity string
	tool     string

	mu       sync.Mutex
	status   string
	message  string
	created  time.Time
	updated  time.Time
	result   *mcp.CallToolResult // completed
	err      *jsonrpc.Error      // failed
	inputs   mcp.InputRequestMap // input_required
	state    string              // input_required: the request state to send back
	cancel   context.CancelFunc  // stops the running call
	finished time.Time
	saved    time.Time // when the record last took a status message
	written  time.Time // when the record was last written
	// run runs the task's call; answer, when set, gives the context of its
	// run again with the client's answers (tasks/update).
	run    func(context.Context) (*mcp.CallToolResult, error)
	answer func(ctx context.Context, responses mcp.InputResponseMap, state string) context.Context
	// base is the context the task started with (its request's values,
	// not its cancellation): an answer taken by another process goes on
	// from it.
	base context.Context
}

// Tasks holds the tasks of an MCP server and serves tasks/get,
// tasks/update and tasks/cancel for them (Install). A task's call runs
// with a context that keeps its request's values but not its
// cancellation, and without the request's progress token (its stream
// closes at once): progress goes to the task (TaskProgress).
type Tasks struct {
	ttl      time.Duration
	identity func(context.Context) string
	log      *slog.Logger
	store    TaskStore // nil: tasks in memory only
	closed   atomic.Bool
	mu       sync.Mutex
	m        map[string]*task
}

// NewTasks returns an empty set of tasks, each kept ttl after it finishes
// (DefaultTaskTTL when ttl <= 0) and bound to the caller identity gives
// (the caller of tasks/get and tasks/cancel must be the same); log, if not
// nil, records tasks started and cancelled.
func NewTasks(ttl time.Duration, identity func(context.Context) string, log *slog.Logger) *Tasks {
	if ttl <= 0 {
		ttl = DefaultTaskTTL
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Tasks{ttl: ttl, identity: identity, log: log, m: map[string]*task{}}
}

// sweep forgets the tasks finished more than ttl ago. Called with ts.mu held.
func (ts *Tasks) sweep(now time.Time) {
	for id, t := range ts.m {
		t.mu.Lock()
		old := !t.finished.IsZero() && now.Sub(t.finished) > ts.ttl
		t.mu.Unlock()
		if old {
			delete(ts.m, id)
		}
	}
	if ts.store != nil && !ts.closed.Load() {
		ts.store.Sweep(now, ts.ttl)
	}
}

// wantsTask reports whether a call should run as a task: a tool served as
// one, on protocol 2026-07-28, from a client that declared the extension.
func wantsTask(tool string, req *mcp.CallToolRequest) bool {
	return slices.Contains(taskTools, tool) && DeclaresTasks(req)
}

// DeclaresTasks reports whether req, a call of protocol 2026-07-28, comes
// from a client that declared the Tasks extension in its capabilities.
func DeclaresTasks(req *mcp.CallToolRequest) bool {
	if req == nil || req.Params == nil {
		return false
	}
	meta := req.Params.GetMeta()
	if v, _ := meta[mcp.MetaKeyProtocolVersion].(string); v < protocolMRTR {
		return false
	}
	caps, _ := meta[mcp.MetaKeyClientCapabilities].(map[string]any)
	exts, _ := caps["extensions"].(map[string]any)
	_, ok := exts[TasksExtensionID]
	return ok
}

// taskProgressKey carries to a diagnostic the function that records its
// latest output line as the task's status message.
type taskProgressKey struct{}

// TaskProgress records line as the status message of the task ctx runs
// and reports whether ctx runs one.
func TaskProgress(ctx context.Context, line string) bool {
	report, ok := ctx.Value(taskProgressKey{}).(func(string))
	if ok {
		report(line)
	}
	return ok
}

// taskRequest returns a copy of req without its progress token.
func taskRequest(req *mcp.CallToolRequest) *mcp.CallToolRequest {
	p := *req.Params
	p.Meta = maps.Clone(p.Meta)
	if p.Meta == nil {
		p.Meta = mcp.Meta{}
	}
	delete(p.Meta, "progressToken")
	r := *req
	r.Params = &p
	return &r
}

// start creates the task of tool and runs it.
func (ts *Tasks) start(ctx context.Context, tool string, run func(context.Context) (*mcp.CallToolResult, error),
	answer func(context.Context, mcp.InputResponseMap, string) context.Context) *mcp.CallToolResult {
	now := time.Now().UTC()
	t := &task{id: "task-" + rand.Text(), identity: ts.identity(ctx), tool: tool, status: TaskWorking, created: now, updated: now, run: run, answer: answer,
		base: context.WithoutCancel(ctx)}
	ts.mu.Lock()
	ts.sweep(now)
	ts.m[t.id] = t
	ts.mu.Unlock()
	ts.save(t)
	ts.runTask(t.base, t)
	ts.log.Info("task started", "task", t.id, "tool", tool, "identity", t.identity)
	return &mcp.CallToolResult{Meta: mcp.Meta{taskMarker: t}}
}

// startTask runs c in the background as a task and returns the result
// that tells the client so.
func (s *Server) startTask(ctx context.Context, d toolDef, c *call) (*mcp.CallToolResult, error) {
	return s.startTaskWith(ctx, d, c, nil)
}

// startTaskWith is startTask where then, if not nil, continues the task
// after the call answered a result.
func (s *Server) startTaskWith(ctx context.Context, d toolDef, c *call, then func(context.Context, *mcp.CallToolResult) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	// The call outlives its request: its context keeps the request's
	// values (identity, masking) but not its cancellation; progress goes
	// to the task, not to the request's stream, which closes now.
	tc := &call{req: taskRequest(c.req), args: c.args, tool: c.tool, detached: true, wasStateless: stateless(c)}
	version, _ := c.req.Params.GetMeta()[mcp.MetaKeyProtocolVersion].(string)
	run := func(ctx context.Context) (*mcp.CallToolResult, error) {
		res, err := s.serveCall(ctx, d, tc)
		if err != nil || then == nil {
			return res, err
		}
		return then(ctx, res)
	}
	// The call runs again with the answers, as a repeated multi
	// round-trip request would.
	answer := func(ctx context.Context, responses mcp.InputResponseMap, state string) context.Context {
		ctx = context.WithValue(ctx, retryKey{}, retry{responses: responses, state: state})
		if version != "" {
			ctx = context.WithValue(ctx, protocolKey{}, version)
		}
		return ctx
	}
	return s.tasks.start(ctx, d.name, run, answer), nil
}

// taskMarker is the _meta member by which the tool layer hands a task to
// wireMiddleware; it never reaches the wire.
const taskMarker = "netmcp/internal-task"

// taskOf returns the task res stands for, or nil.
func taskOf(res mcp.Result) *task {
	r, ok := res.(*mcp.CallToolResult)
	if !ok || r == nil {
		return nil
	}
	t, _ := r.Meta[taskMarker].(*task)
	return t
}

// runTask runs t in a goroutine.
func (ts *Tasks) runTask(ctx context.Context, t *task) {
	ctx, cancel := context.WithCancel(ctx)
	t.mu.Lock()
	t.cancel = cancel
	t.mu.Unlock()
	ctx = context.WithValue(ctx, taskProgressKey{}, func(line string) {
		t.mu.Lock()
		due := false
		if t.status == TaskWorking {
			t.message, t.updated = line, time.Now().UTC()
			// The record takes the latest line at most once a second.
			if due = t.updated.Sub(t.saved) >= time.Second; due {
				t.saved = t.updated
			}
		}
		t.mu.Unlock()
		if due {
			ts.save(t)
		}
	})
	done := make(chan struct{})
	go ts.watch(t, done)
	go func() {
		defer cancel()
		defer close(done)
		res, err := t.run(ctx)
		waiting := false
		defer func() {
			// Saved first: another process may now take the answer.
			if waiting && ts.store != nil {
				go ts.awaitAnswer(t)
			}
		}()
		defer ts.save(t)
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.status == TaskCancelled {
			return
		}
		now := time.Now().UTC()
		t.updated = now
		switch {
		case err != nil:
			t.status, t.finished = TaskFailed, now
			var je *jsonrpc.Error
			if !errors.As(err, &je) {
				je = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
			}
			t.err = je
		case res.InputRequests != nil:
			t.status, t.inputs, t.state = TaskInputRequired, res.InputRequests, res.RequestState
			waiting = true
		default:
			t.status, t.result, t.finished = TaskCompleted, res, now
		}
	}()
}

// TaskParams are the parameters of tasks/get and tasks/cancel.
type TaskParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

// TaskUpdateParams are the parameters of tasks/update.
type TaskUpdateParams struct {
	mcp.ParamsBase
	TaskID         string               `json:"taskId"`
	InputResponses mcp.InputResponseMap `json:"inputResponses"`
}

// taskResult is a task on the wire: the result of tasks/get (resultType
// "complete") or of the tools/call that created it (resultType "task").
type taskResult struct {
	mcp.ResultBase
	TaskID         string              `json:"taskId"`
	Status         string              `json:"status"`
	StatusMessage  string              `json:"statusMessage,omitempty"`
	CreatedAt      string              `json:"createdAt"`
	LastUpdatedAt  string              `json:"lastUpdatedAt"`
	TTLMs          *int64              `json:"ttlMs"`
	PollIntervalMs int64               `json:"pollIntervalMs,omitempty"`
	InputRequests  mcp.InputRequestMap `json:"inputRequests,omitempty"`
	Result         json.RawMessage     `json:"result,omitempty"`
	Error          *jsonrpc.Error      `json:"error,omitempty"`
	ResultType     string              `json:"resultType"`
}

// doneResult is the empty result of tasks/update and tasks/cancel.
type doneResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

// createdResult is the tools/call result that created t.
func (t *task) createdResult(ttl time.Duration) *taskResult {
	r := t.snapshot(ttl)
	// A short call may be done already; its outcome comes with tasks/get.
	r.ResultType, r.Result, r.Error, r.InputRequests = "task", nil, nil, nil
	return r
}

// snapshot returns t on the wire; ttl is how long it is kept once
// finished (0: null). Called without t.mu held.
func (t *task) snapshot(ttl time.Duration) *taskResult {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := &taskResult{TaskID: t.id, Status: t.status, StatusMessage: t.message,
		CreatedAt: t.created.Format(time.RFC3339Nano), LastUpdatedAt: t.updated.Format(time.RFC3339Nano),
		PollIntervalMs: taskPollInterval.Milliseconds(), ResultType: resultTypeComplete}
	if ttl > 0 {
		ms := ttl.Milliseconds()
		r.TTLMs = &ms
	}
	switch t.status {
	case TaskCompleted:
		res := *t.result
		b, _ := json.Marshal(&res)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		m["resultType"] = resultTypeComplete
		r.Result, _ = json.Marshal(m)
	case TaskFailed:
		r.Error = t.err
	case TaskInputRequired:
		r.InputRequests = t.inputs
	}
	return r
}

// lookup returns the task id of the caller of ctx, and whether this
// process runs it (else it is read from the state directory).
func (ts *Tasks) lookup(ctx context.Context, id string) (*task, bool, error) {
	ts.mu.Lock()
	ts.sweep(time.Now())
	t := ts.m[id]
	ts.mu.Unlock()
	local := t != nil
	if t == nil {
		t = ts.stored(id)
	}
	// Another identity's task is not found, as an unknown one.
	if t == nil || t.identity != ts.identity(ctx) {
		return nil, false, invalidParams("no task %q: unknown, finished more than %s ago, or not yours", id, ts.ttl)
	}
	return t, local, nil
}

// Install serves srv's tasks: it registers tasks/get, tasks/update and
// tasks/cancel, advertises the extension in server/discover, and runs a
// call of one of tools as a task when the client declared the extension
// (DeclaresTasks): the whole tool handler runs in the background, and the
// call answers the task at once.
func (ts *Tasks) Install(srv *mcp.Server, tools ...string) error {
	if err := ts.addMethods(srv); err != nil {
		return err
	}
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if r, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" && r.Params != nil && slices.Contains(tools, r.Params.Name) && DeclaresTasks(r) {
				tr := taskRequest(r)
				run := func(ctx context.Context) (*mcp.CallToolResult, error) {
					res, err := next(ctx, method, tr)
					if err != nil {
						return nil, err
					}
					if cr, ok := res.(*mcp.CallToolResult); ok && cr != nil {
						return cr, nil
					}
					return nil, fmt.Errorf("%s answered no tool result", r.Params.Name)
				}
				return taskOf(ts.start(ctx, r.Params.Name, run, nil)).createdResult(ts.ttl), nil
			}
			res, err := next(ctx, method, req)
			if d, ok := res.(*mcp.DiscoverResult); ok && err == nil && method == "server/discover" {
				if d.Capabilities == nil {
					d.Capabilities = &mcp.ServerCapabilities{}
				}
				d.Capabilities.AddExtension(TasksExtensionID, map[string]any{})
			}
			return res, err
		}
	})
	return nil
}

// addMethods registers tasks/get, tasks/update and tasks/cancel.
func (ts *Tasks) addMethods(srv *mcp.Server) error {
	if err := mcp.AddReceivingCustomMethod(srv, "tasks/get", func(ctx context.Context, _ *mcp.ServerSession, p *TaskParams) (*taskResult, error) {
		t, _, err := ts.lookup(ctx, p.TaskID)
		if err != nil {
			return nil, err
		}
		return t.snapshot(ts.ttl), nil
	}); err != nil {
		return err
	}
	if err := mcp.AddReceivingCustomMethod(srv, "tasks/cancel", func(ctx context.Context, _ *mcp.ServerSession, p *TaskParams) (*doneResult, error) {
		t, local, err := ts.lookup(ctx, p.TaskID)
		if err != nil {
			return nil, err
		}
		if !local {
			// Another process runs it: it stops at its next look.
			prev, err := ts.cancelStored(t.id)
			switch {
			case err != nil:
				return nil, err
			case prev == nil:
				return nil, invalidParams("no task %q: unknown, finished more than %s ago, or not yours", t.id, ts.ttl)
			case prev.status != TaskWorking && prev.status != TaskInputRequired:
				return nil, invalidParams("task %q is already %s", t.id, prev.status)
			}
			ts.log.Info("task cancelled for another server process", "task", t.id)
			return &doneResult{ResultType: resultTypeComplete}, nil
		}
		t.mu.Lock()
		switch t.status {
		case TaskWorking, TaskInputRequired:
			now := time.Now().UTC()
			t.status, t.updated, t.finished, t.message = TaskCancelled, now, now, "cancelled by the client"
			t.cancel()
			t.mu.Unlock()
			ts.save(t)
			ts.log.Info("task cancelled", "task", t.id)
			return &doneResult{ResultType: resultTypeComplete}, nil
		}
		defer t.mu.Unlock()
		return nil, invalidParams("task %q is already %s", t.id, t.status)
	}); err != nil {
		return err
	}
	return mcp.AddReceivingCustomMethod(srv, "tasks/update", func(ctx context.Context, _ *mcp.ServerSession, p *TaskUpdateParams) (*doneResult, error) {
		t, local, err := ts.lookup(ctx, p.TaskID)
		if err != nil {
			return nil, err
		}
		if !local {
			// Another process runs it: it goes on at its next look.
			if err := ts.answerStored(t.id, p.InputResponses); err != nil {
				return nil, err
			}
			ts.log.Info("task answered for another server process", "task", t.id)
			return &doneResult{ResultType: resultTypeComplete}, nil
		}
		t.mu.Lock()
		if t.status != TaskInputRequired {
			st := t.status
			t.mu.Unlock()
			return nil, invalidParams("task %q is %s, not waiting for input", t.id, st)
		}
		state := t.state
		t.status, t.inputs, t.updated = TaskWorking, nil, time.Now().UTC()
		t.mu.Unlock()
		ts.save(t)
		rctx := context.WithoutCancel(ctx)
		if t.answer != nil {
			rctx = t.answer(rctx, p.InputResponses, state)
		}
		ts.runTask(rctx, t)
		return &doneResult{ResultType: resultTypeComplete}, nil
	})
}
