package gnmiserver

import (
	"context"
	"fmt"
	"math"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"github.com/openconfig/gnmi/proto/gnmi_ext"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/gnmi/internal/wire"
)

// pendingCommit is the one confirmed commit of the Commit extension the
// server waits for a confirmation of.
type pendingCommit struct {
	id       string
	deadline time.Time
	// empty: the commit changed nothing, so the driver has nothing pending
	// (confirm and cancel only forget it).
	empty bool
}

// pendingLocked returns the confirmed commit waiting for a confirmation,
// or nil (none, or its rollback duration is over: the driver rolled it
// back). s.setMu is held.
func (s *Server) pendingLocked() *pendingCommit {
	if p := s.pending; p != nil && time.Now().Before(p.deadline) {
		return p
	}
	s.pending = nil
	return nil
}

// commitExt returns the request's Commit extension, or nil.
func commitExt(req *gpb.SetRequest) *gnmi_ext.Commit {
	for _, e := range req.GetExtension() {
		if c := e.GetCommit(); c != nil {
			return c
		}
	}
	return nil
}

// seconds is d rounded up to whole seconds, at least 1 (the driver's
// confirmed commits count seconds).
func seconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}

// Set applies the request's deletes, replaces and updates to the driver's
// candidate, all or nothing, and commits them; a refused change commits
// nothing and leaves the candidate as it was. With the Commit extension:
// commit makes a confirmed commit that the driver rolls back unless a
// confirm with the same id arrives within the rollback duration (default
// 10 minutes); cancel rolls it back now; set_rollback_duration restarts
// its timer. While one waits, another commit or a Set without the
// extension is FailedPrecondition; a confirm or cancel with nothing
// pending is FailedPrecondition, with another id InvalidArgument.
func (s *Server) Set(ctx context.Context, req *gpb.SetRequest) (*gpb.SetResponse, error) {
	cfg, ok := s.drv.(device.Configurer)
	if !ok {
		return nil, status.Error(codes.Unimplemented, "this device's configuration cannot be changed (read-only driver)")
	}
	if len(req.GetUnionReplace()) > 0 {
		return nil, status.Error(codes.Unimplemented, "union_replace is not supported: use replace and update")
	}
	owner := device.Owner{Session: s.session, User: user(ctx)}
	ext := commitExt(req)
	s.setMu.Lock()
	defer s.setMu.Unlock()
	p := s.pendingLocked()
	hasChanges := len(req.GetDelete())+len(req.GetReplace())+len(req.GetUpdate()) > 0
	if ext != nil && ext.GetId() == "" {
		return nil, status.Error(codes.InvalidArgument, "the Commit extension has no id")
	}
	if ext != nil && ext.GetCommit() == nil && hasChanges {
		return nil, status.Error(codes.InvalidArgument, "a confirm, cancel or set_rollback_duration carries no changes: send them with a commit")
	}
	checkPending := func() error {
		if p == nil {
			return status.Errorf(codes.FailedPrecondition, "no confirmed commit is waiting for a confirmation (commit %q is unknown or was rolled back)", ext.GetId())
		}
		if p.id != ext.GetId() {
			return status.Errorf(codes.InvalidArgument, "commit id %q does not match the pending commit %q", ext.GetId(), p.id)
		}
		return nil
	}
	now := time.Now()
	switch {
	case ext == nil || ext.GetCommit() != nil:
		if p != nil {
			return nil, status.Errorf(codes.FailedPrecondition, "confirmed commit %q is waiting for a confirmation until %s: confirm or cancel it first",
				p.id, p.deadline.UTC().Format(time.RFC3339))
		}
		confirmed := 0
		var rollback time.Duration
		if ext != nil {
			rollback = DefaultRollback
			if d := ext.GetCommit().GetRollbackDuration(); d != nil {
				rollback = d.AsDuration()
			}
			if rollback <= 0 {
				return nil, status.Error(codes.InvalidArgument, "rollback_duration must be positive")
			}
			confirmed = seconds(rollback)
		}
		results, res, err := s.apply(ctx, cfg, owner, req, confirmed)
		if err != nil {
			return nil, err
		}
		if ext != nil {
			s.pending = &pendingCommit{id: ext.GetId(), deadline: now.Add(time.Duration(confirmed) * time.Second),
				empty: res.Status == device.StatusNoChanges}
		}
		return &gpb.SetResponse{Prefix: req.GetPrefix(), Response: results, Timestamp: now.UnixNano()}, nil
	case ext.GetConfirm() != nil, ext.GetCancel() != nil:
		if err := checkPending(); err != nil {
			return nil, err
		}
		if !p.empty {
			var err error
			if ext.GetConfirm() != nil {
				_, err = cfg.Confirm(ctx, owner)
			} else {
				_, err = cfg.CancelCommit(ctx, owner)
			}
			if err != nil {
				return nil, wire.Status(err)
			}
		}
		s.pending = nil
	case ext.GetSetRollbackDuration() != nil:
		if err := checkPending(); err != nil {
			return nil, err
		}
		d := ext.GetSetRollbackDuration().GetRollbackDuration().AsDuration()
		if d <= 0 {
			return nil, status.Error(codes.InvalidArgument, "set_rollback_duration needs a positive rollback_duration")
		}
		if !p.empty {
			// A confirmed commit without changes restarts the timer
			// (RFC 6241 section 8.4, as device.Configurer implements it).
			if _, err := cfg.Commit(ctx, owner, device.CommitOptions{Confirmed: seconds(d), Comment: "gNMI set_rollback_duration " + p.id}); err != nil {
				cfg.Discard(context.WithoutCancel(ctx), owner)
				return nil, wire.Status(err)
			}
		}
		p.deadline = now.Add(time.Duration(seconds(d)) * time.Second)
	default:
		return nil, status.Error(codes.InvalidArgument, "the Commit extension has no action")
	}
	return &gpb.SetResponse{Prefix: req.GetPrefix(), Timestamp: now.UnixNano()}, nil
}

// apply edits the driver's candidate with the request's changes and
// commits it (confirmed > 0: a confirmed commit of that many seconds).
// Anything refused discards the candidate: nothing changes.
func (s *Server) apply(ctx context.Context, cfg device.Configurer, owner device.Owner, req *gpb.SetRequest, confirmed int) ([]*gpb.UpdateResult, device.CommitResult, error) {
	var edits []device.Edit
	var results []*gpb.UpdateResult
	add := func(p *gpb.Path, op device.EditOperation, rop gpb.UpdateResult_Operation, val *gpb.TypedValue) error {
		yp, _, err := s.yangPath(req.GetPrefix(), p)
		if err != nil {
			return err
		}
		if len(yp) == 0 && op != device.OpMerge {
			return status.Errorf(codes.Unimplemented, "%s of the root is not supported: name the top-level nodes", rop)
		}
		if wire.HasWildcard(yp) {
			return status.Errorf(codes.InvalidArgument, "path %s has a wildcard: a Set names each node", wire.Text(p))
		}
		e := device.Edit{Operation: op, Path: yp.String()}
		if val != nil {
			v, err := wire.Decode(val)
			if err != nil {
				return wire.Status(err)
			}
			e.Value = wire.Unqualify(v, wire.Module(yp))
		}
		edits = append(edits, e)
		results = append(results, &gpb.UpdateResult{Path: p, Op: rop})
		return nil
	}
	for _, p := range req.GetDelete() {
		if err := add(p, device.OpRemove, gpb.UpdateResult_DELETE, nil); err != nil {
			return nil, device.CommitResult{}, err
		}
	}
	for _, u := range req.GetReplace() {
		if err := add(u.GetPath(), device.OpReplace, gpb.UpdateResult_REPLACE, u.GetVal()); err != nil {
			return nil, device.CommitResult{}, err
		}
	}
	for _, u := range req.GetUpdate() {
		if err := add(u.GetPath(), device.OpMerge, gpb.UpdateResult_UPDATE, u.GetVal()); err != nil {
			return nil, device.CommitResult{}, err
		}
	}
	if len(edits) > 0 {
		if err := cfg.Edit(ctx, owner, edits); err != nil {
			cfg.Discard(context.WithoutCancel(ctx), owner)
			return nil, device.CommitResult{}, wire.Status(err)
		}
	}
	comment := "gNMI Set"
	if confirmed > 0 {
		comment = fmt.Sprintf("gNMI Set, confirmed commit (rollback in %d s)", confirmed)
	}
	res, err := cfg.Commit(ctx, owner, device.CommitOptions{Confirmed: confirmed, Comment: comment})
	if err != nil {
		cfg.Discard(context.WithoutCancel(ctx), owner)
		return nil, device.CommitResult{}, wire.Status(err)
	}
	return results, res, nil
}
