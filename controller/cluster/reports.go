package cluster

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// reportIDRE is what a report id may be: a key of the reports bucket.
var reportIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// ErrNoReport is returned by Report for an id the cluster does not hold.
var ErrNoReport = errors.New("cluster: no such report")

// reports opens the reports bucket (file storage, created on first use).
func (r *Replica) reports(ctx context.Context) (jetstream.KeyValue, error) {
	r.reportsMu.Lock()
	defer r.reportsMu.Unlock()
	if r.reportsKV != nil {
		return r.reportsKV, nil
	}
	kv, err := r.bucket(ctx, "reports", jetstream.FileStorage, time.Second)
	if err != nil {
		return nil, err
	}
	r.reportsKV = kv
	return kv, nil
}

// PutReport stores a report (its JSON) under its id in the cluster's
// reports bucket, replacing an earlier version, so that every replica can
// read it.
func (r *Replica) PutReport(ctx context.Context, id string, report []byte) error {
	if !reportIDRE.MatchString(id) {
		return fmt.Errorf("cluster: report id %q: want [A-Za-z0-9_-]+", id)
	}
	kv, err := r.reports(ctx)
	if err != nil {
		return err
	}
	if _, err := kv.Put(ctx, id, report); err != nil {
		return fmt.Errorf("cluster: store report %s: %w", id, err)
	}
	return nil
}

// Report returns the JSON of the report id, or ErrNoReport.
func (r *Replica) Report(ctx context.Context, id string) ([]byte, error) {
	if !reportIDRE.MatchString(id) {
		return nil, fmt.Errorf("%w: %q", ErrNoReport, id)
	}
	kv, err := r.reports(ctx)
	if err != nil {
		return nil, err
	}
	e, err := kv.Get(ctx, id)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return nil, fmt.Errorf("%w: %s", ErrNoReport, id)
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: read report %s: %w", id, err)
	}
	return e.Value(), nil
}

// ReportIDs lists the ids of the reports the cluster holds, sorted.
func (r *Replica) ReportIDs(ctx context.Context) ([]string, error) {
	kv, err := r.reports(ctx)
	if err != nil {
		return nil, err
	}
	l, err := kv.ListKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("cluster: list reports: %w", err)
	}
	defer func() { _ = l.Stop() }()
	seen := map[string]bool{}
	ids := []string{}
	for k := range l.Keys() {
		if !seen[k] {
			seen[k] = true
			ids = append(ids, k)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("cluster: list reports: %w", err)
	}
	sort.Strings(ids)
	return ids, nil
}
