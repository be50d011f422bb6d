package configstore

import (
	"context"
	"fmt"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
)

// newRecord returns a history record for a commit made now.
func (s *Store) newRecord(owner device.Owner, now time.Time, comment string, confirmed int, cfg map[string]any) *record {
	return &record{
		CommitInfo: device.CommitInfo{ID: s.newID(now), Time: now.UTC(), User: owner.User,
			Session: owner.Session, Comment: comment, Status: device.StatusCommitted, Confirmed: confirmed},
		Parent: s.st.Head,
		Config: cfg,
	}
}

// newID returns the MCP-NET commit id for now: "2025-10-19-03-27-00" in
// UTC, with "-2", "-3"... appended when the id is taken.
func (s *Store) newID(now time.Time) string {
	base := now.UTC().Format("2006-01-02-15-04-05")
	id := base
	for n := 2; s.records[id] != nil; n++ {
		id = fmt.Sprintf("%s-%d", base, n)
	}
	return id
}

// configOf returns the configuration of commit id ("" = the initial one).
func (s *Store) configOf(id string) map[string]any {
	if id == "" {
		return s.base
	}
	return s.records[id].Config
}

// nameOf names commit id in messages.
func nameOf(id string) string {
	if id == "" {
		return "the initial configuration"
	}
	return "commit " + id
}

// History lists the commits, newest first.
func (s *Store) History(ctx context.Context) ([]device.CommitInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ctx != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err := s.refresh(); err != nil {
		return nil, err
	}
	out := make([]device.CommitInfo, 0, len(s.st.Commits))
	for i := len(s.st.Commits) - 1; i >= 0; i-- {
		c := s.st.Commits[i]
		info := s.records[c.ID].CommitInfo
		info.Status = c.Status
		out = append(out, info)
	}
	return out, nil
}

// Config returns a copy of the full configuration of commit id, whatever
// its status; "" gives the initial configuration. An unknown id gives
// -32085.
func (s *Store) Config(id string) (map[string]any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refresh(); err != nil {
		return nil, err
	}
	if id != "" && s.records[id] == nil {
		return nil, netproto.Errorf(netproto.CodeRollbackFailed, "unknown commit id %q", id)
	}
	return cloneTree(s.configOf(id)), nil
}
