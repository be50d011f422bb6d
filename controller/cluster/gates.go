package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// gatesTimeout bounds one access to the devices' questions.
const gatesTimeout = 10 * time.Second

// GateKeep is how long a device's question, and the decision on it, are
// kept in the cluster.
const GateKeep = time.Hour

// Keys of the gates bucket: a question, and the decision on it.
const (
	gateQuestion = "q."
	gateDecision = "d."
)

// GateQuestions are the devices' own approval questions waiting in the
// web consoles, shared in the bucket netmcp-gates (file storage): the
// question under one key, written by the replica whose call it holds
// (and which answers the device), the decision under another, written
// once. Every replica's console lists the question; the first decision
// recorded wins and the others are told whose it was; the replica
// holding the call learns it by watching the decision's key. Both keys
// expire after GateKeep.
type GateQuestions struct {
	kv      jetstream.KeyValue
	replica *Replica
}

// GateRecord is a question held, and the decision on it (nil while it
// waits).
type GateRecord struct {
	Question []byte
	Decision []byte
}

// gateHeld is the value of a question's key.
type gateHeld struct {
	// Holder is the replica instance whose call waits for the answer.
	Holder   string          `json:"holder"`
	Question json.RawMessage `json:"question"`
}

// Gates opens the cluster's device questions (creating the bucket).
func (r *Replica) Gates(ctx context.Context) (*GateQuestions, error) {
	kv, err := r.bucket(ctx, "gates", jetstream.FileStorage, time.Second)
	if err != nil {
		return nil, err
	}
	return &GateQuestions{kv: kv, replica: r}, nil
}

// Ask records question id (its JSON) as waiting for a decision, held by
// this replica.
func (g *GateQuestions) Ask(id string, question []byte) error {
	if !reportIDRE.MatchString(id) {
		return fmt.Errorf("cluster: question id %q: want [A-Za-z0-9_-]+", id)
	}
	b, err := json.Marshal(gateHeld{Holder: g.replica.Instance(), Question: question})
	if err != nil {
		return fmt.Errorf("cluster: question %s: %w", id, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), gatesTimeout)
	defer cancel()
	if _, err := g.kv.Create(ctx, gateQuestion+id, b, jetstream.KeyTTL(GateKeep)); err != nil {
		return fmt.Errorf("cluster: record question %s: %w", id, err)
	}
	return nil
}

// Decide records decision (its JSON) on question id if none was: ok is
// true when this one was the first, else first is the decision recorded
// before, by whatever replica.
func (g *GateQuestions) Decide(id string, decision []byte) (first []byte, ok bool, err error) {
	if !reportIDRE.MatchString(id) {
		return nil, false, fmt.Errorf("cluster: question id %q: want [A-Za-z0-9_-]+", id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), gatesTimeout)
	defer cancel()
	_, err = g.kv.Create(ctx, gateDecision+id, decision, jetstream.KeyTTL(GateKeep))
	if err == nil {
		return decision, true, nil
	}
	if !errors.Is(err, jetstream.ErrKeyExists) {
		return nil, false, fmt.Errorf("cluster: record the decision on question %s: %w", id, err)
	}
	e, err := g.kv.Get(ctx, gateDecision+id)
	if err != nil {
		return nil, false, fmt.Errorf("cluster: read the decision on question %s: %w", id, err)
	}
	return e.Value(), false, nil
}

// Wait returns the decision on question id once one is recorded, through
// any replica, or ctx's error.
func (g *GateQuestions) Wait(ctx context.Context, id string) ([]byte, error) {
	w, err := g.kv.Watch(ctx, gateDecision+id)
	if err != nil {
		return nil, fmt.Errorf("cluster: watch question %s: %w", id, err)
	}
	defer func() { _ = w.Stop() }()
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case e, open := <-w.Updates():
			if !open {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				return nil, fmt.Errorf("cluster: watch question %s: ended", id)
			}
			if e != nil && e.Operation() == jetstream.KeyValuePut {
				return e.Value(), nil
			}
		}
	}
}

// List returns the questions held, by id, with their decisions. A
// question still waiting whose holder is no longer a live replica is left
// out: nobody would answer its device.
func (g *GateQuestions) List() ([]GateRecord, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gatesTimeout)
	defer cancel()
	l, err := g.kv.ListKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("cluster: list questions: %w", err)
	}
	defer func() { _ = l.Stop() }()
	var ids []string
	decided := map[string]bool{}
	for k := range l.Keys() {
		if id, ok := strings.CutPrefix(k, gateQuestion); ok {
			ids = append(ids, id)
		} else if id, ok := strings.CutPrefix(k, gateDecision); ok {
			decided[id] = true
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("cluster: list questions: %w", err)
	}
	sort.Strings(ids)
	live := g.replica.Members()
	var out []GateRecord
	for _, id := range ids {
		q, err := g.get(ctx, gateQuestion+id)
		if err != nil {
			return nil, err
		}
		if q == nil {
			continue // expired meanwhile
		}
		var held gateHeld
		if err := json.Unmarshal(q, &held); err != nil {
			continue // not a question of Ask's
		}
		rec := GateRecord{Question: held.Question}
		if decided[id] {
			if rec.Decision, err = g.get(ctx, gateDecision+id); err != nil {
				return nil, err
			}
		}
		if rec.Decision == nil && !slices.Contains(live, held.Holder) {
			continue
		}
		out = append(out, rec)
	}
	return out, nil
}

// get reads key, nil when it is not held.
func (g *GateQuestions) get(ctx context.Context, key string) ([]byte, error) {
	e, err := g.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: read %s: %w", key, err)
	}
	return e.Value(), nil
}
