package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/netmcp/netmcp/approval"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/netproto"
)

// Cluster is what a controller replica shares with the other replicas of
// a cluster (package controller/cluster): which devices it holds the
// sessions of, and the signed consents used on any replica. The calls on
// the devices it does not hold go to their owner through the fleet
// (client.Options.Remote).
type Cluster interface {
	// Serves reports whether this replica holds device's session now.
	Serves(device string) bool
	// Owner names the replica instance holding device's lease, as this
	// replica last saw it.
	Owner(device string) (string, bool)
	// UseNonce records a consent's nonce as used across the cluster until
	// forget, or refuses it as used before (or when it cannot be recorded).
	UseNonce(ctx context.Context, nonce string, forget time.Time) error
	// PutReport, Report and ReportIDs keep the reports of ask where
	// every replica reads them.
	PutReport(ctx context.Context, id string, report []byte) error
	Report(ctx context.Context, id string) ([]byte, error)
	ReportIDs(ctx context.Context) ([]string, error)
	// Describe learns, from the replicas holding them, what the sessions
	// of the devices among names this replica does not hold say of them
	// (capabilities, tools), and returns how many it described.
	Describe(ctx context.Context, names []string) (int, error)
}

// consentMaxAge is how long after its timestamp a consent is remembered
// at most: the devices' default consent age (approval.Options).
const consentMaxAge = 5 * time.Minute

// SetCluster makes the server a replica of a cluster: a signed consent in
// call_device_tool's arguments is recorded cluster-wide before the call
// goes to the device, so a consent used through one replica is refused
// by every other; ask examines the whole fleet, the devices other
// replicas hold through them, and its reports are kept in the cluster
// too, so that any replica reads them.
func (s *Server) SetCluster(c Cluster) {
	s.cluster = c
	s.reports = NewSharedReports(s.store, c)
}

// reportStore is where the reports of ask are saved and read.
type reportStore interface {
	Save(r *controller.Report) (string, error)
	Load(id string) (*controller.Report, error)
	List() ([]string, error)
}

// sharedReportsTimeout bounds one access to the cluster's reports.
const sharedReportsTimeout = 10 * time.Second

// SharedReports keeps each report in the reports directory and in the
// cluster; it lists and reads both, so a report saved by any replica is
// read through every other, as its latest version (a fix applied through
// another replica included).
type SharedReports struct {
	local  controller.Store
	shared Cluster
}

// NewSharedReports keeps the reports in local and in the cluster c.
func NewSharedReports(local controller.Store, c Cluster) SharedReports {
	return SharedReports{local: local, shared: c}
}

// Save saves r locally and in the cluster; a report the cluster could
// not take is still saved locally, and the error says so.
func (st SharedReports) Save(r *controller.Report) (string, error) {
	path, err := st.local.Save(r)
	if err != nil {
		return path, err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return path, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), sharedReportsTimeout)
	defer cancel()
	return path, st.shared.PutReport(ctx, r.ID, b)
}

// Load reads the report id (an exact id): from the cluster, where the
// latest version is, else from the directory (a report too large for the
// cluster, or saved while it could not be reached).
func (st SharedReports) Load(id string) (*controller.Report, error) {
	ctx, cancel := context.WithTimeout(context.Background(), sharedReportsTimeout)
	defer cancel()
	b, err := st.shared.Report(ctx, id)
	if err != nil {
		if _, serr := os.Stat(filepath.Join(st.local.Dir, id+".json")); serr == nil {
			return st.local.Load(id)
		}
		return nil, err
	}
	var r controller.Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("report %s: %w", id, err)
	}
	return &r, nil
}

// List returns the ids of the reports of the directory and the cluster,
// oldest first.
func (st SharedReports) List() ([]string, error) {
	ids, err := st.local.List()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), sharedReportsTimeout)
	defer cancel()
	more, err := st.shared.ReportIDs(ctx)
	if err != nil {
		return nil, err
	}
	return slices.Compact(slices.Sorted(slices.Values(append(ids, more...)))), nil
}

// useConsent records the consent among args, if any, as used across the
// cluster; a consent used before, or one whose use cannot be recorded, is
// refused.
func (s *Server) useConsent(ctx context.Context, args map[string]any) error {
	if s.cluster == nil {
		return nil
	}
	v, ok := args[approval.ArgConsent]
	if !ok || v == nil {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return netproto.Errorf(netproto.CodeAccessDenied, "approval: consent unreadable: %v", err)
	}
	nonce, forget, err := approval.ConsentNonce(raw, consentMaxAge)
	if err != nil {
		return err
	}
	if err := s.cluster.UseNonce(ctx, nonce, forget); err != nil {
		return netproto.Errorf(netproto.CodeAccessDenied, "approval: consent nonce %q refused by the cluster: %v", nonce, err)
	}
	return nil
}

// describeTimeout bounds the descriptions of the other replicas' devices
// before an intent runs.
const describeTimeout = 30 * time.Second

// describeRemote learns what the sessions of the devices among names that
// other replicas hold say of them. A device left undescribed is still
// read; only what its capabilities would have told (a host by its
// dialect, its optional tools) is missing, and the log says so.
func (s *Server) describeRemote(ctx context.Context, names []string) {
	ctx, cancel := context.WithTimeout(ctx, describeTimeout)
	defer cancel()
	if _, err := s.cluster.Describe(ctx, names); err != nil {
		s.watch.opts.Log.Warn("cluster: devices of other replicas not described", "error", err)
	}
}
