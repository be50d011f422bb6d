package serve

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/netmcp/netmcp/server"
)

// TaskTTL is how long a finished task of ask is kept for tasks/get.
const TaskTTL = server.DefaultTaskTTL

// KeepTasks keeps the tasks of ask in st as well as in memory, so that
// tasks/get, tasks/cancel and tasks/update reach them through another
// process using the same store, or after a restart: the reports
// directory's (server.OpenTaskDir), or a cluster's bucket (SharedTasks).
// log, if not nil, records tasks started and ended. Called before the
// server serves; Close ends this process's run in st.
func (s *Server) KeepTasks(st server.TaskStore, log *slog.Logger) {
	s.tasks.SetStore(st)
	if log != nil {
		s.tasks.SetLog(log)
	}
}

// TaskBucket is a cluster's shared task records, by key (package
// controller/cluster's TaskRecords): each written on the revision it was
// read, forgotten TaskTTL after its last write.
type TaskBucket interface {
	// Run names this replica in the records of the tasks it runs.
	Run() string
	// Get returns the record under key, or nil when there is none.
	Get(key string) ([]byte, error)
	// Update runs f on the record under key (nil: none) and writes what
	// it returns (nil: nothing), again on the new value when another
	// replica wrote the key meanwhile.
	Update(key string, f func(rec []byte) []byte) error
	// Alive reports whether the replica of run is still a member.
	Alive(run string) bool
}

// SharedTasks is b as a task store: the tasks of ask are the cluster's,
// read and cancelled through any replica; a task whose replica is no
// longer a member (killed, or cut off for the lease TTL) is failed.
func SharedTasks(b TaskBucket) server.TaskStore { return sharedTasks{b: b} }

// sharedTasks is a TaskBucket holding server.TaskRecords as JSON.
type sharedTasks struct{ b TaskBucket }

// Run names this replica (server.TaskStore).
func (t sharedTasks) Run() string { return t.b.Run() }

// Load reads the record of key (server.TaskStore).
func (t sharedTasks) Load(key string) (*server.TaskRecord, error) {
	b, err := t.b.Get(key)
	if err != nil || b == nil {
		return nil, err
	}
	return decodeTaskRecord(key, b)
}

// Update read-modify-writes the record of key (server.TaskStore).
func (t sharedTasks) Update(key string, f func(*server.TaskRecord) *server.TaskRecord) error {
	var failed error
	err := t.b.Update(key, func(cur []byte) []byte {
		failed = nil
		var rec *server.TaskRecord
		if cur != nil {
			if rec, failed = decodeTaskRecord(key, cur); failed != nil {
				return nil
			}
		}
		next := f(rec)
		if next == nil {
			return nil
		}
		b, err := json.Marshal(next)
		if err != nil {
			failed = err
			return nil
		}
		return b
	})
	if err != nil {
		return err
	}
	return failed
}

// decodeTaskRecord reads the record of key.
func decodeTaskRecord(key string, b []byte) (*server.TaskRecord, error) {
	var rec server.TaskRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("task record %s: %w", key, err)
	}
	return &rec, nil
}

// Alive reports whether the replica of run is a member (server.TaskStore).
func (t sharedTasks) Alive(run string) bool { return t.b.Alive(run) }

// Sweep does nothing: the bucket forgets a record TaskTTL after its last
// write (server.TaskStore).
func (sharedTasks) Sweep(time.Time, time.Duration) {}

// Close does nothing: the replica's tasks are failed once it is no longer
// a member (server.TaskStore).
func (sharedTasks) Close() {}
