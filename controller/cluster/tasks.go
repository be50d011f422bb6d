package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// tasksTimeout bounds one access to the task records.
const tasksTimeout = 10 * time.Second

// taskUpdateTries bounds the writes of one TaskRecords.Update that lose a
// race with another replica's.
const taskUpdateTries = 20

// TaskRecords keeps the records of the replicas' long calls (the MCP
// Tasks extension's tasks) in the bucket netmcp-tasks (file storage), so
// that a task started through one replica is read, cancelled or answered
// through any other. Each record is written with a per-message TTL: a
// record not written again for the TTL is forgotten, so a replica running
// a task writes its record again before then, and a finished task is kept
// for the TTL after it ended. A record names the replica instance running
// its task (Run); Alive tells whether that instance is still a member.
type TaskRecords struct {
	r   *Replica
	kv  jetstream.KeyValue
	ttl time.Duration
}

// Tasks opens the cluster's task records (creating the bucket), each kept
// ttl after its last write (rounded up to whole seconds, at least 1 s).
func (r *Replica) Tasks(ctx context.Context, ttl time.Duration) (*TaskRecords, error) {
	kv, err := r.bucket(ctx, "tasks", jetstream.FileStorage, time.Second)
	if err != nil {
		return nil, err
	}
	if ttl < time.Second {
		ttl = time.Second
	}
	if ttl%time.Second != 0 {
		ttl = ttl.Truncate(time.Second) + time.Second
	}
	return &TaskRecords{r: r, kv: kv, ttl: ttl}, nil
}

// Run names this replica in the records of the tasks it runs: its
// instance.
func (t *TaskRecords) Run() string { return t.r.self }

// Get returns the record under key, or nil when there is none.
func (t *TaskRecords) Get(key string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), tasksTimeout)
	defer cancel()
	e, err := t.kv.Get(ctx, key)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("cluster: read task record %s: %w", key, err)
	}
	return e.Value(), nil
}

// Update runs f on the record under key (nil when there is none) and
// writes what f returns (nil: nothing), on the revision it read: when
// another replica wrote the key meanwhile, f runs again on the new value.
func (t *TaskRecords) Update(key string, f func(rec []byte) []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), tasksTimeout)
	defer cancel()
	for range taskUpdateTries {
		var cur []byte
		var rev uint64
		e, err := t.kv.Get(ctx, key)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
		case err != nil:
			return fmt.Errorf("cluster: read task record %s: %w", key, err)
		default:
			cur, rev = e.Value(), e.Revision()
		}
		next := f(cur)
		if next == nil {
			return nil
		}
		if rev == 0 {
			// Create also takes the place of a deleted or expired key.
			_, err = t.kv.Create(ctx, key, next, jetstream.KeyTTL(t.ttl))
			if errors.Is(err, jetstream.ErrKeyExists) {
				continue
			}
		} else {
			_, err = t.r.js.PublishMsg(ctx, &nats.Msg{Subject: kvSubject(t.kv, key), Data: next},
				jetstream.WithMsgTTL(t.ttl), jetstream.WithExpectLastSequencePerSubject(rev))
			if isWrongSeq(err) {
				continue
			}
		}
		if err != nil {
			return fmt.Errorf("cluster: write task record %s: %w", key, err)
		}
		return nil
	}
	return fmt.Errorf("cluster: write task record %s: %d tries lost a race with other replicas", key, taskUpdateTries)
}

// Alive reports whether the replica instance run is a live member of the
// cluster: its presence, which it renews every few seconds, has not
// expired (a replica killed is gone within the lease TTL) nor been
// withdrawn (a replica that left). When the members bucket cannot be
// read, it reports true.
func (t *TaskRecords) Alive(run string) bool {
	if run == t.r.self {
		t.r.mu.Lock()
		defer t.r.mu.Unlock()
		return !t.r.stopped
	}
	if !nameRE.MatchString(run) {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), tasksTimeout)
	defer cancel()
	_, err := t.r.members.Get(ctx, run)
	return !errors.Is(err, jetstream.ErrKeyNotFound)
}
