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
	if err := s.refresh(); err != nil {
		return device.Diff{}, err
	}
	target, err := s.rollbackTarget(id)
	if err != nil {
		return device.Diff{}, err
	}
	return s.diff(s.st.Running, s.configOf(target), "running", nameOf(target)), nil
}

// rollbackTarget resolves the commit a rollback to id returns to ("" = the
// one before the last); s.mu is held.
func (s *Store) rollbackTarget(id string) (string, error) {
	if id == "" {
		if s.st.Head == "" {
			return "", netproto.Errorf(netproto.CodeRollbackFailed,
				"nothing to roll back: running is the initial configuration")
		}
		return s.records[s.st.Head].Parent, nil
	}
	if s.records[id] == nil {
		return "", netproto.Errorf(netproto.CodeRollbackFailed,
			"unknown commit id %q (see the commit history)", id)
	}
	return id, nil
}

var _ device.RollbackPlanner = (*Store)(nil)

// CommitDiff implements device.CommitDiffer: the difference between the
// configuration before commit id and the one it made. An unknown id gives
// -32085.
func (s *Store) CommitDiff(ctx context.Context, id string) (device.Diff, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx); err != nil {
		return device.Diff{}, err
	}
	if err := s.refresh(); err != nil {
		return device.Diff{}, err
	}
	rec := s.records[id]
	if id == "" || rec == nil {
		return device.Diff{}, netproto.Errorf(netproto.CodeRollbackFailed,
			"unknown commit id %q (see the commit history)", id)
	}
	return s.diff(s.configOf(rec.Parent), rec.Config, nameOf(rec.Parent), nameOf(id)), nil
}

var _ device.CommitDiffer = (*Store)(nil)
