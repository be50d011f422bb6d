package cluster

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// d2dTimeout bounds one access to the D2D reports.
const d2dTimeout = 10 * time.Second

// d2dIDRE is what a D2D report id may be (as the controller takes them).
var d2dIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// Errors of D2DReports.
var (
	// ErrNoD2D is returned by Get for an id the cluster does not hold.
	ErrNoD2D = errors.New("cluster: no such D2D report")
	// ErrD2DConflict refuses a report under an id that holds a different
	// report.
	ErrD2DConflict = errors.New("cluster: a different D2D report is held under this id")
)

// D2DReports are the device agents' signed reports the replicas accepted,
// shared in the bucket netmcp-d2d (file storage): one key per report,
// written once, its value the report as it was signed. A report accepted
// through one replica is listed and read through every one.
type D2DReports struct {
	kv jetstream.KeyValue
}

// D2D opens the cluster's D2D reports (creating the bucket).
func (r *Replica) D2D(ctx context.Context) (*D2DReports, error) {
	kv, err := r.bucket(ctx, "d2d", jetstream.FileStorage, time.Second)
	if err != nil {
		return nil, err
	}
	return &D2DReports{kv: kv}, nil
}

// d2dKey is the key of report id: its bytes in hex, since an id may hold
// dots, which a key would take as token separators.
func d2dKey(id string) string { return hex.EncodeToString([]byte(id)) }

// Add keeps report b under id, once: dup is true when the very same report
// was held already (a push retried), and a different report under id is
// refused with ErrD2DConflict.
func (d *D2DReports) Add(id string, b []byte) (dup bool, err error) {
	if !d2dIDRE.MatchString(id) {
		return false, fmt.Errorf("cluster: D2D report id %q is not a valid id", id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d2dTimeout)
	defer cancel()
	_, err = d.kv.Create(ctx, d2dKey(id), b)
	if err == nil {
		return false, nil
	}
	if !errors.Is(err, jetstream.ErrKeyExists) {
		return false, fmt.Errorf("cluster: store D2D report %s: %w", id, err)
	}
	e, err := d.kv.Get(ctx, d2dKey(id))
	if err != nil {
		return false, fmt.Errorf("cluster: read D2D report %s: %w", id, err)
	}
	if !bytes.Equal(e.Value(), b) {
		return false, fmt.Errorf("%w: %s", ErrD2DConflict, id)
	}
	return true, nil
}

// Get returns report id as it was signed, or ErrNoD2D.
func (d *D2DReports) Get(id string) ([]byte, error) {
	if !d2dIDRE.MatchString(id) {
		return nil, fmt.Errorf("%w: %q", ErrNoD2D, id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d2dTimeout)
	defer cancel()
	e, err := d.kv.Get(ctx, d2dKey(id))
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return nil, fmt.Errorf("%w: %s", ErrNoD2D, id)
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: read D2D report %s: %w", id, err)
	}
	return e.Value(), nil
}

// IDs lists the ids of the reports held, sorted.
func (d *D2DReports) IDs() ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d2dTimeout)
	defer cancel()
	l, err := d.kv.ListKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("cluster: list D2D reports: %w", err)
	}
	defer func() { _ = l.Stop() }()
	ids := []string{}
	for k := range l.Keys() {
		b, err := hex.DecodeString(k)
		if err != nil || !d2dIDRE.Match(b) {
			continue // not a key of Add's
		}
		ids = append(ids, string(b))
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("cluster: list D2D reports: %w", err)
	}
	sort.Strings(ids)
	return ids, nil
}
