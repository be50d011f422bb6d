package server

import (
	"cmp"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/internal/flock"
)

// With a task store (a state directory's, Options.StateDir, or any
// TaskStore given to Tasks.SetStore), tasks are kept there as well as in
// memory, one record per task named by a digest of its id: a restarted
// server, or another process using the same store, answers tasks/get for
// them. A task's call runs in the process that started it, whose run the
// record names; a task still "working" whose run the store no longer
// finds alive is reported failed. tasks/cancel through another process
// marks the record cancelled, and the process running the task stops it
// at its next look at the record (every taskPollInterval). tasks/update
// through another process puts the client's answer in the record of a
// task waiting for input, and the process that runs it goes on with it at
// its next look. While a task runs, its process writes its record again
// at least every third of the task TTL, so that a store that forgets
// records not written for the TTL (a key-value bucket's) keeps it.

// TaskStore keeps the records of tasks where other processes serving the
// same tasks read them: a state directory's (OpenTaskDir), or a cluster's
// shared bucket. Keys are digests of task ids, [0-9a-f]{32}.
type TaskStore interface {
	// Run names this process in the records of the tasks it runs.
	Run() string
	// Load returns the record under key, or nil when there is none.
	Load(key string) (*TaskRecord, error)
	// Update runs f on the record under key (nil when there is none) and
	// writes the record f returns (nil: nothing is written), atomically
	// against every other Update of the key in any process. f may run
	// more than once (a write that lost a race is tried again).
	Update(key string, f func(rec *TaskRecord) *TaskRecord) error
	// Alive reports whether the process of run still lives. When it
	// cannot tell, it reports true: a task is failed only on evidence.
	// Update's f may call it, so it must not wait for an Update.
	Alive(run string) bool
	// Sweep forgets the records of tasks finished more than ttl ago.
	Sweep(now time.Time, ttl time.Duration)
	// Close ends this process's run: the others see its tasks still
	// working as failed.
	Close()
}

// taskDir is the directory of task records in the state directory.
const taskDir = "tasks"

// TaskRecord is what a task store keeps of a task.
type TaskRecord struct {
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

// taskStore keeps the task records of a state directory: one file each,
// read-modify-written under an flock of tasks/lock; the process of a run
// holds an flock of tasks/runs/<run> while it lives.
type taskStore struct {
	dir  string
	recs *records[TaskRecord]
	run  string
	runf *flock.File

	mu    sync.Mutex // with the flock of dir/lock: one read-modify-write at a time
	swept time.Time
	once  sync.Once
}

// OpenTaskDir registers this process in stateDir/tasks and returns the
// task store kept there.
func OpenTaskDir(stateDir string) (TaskStore, error) {
	return openTaskStore(stateDir)
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
	clone := func(r *TaskRecord) *TaskRecord {
		c := *r
		c.Result = slices.Clone(r.Result)
		return &c
	}
	return &taskStore{dir: dir, recs: newRecords(dir, "task record", clone), run: run, runf: runf}, nil
}

// Run names this process's run (TaskStore).
func (st *taskStore) Run() string { return st.run }

// Close ends this process's run: its tasks still working are reported
// failed by the others (TaskStore).
func (st *taskStore) Close() {
	st.once.Do(func() {
		os.Remove(filepath.Join(st.dir, "runs", st.run))
		st.runf.Unlock()
	})
}

// taskKey names the record of task id.
func taskKey(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:16])
}

// Load returns the record of key, or nil (TaskStore).
func (st *taskStore) Load(key string) (*TaskRecord, error) { return st.recs.load(key) }

// Update runs f on the record of key under the store's locks and writes
// the record f returns (TaskStore).
func (st *taskStore) Update(key string, f func(rec *TaskRecord) *TaskRecord) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	fl, err := flock.Lock(filepath.Join(st.dir, "lock"))
	if err != nil {
		return err
	}
	defer fl.Unlock()
	rec, err := st.recs.load(key)
	if err != nil {
		return err
	}
	if next := f(rec); next != nil {
		return st.recs.save(key, next)
	}
	return nil
}

// Alive reports whether the process of run still holds its flock
// (TaskStore); a run whose process is gone is forgotten.
func (st *taskStore) Alive(run string) bool {
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

// Sweep forgets the records of tasks finished more than ttl ago, at most
// once per sweepEvery (TaskStore).
func (st *taskStore) Sweep(now time.Time, ttl time.Duration) {
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
			st.Alive(e.Name())
		}
	}
}

// record returns t as a record. Called with t.mu held.
func (t *task) record(run string) *TaskRecord {
	r := &TaskRecord{Identity: t.identity, Tool: t.tool, Status: t.status, Message: t.message,
		Created: t.created, Updated: t.updated, Finished: t.finished, Error: t.err, Inputs: t.inputs, Run: run}
	if t.result != nil {
		r.Result, _ = json.Marshal(t.result)
	}
	return r
}

// taskFromRecord returns the task a record describes, for its snapshot
// (it runs in another process, or ran in one that is gone).
func taskFromRecord(id string, r *TaskRecord) *task {
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

// taskEnded reports whether status is a final one.
func taskEnded(status string) bool {
	return status == TaskCompleted || status == TaskFailed || status == TaskCancelled
}

// adopt makes t end as rec, a record another process ended (cancelled
// through it, or failed there when this process was taken for dead), and
// stops t's call. Called with t.mu held.
func (t *task) adopt(rec *TaskRecord) {
	r := taskFromRecord(t.id, rec)
	t.status, t.message, t.updated, t.finished = r.status, r.message, r.updated, r.finished
	t.result, t.err, t.inputs = r.result, r.err, nil
	if t.cancel != nil {
		t.cancel()
	}
}

// SetLog records tasks started and ended in log.
func (ts *Tasks) SetLog(log *slog.Logger) { ts.log = log }

// SetStore keeps the tasks in st too (see TaskStore); it is called before
// the first task starts. Close closes st.
func (ts *Tasks) SetStore(st TaskStore) { ts.store = st }

// Close ends this process's run in the task store, if there is one: no
// record is written any more, and the other processes see the tasks still
// working here as failed.
func (ts *Tasks) Close() {
	if ts.store != nil && !ts.closed.Swap(true) {
		ts.store.Close()
	}
}

// update is the store's Update of task id's record, unless the tasks are
// closed.
func (ts *Tasks) update(id string, f func(rec *TaskRecord) *TaskRecord) error {
	if ts.store == nil || ts.closed.Load() {
		return nil
	}
	return ts.store.Update(taskKey(id), f)
}

// save writes t's record, unless another process ended the task meanwhile
// (cancelled it, or failed it taking this process for dead): then t ends
// here as the record says (its call stopped), and the record stays. Not
// called with t.mu held.
func (ts *Tasks) save(t *task) {
	if ts.store == nil {
		return
	}
	run := ts.store.Run()
	ended := ""
	err := ts.update(t.id, func(rec *TaskRecord) *TaskRecord {
		t.mu.Lock()
		defer t.mu.Unlock()
		ended = ""
		if rec != nil && taskEnded(rec.Status) {
			if t.status != rec.Status {
				t.adopt(rec)
				ended = rec.Status
			}
			return nil
		}
		t.written = time.Now()
		return t.record(run)
	})
	if err != nil {
		ts.log.Warn("task record not written", "task", t.id, "error", err)
	}
	if ended != "" {
		ts.log.Info("task ended through another server process", "task", t.id, "status", ended)
	}
}

// refreshDue reports whether t's record was last written a third of the
// TTL ago or more: a store that forgets records not written for the TTL
// must not forget a task still running.
func (ts *Tasks) refreshDue(t *task) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return time.Since(t.written) >= ts.ttl/3
}

// watch stops t's call when another process ends it (tasks/cancel
// through it): it reads t's record every taskPollInterval until done is
// closed, and writes it again when a refresh is due.
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
		if ts.closed.Load() {
			return
		}
		rec, err := st.Load(taskKey(t.id))
		if err != nil || rec == nil || !taskEnded(rec.Status) {
			if err == nil && ts.refreshDue(t) {
				ts.save(t)
			}
			continue
		}
		t.mu.Lock()
		if !taskEnded(t.status) {
			t.adopt(rec)
			ts.log.Info("task ended through another server process", "task", t.id, "status", rec.Status)
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
		if !waiting || ts.closed.Load() {
			return
		}
		rec, err := st.Load(taskKey(t.id))
		if err != nil || rec == nil || rec.Status == TaskInputRequired {
			if err == nil && rec != nil && ts.refreshDue(t) {
				ts.save(t)
			}
			continue
		}
		t.mu.Lock()
		if t.status != TaskInputRequired {
			t.mu.Unlock()
			return
		}
		now := time.Now().UTC()
		if taskEnded(rec.Status) || rec.Answer == nil {
			// Ended there (or a record this process cannot go on from):
			// the task ends as the record says.
			if taskEnded(rec.Status) {
				t.adopt(rec)
				t.mu.Unlock()
				return
			}
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
	err := ts.update(id, func(rec *TaskRecord) *TaskRecord {
		refused = nil
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

// stored returns task id from the task store, for a task this process
// does not run: a task still working or waiting whose process is gone is
// failed (and so recorded).
func (ts *Tasks) stored(id string) *task {
	st := ts.store
	if st == nil {
		return nil
	}
	rec, err := st.Load(taskKey(id))
	if err != nil {
		ts.log.Warn("task record not read", "task", id, "error", err)
		return nil
	}
	if rec == nil || taskEnded(rec.Status) || st.Alive(rec.Run) {
		if rec == nil {
			return nil
		}
		return taskFromRecord(id, rec)
	}
	// Its process is gone: the record says so, unless it changed since.
	var out *task
	err = ts.update(id, func(rec *TaskRecord) *TaskRecord {
		out = nil
		if rec == nil {
			return nil
		}
		if (rec.Status == TaskWorking || rec.Status == TaskInputRequired) && !st.Alive(rec.Run) {
			now := time.Now().UTC()
			rec.Status, rec.Updated, rec.Finished, rec.Inputs, rec.Answer = TaskFailed, now, now, nil, nil
			rec.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
				Message: "the server process running this task stopped before it finished (restarted or killed); its outcome is unknown: run the call again"}
			out = taskFromRecord(id, rec)
			return rec
		}
		out = taskFromRecord(id, rec)
		return nil
	})
	if err != nil || ts.closed.Load() {
		if err != nil {
			ts.log.Warn("task record not written", "task", id, "error", err)
		}
		return taskFromRecord(id, rec)
	}
	return out
}

// cancelStored cancels a task another process runs: its record says
// cancelled, and that process stops the call at its next look. It
// returns the task as it was, or nil when there is no such record.
func (ts *Tasks) cancelStored(id string) (prev *task, err error) {
	err = ts.update(id, func(rec *TaskRecord) *TaskRecord {
		prev = nil
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
