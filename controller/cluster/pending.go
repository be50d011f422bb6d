package cluster

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// pendingTimeout bounds one access to the pending fixes.
const pendingTimeout = 10 * time.Second

// Errors of PendingFixes.
var (
	// ErrPendingExists refuses a second fix under an id already queued.
	ErrPendingExists = errors.New("cluster: a fix is queued under this id already")
	// ErrNotPending is returned by Take for a fix no longer queued: it
	// was decided, through this replica or another.
	ErrNotPending = errors.New("cluster: no such fix waiting (decided already, through this replica or another)")
)

// PendingFixes are the proposed fixes waiting for an operator's
// decision, shared by the replicas in the bucket netmcp-pending (file
// storage): one key per fix, its value what the queue keeps of it. A fix
// queued through one replica is listed through every one, and Take gives
// it to exactly one decision: it deletes the key on the revision it read,
// which fails when another replica took it first.
type PendingFixes struct {
	kv jetstream.KeyValue
}

// Pending opens the cluster's pending fixes (creating the bucket).
func (r *Replica) Pending(ctx context.Context) (*PendingFixes, error) {
	kv, err := r.bucket(ctx, "pending", jetstream.FileStorage, time.Second)
	if err != nil {
		return nil, err
	}
	return &PendingFixes{kv: kv}, nil
}

// Put queues the fix v under id, or refuses it with ErrPendingExists.
func (p *PendingFixes) Put(id string, v []byte) error {
	if !reportIDRE.MatchString(id) {
		return fmt.Errorf("cluster: fix id %q: want [A-Za-z0-9_-]+", id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), pendingTimeout)
	defer cancel()
	_, err := p.kv.Create(ctx, id, v)
	switch {
	case errors.Is(err, jetstream.ErrKeyExists):
		return fmt.Errorf("%w: %s", ErrPendingExists, id)
	case err != nil:
		return fmt.Errorf("cluster: queue fix %s: %w", id, err)
	}
	return nil
}

// List returns the queued fixes, by id.
func (p *PendingFixes) List() ([][]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), pendingTimeout)
	defer cancel()
	l, err := p.kv.ListKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("cluster: list pending fixes: %w", err)
	}
	defer func() { _ = l.Stop() }()
	var ids []string
	for k := range l.Keys() {
		ids = append(ids, k)
	}
	sort.Strings(ids)
	var out [][]byte
	for _, id := range ids {
		e, err := p.kv.Get(ctx, id)
		if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
			continue // taken meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("cluster: read pending fix %s: %w", id, err)
		}
		out = append(out, e.Value())
	}
	return out, nil
}

// Take removes the fix id from the queue and returns it; of the replicas
// that take it at once, one succeeds and the others get ErrNotPending.
func (p *PendingFixes) Take(id string) ([]byte, error) {
	if !reportIDRE.MatchString(id) {
		return nil, fmt.Errorf("%w: %q", ErrNotPending, id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), pendingTimeout)
	defer cancel()
	e, err := p.kv.Get(ctx, id)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return nil, fmt.Errorf("%w: %s", ErrNotPending, id)
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: read pending fix %s: %w", id, err)
	}
	if err := p.kv.Delete(ctx, id, jetstream.LastRevision(e.Revision())); err != nil {
		if isWrongSeq(err) {
			return nil, fmt.Errorf("%w: %s", ErrNotPending, id)
		}
		return nil, fmt.Errorf("cluster: take pending fix %s: %w", id, err)
	}
	return e.Value(), nil
}
