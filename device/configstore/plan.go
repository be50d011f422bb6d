package configstore

import (
	"context"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
)

// PlanRollback implements device.RollbackPlanner: the difference between
// running and the configuration a Rollback(ctx, owner, id) would restore
// ("" = the commit before the last). It changes nothing.
func (s *Store) PlanRollback(ctx context.Context, id string) (device.Diff, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx); err != nil {
		return device.Diff{}, err
	}
	target := id
	if id == "" {
		if s.st.Head == "" {
			return device.Diff{}, netproto.Errorf(netproto.CodeRollbackFailed,
				"nothing to roll back: running is the initial configuration")
		}
		target = s.records[s.st.Head].Parent
	} else if s.records[id] == nil {
		return device.Diff{}, netproto.Errorf(netproto.CodeRollbackFailed,
			"unknown commit id %q (see the commit history)", id)
	}
	return s.diff(s.st.Running, s.configOf(target), "running", nameOf(target)), nil
}

var _ device.RollbackPlanner = (*Store)(nil)
