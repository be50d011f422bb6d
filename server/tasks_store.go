package server

import (
	"cmp"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/internal/flock"
)

// With a state directory (Options.StateDir), tasks are kept in
// StateDir/tasks as well as in memory, one record per task named by a
// digest of its id: a restarted server, or another process serving the
// same directory, answers tasks/get for them. A task's call runs in the
// process that started it; that process holds an flock of
// tasks/runs/<run> while it lives, so that a task still "working" whose
// process is gone is reported failed. tasks/cancel through another
// process marks the record cancelled, and the process running the task
// stops it at its next look at the record (every taskPollInterval).
// tasks/update through another process puts the client's answer in the
// record of a task waiting for input, and the process that runs it goes
// on with it at its next look.

// taskDir is the directory of task records in the state directory.
const taskDir = "tasks"

// taskRecord is what the state directory keeps of a task.
type taskRecord struct {
	Identity string              `json:"identity"`
	Tool     string              `json:"tool"`
	Status   string              `json:"status"`
	Message  string              `json:"message,omitempty"`
	Created  time.Time           `json:"created"`
	Updated  time.Time           `json:"updated"`
	Finished time.Time           `json:"finished,omitzero"`
	Result   json.RawMessage     `json:"result,omitempty"`
	Error    *jsonrpc.Error      `json:"error,omitempty"`
	Inputs   mcp.InputRequestMap `json:"inputs,omitempty"`
	// Answer is the client's answer to Inputs taken by another process
	// (tasks/update), for the process that runs the task to go on with.
	Answer mcp.InputResponseMap `json:"answer,omitempty"`
	Run    string               `json:"run"` // the process's run that runs the task
}

// taskStore keeps the task records of a state directory.
type taskStore struct {
	dir  string
	recs *records[taskRecord]
	run  string
	runf *flock.File

	mu     sync.Mutex // with the flock of dir/lock: one read-modify-write at a time
	swept  time.Time
	closed bool // the server closed: no record is written any more
	once   sync.Once
}

// openTaskStore registers this process in stateDir/tasks.
func openTaskStore(stateDir string) (*taskStore, error) {
	dir := filepath.Join(stateDir, taskDir)
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o700); err != nil {
		return nil, err
	}
	run := rand.Text()[:16]
	runf, err := flock.TryLock(filepath.Join(dir, "runs", run))
	if err != nil {
		return nil, err
	}
	clone := func(r *taskRecord) *taskRecord {
		c := *r
		c.Result = slices.Clone(r.Result)
		return &c
	}
	return &taskStore{dir: dir, recs: newRecords(dir, "task record", clone), run: run, runf: runf}, nil
}

// close ends this process's run: its tasks still working are reported
// failed by the others, and no record is written any more.
func (st *taskStore) close() {
	st.once.Do(func() {
		st.mu.Lock()
		st.closed = true
		st.mu.Unlock()
		os.Remove(filepath.Join(st.dir, "runs", st.run))
		st.runf.Unlock()
	})
}

// isClosed tells whether the server closed the store.
func (st *taskStore) isClosed() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.closed
}

// taskKey names the record of task id.
func taskKey(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:16])
}

// update runs f on the record of id under the store's locks and writes
// the record f returns (nil: nothing written). rec is nil when there is
// none.
func (st *taskStore) update(id string, f func(rec *taskRecord) *taskRecord) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return nil
	}
	fl, err := flock.Lock(filepath.Join(st.dir, "lock"))
	if err != nil {
		return err
	}
	defer fl.Unlock()
	key := taskKey(id)
	rec, err := st.recs.load(key)
	if err != nil {
		return err
	}
	if next := f(rec); next != nil {
		return st.recs.save(key, next)
	}
	return nil
}

// alive reports whether the process of run still lives.
func (st *taskStore) alive(run string) bool {
	path := filepath.Join(st.dir, "runs", filepath.Base(run))
	if _, err := os.Stat(path); err != nil {
		return false
	}
	fl, err := flock.TryLock(path)
	if errors.Is(err, flock.ErrHeld) {
		return true
	}
	if err == nil {
		os.Remove(path)
		fl.Unlock()
	}
	return false
}

// sweep forgets the records of tasks finished more than ttl ago, at most
// once per sweepEvery.
func (st *taskStore) sweep(now time.Time, ttl time.Duration) {
	st.mu.Lock()
	due := now.Sub(st.swept) >= sweepEvery
	if due {
		st.swept = now
	}
	st.mu.Unlock()
	if !due {
		return
	}
	for _, key := range st.recs.keys() {
		if r, err := st.recs.load(key); err == nil && r != nil && !r.Finished.IsZero() && now.Sub(r.Finished) > ttl {
			st.recs.remove(key)
		}
	}
	if ents, err := os.ReadDir(filepath.Join(st.dir, "runs")); err == nil {
		for _, e := range ents {
			st.alive(e.Name())
		}
	}
}

// record returns t as a record. Called with t.mu held.
func (t *task) record(run string) *taskRecord {
	r := &taskRecord{Identity: t.identity, Tool: t.tool, Status: t.status, Message: t.message,
		Created: t.created, Updated: t.updated, Finished: t.finished, Error: t.err, Inputs: t.inputs, Run: run}
	if t.result != nil {
		r.Result, _ = json.Marshal(t.result)
	}
	return r
}

// taskFromRecord returns the task a record describes, for its snapshot
// (it runs in another process, or ran in one that is gone).
func taskFromRecord(id string, r *taskRecord) *task {
	t := &task{id: id, identity: r.Identity, tool: r.Tool, status: r.Status, message: r.Message,
		created: r.Created, updated: r.Updated, finished: r.Finished, err: r.Error, inputs: r.Inputs}
	if len(r.Result) > 0 {
		var res mcp.CallToolResult
		if json.Unmarshal(r.Result, &res) == nil {
			t.result = &res
		}
	}
	if t.status == TaskCompleted && t.result == nil {
		t.status, t.err = TaskFailed, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task's result could not be read back"}
	}
	return t
}

// save writes t's record, unless another process cancelled the task
// meanwhile: then t is cancelled here too (its call stopped). Not called
// with t.mu held.
func (ts *Tasks) save(t *task) {
	st := ts.store
	if st == nil {
		return
	}
	err := st.update(t.id, func(rec *taskRecord) *taskRecord {
		t.mu.Lock()
		defer t.mu.Unlock()
		if rec != nil && rec.Status == TaskCancelled && t.status != TaskCancelled {
			t.status, t.updated, t.finished, t.message = TaskCancelled, rec.Updated, rec.Finished, rec.Message
			t.result, t.err, t.inputs = nil, nil, nil
			if t.cancel != nil {
				t.cancel()
			}
			return nil
		}
		return t.record(st.run)
	})
	if err != nil {
		ts.log.Warn("task record not written", "task", t.id, "error", err)
	}
}

// watch stops t's call when another process cancels it: it reads t's
// record every taskPollInterval until done is closed.
func (ts *Tasks) watch(t *task, done <-chan struct{}) {
	st := ts.store
	if st == nil {
		return
	}
	tick := time.NewTicker(taskPollInterval)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		rec, err := st.recs.load(taskKey(t.id))
		if err != nil || rec == nil || rec.Status != TaskCancelled {
			continue
		}
		t.mu.Lock()
		if t.status == TaskWorking || t.status == TaskInputRequired {
			t.status, t.updated, t.finished, t.message = TaskCancelled, rec.Updated, rec.Finished, rec.Message
			if t.cancel != nil {
				t.cancel()
			}
			ts.log.Info("task cancelled through another server process", "task", t.id)
		}
		t.mu.Unlock()
		return
	}
}

// awaitAnswer waits, while t is waiting for input, for an answer that
// another process took (tasks/update through it) or a cancellation
// there: it reads t's record every taskPollInterval, and goes on with
// the task as a local tasks/update would.
func (ts *Tasks) awaitAnswer(t *task) {
	st := ts.store
	tick := time.NewTicker(taskPollInterval)
	defer tick.Stop()
	for range tick.C {
		t.mu.Lock()
		waiting := t.status == TaskInputRequired
		t.mu.Unlock()
		if !waiting || st.isClosed() {
			return
		}
		rec, err := st.recs.load(taskKey(t.id))
		if err != nil || rec == nil || rec.Status == TaskInputRequired {
			continue
		}
		t.mu.Lock()
		if t.status != TaskInputRequired {
			t.mu.Unlock()
			return
		}
		now := time.Now().UTC()
		if rec.Status == TaskCancelled || rec.Answer == nil {
			// Cancelled there (or a record this process cannot go on
			// from): the task ends as the record says.
			t.status, t.updated, t.finished, t.message, t.inputs = TaskCancelled, now, now, cmp.Or(rec.Message, "cancelled by the client"), nil
			t.mu.Unlock()
			ts.save(t)
			return
		}
		state := t.state
		t.status, t.inputs, t.updated = TaskWorking, nil, now
		t.mu.Unlock()
		ts.save(t)
		ctx := t.base
		if t.answer != nil {
			ctx = t.answer(ctx, rec.Answer, state)
		}
		ts.runTask(ctx, t)
		ts.log.Info("task answered through another server process", "task", t.id)
		return
	}
}

// answerStored gives the client's answer to a task another process runs
// and that waits for input there: its record takes the answer, and that
// process goes on with it at its next look.
func (ts *Tasks) answerStored(id string, responses mcp.InputResponseMap) error {
	var refused error
	err := ts.store.update(id, func(rec *taskRecord) *taskRecord {
		switch {
		case rec == nil:
			refused = invalidParams("no task %q: unknown, finished more than %s ago, or not yours", id, ts.ttl)
			return nil
		case rec.Status != TaskInputRequired:
			refused = invalidParams("task %q is %s, not waiting for input", id, rec.Status)
			return nil
		}
		rec.Status, rec.Inputs, rec.Answer, rec.Updated = TaskWorking, nil, responses, time.Now().UTC()
		return rec
	})
	return cmp.Or(err, refused)
}

// stored returns task id from the state directory, for a task this
// process does not run: a task still working or waiting whose process is
// gone is failed (and so recorded).
func (ts *Tasks) stored(id string) *task {
	st := ts.store
	if st == nil {
		return nil
	}
	var out *task
	err := st.update(id, func(rec *taskRecord) *taskRecord {
		if rec == nil {
			return nil
		}
		if (rec.Status == TaskWorking || rec.Status == TaskInputRequired) && !st.alive(rec.Run) {
			now := time.Now().UTC()
			rec.Status, rec.Updated, rec.Finished, rec.Inputs = TaskFailed, now, now, nil
			rec.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
				Message: "the server process running this task stopped before it finished (restarted or killed); its outcome is unknown: run the call again"}
			out = taskFromRecord(id, rec)
			return rec
		}
		out = taskFromRecord(id, rec)
		return nil
	})
	if err != nil {
		ts.log.Warn("task record not read", "task", id, "error", err)
	}
	return out
}

// cancelStored cancels a task another process runs: its record says
// cancelled, and that process stops the call at its next look. It
// returns the task as it was, or nil when there is no such record.
func (ts *Tasks) cancelStored(id string) (prev *task, err error) {
	err = ts.store.update(id, func(rec *taskRecord) *taskRecord {
		if rec == nil {
			return nil
		}
		prev = taskFromRecord(id, rec)
		if rec.Status != TaskWorking && rec.Status != TaskInputRequired {
			return nil
		}
		now := time.Now().UTC()
		rec.Status, rec.Updated, rec.Finished, rec.Message = TaskCancelled, now, now, "cancelled by the client"
		rec.Inputs = nil
		return rec
	})
	return prev, err
}
