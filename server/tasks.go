package server

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"sync"
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
// so the server implements them: tasks live in the process, bound to the
// caller's identity, and are forgotten Options.TaskTTL after they finish.

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
	d        toolDef // the tool and call the task runs, to run again with answers
	c        *call
}

// taskStore holds the tasks of a server.
type taskStore struct {
	ttl time.Duration
	mu  sync.Mutex
	m   map[string]*task
}

// sweep forgets the tasks finished more than ttl ago. Called with ts.mu held.
func (ts *taskStore) sweep(now time.Time) {
	for id, t := range ts.m {
		t.mu.Lock()
		old := !t.finished.IsZero() && now.Sub(t.finished) > ts.ttl
		t.mu.Unlock()
		if old {
			delete(ts.m, id)
		}
	}
}

// wantsTask reports whether a call should run as a task: a tool served as
// one, on protocol 2026-07-28, from a client that declared the extension.
func wantsTask(tool string, req *mcp.CallToolRequest) bool {
	if !slices.Contains(taskTools, tool) || req == nil || req.Params == nil {
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

// startTask runs c in the background as a task and returns the result
// that tells the client so.
func (s *Server) startTask(ctx context.Context, d toolDef, c *call) (*mcp.CallToolResult, error) {
	now := time.Now().UTC()
	t := &task{id: "task-" + rand.Text(), identity: s.callIdentity(ctx), tool: d.name, status: TaskWorking, created: now, updated: now}
	s.tasks.mu.Lock()
	s.tasks.sweep(now)
	s.tasks.m[t.id] = t
	s.tasks.mu.Unlock()
	// The call outlives its request: its context keeps the request's
	// values (identity, masking) but not its cancellation; progress goes
	// to the task, not to the request's stream, which closes now.
	p := *c.req.Params
	p.Meta = maps.Clone(p.Meta)
	if p.Meta == nil {
		p.Meta = mcp.Meta{}
	}
	delete(p.Meta, "progressToken")
	req := *c.req
	req.Params = &p
	t.d, t.c = d, &call{req: &req, args: c.args, tool: c.tool}
	s.runTask(context.WithoutCancel(ctx), t, d, t.c)
	s.log.Info("task started", "task", t.id, "tool", d.name, "identity", t.identity)
	// The tool layer answers a CallToolResult; wireMiddleware puts the
	// task on the wire in its place.
	return &mcp.CallToolResult{Meta: mcp.Meta{taskMarker: t}}, nil
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

// runTask runs c for t in a goroutine.
func (s *Server) runTask(ctx context.Context, t *task, d toolDef, c *call) {
	ctx, cancel := context.WithCancel(ctx)
	t.mu.Lock()
	t.cancel = cancel
	t.mu.Unlock()
	ctx = context.WithValue(ctx, taskProgressKey{}, func(line string) {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.status == TaskWorking {
			t.message, t.updated = line, time.Now().UTC()
		}
	})
	go func() {
		defer cancel()
		res, err := s.serveCall(ctx, d, c)
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

// lookupTask returns the task id of the caller of ctx.
func (s *Server) lookupTask(ctx context.Context, id string) (*task, error) {
	s.tasks.mu.Lock()
	s.tasks.sweep(time.Now())
	t := s.tasks.m[id]
	s.tasks.mu.Unlock()
	// Another identity's task is not found, as an unknown one.
	if t == nil || t.identity != s.callIdentity(ctx) {
		return nil, invalidParams("no task %q: unknown, finished more than %s ago, or not yours", id, s.tasks.ttl)
	}
	return t, nil
}

// addTaskMethods registers tasks/get, tasks/update and tasks/cancel.
func (s *Server) addTaskMethods() error {
	if err := mcp.AddReceivingCustomMethod(s.mcp, "tasks/get", func(ctx context.Context, _ *mcp.ServerSession, p *TaskParams) (*taskResult, error) {
		t, err := s.lookupTask(ctx, p.TaskID)
		if err != nil {
			return nil, err
		}
		return t.snapshot(s.tasks.ttl), nil
	}); err != nil {
		return err
	}
	if err := mcp.AddReceivingCustomMethod(s.mcp, "tasks/cancel", func(ctx context.Context, _ *mcp.ServerSession, p *TaskParams) (*doneResult, error) {
		t, err := s.lookupTask(ctx, p.TaskID)
		if err != nil {
			return nil, err
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		switch t.status {
		case TaskWorking, TaskInputRequired:
			now := time.Now().UTC()
			t.status, t.updated, t.finished, t.message = TaskCancelled, now, now, "cancelled by the client"
			t.cancel()
			s.log.Info("task cancelled", "task", t.id)
			return &doneResult{ResultType: resultTypeComplete}, nil
		}
		return nil, invalidParams("task %q is already %s", t.id, t.status)
	}); err != nil {
		return err
	}
	return mcp.AddReceivingCustomMethod(s.mcp, "tasks/update", func(ctx context.Context, _ *mcp.ServerSession, p *TaskUpdateParams) (*doneResult, error) {
		t, err := s.lookupTask(ctx, p.TaskID)
		if err != nil {
			return nil, err
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
		// The call runs again with the answers, as a repeated
		// multi round-trip request would.
		d, c := t.d, t.c
		rctx := context.WithValue(context.WithoutCancel(ctx), retryKey{}, retry{responses: p.InputResponses, state: state})
		if v, _ := c.req.Params.GetMeta()[mcp.MetaKeyProtocolVersion].(string); v != "" {
			rctx = context.WithValue(rctx, protocolKey{}, v)
		}
		s.runTask(rctx, t, d, c)
		return &doneResult{ResultType: resultTypeComplete}, nil
	})
}
