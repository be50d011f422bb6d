package configstore

import (
	"context"
	"fmt"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
)

// Commit copies owner's candidate to running after validating it, records
// the commit in the history with its full configuration, and releases the
// lock. Outcomes:
//   - DryRun: status "dry-run" with the diff; nothing changes.
//   - No changes: status "no-changes", no history entry; while a confirmed
//     commit is pending, a plain commit without changes confirms it (status
//     "confirmed") and a confirmed one resets its timer (status
//     "committed"), as RFC 6241 section 8.4 says.
//   - Confirmed > 0 (< 0 means Options.DefaultConfirmTimeout): status
//     "committed" with rollbackTimeout and deadline; without a Confirm in
//     time, running returns to the configuration from before the first of
//     the pending confirmed commits. A plain commit while one is pending
//     confirms it.
//
// Options.Apply refusing the configuration gives its *netproto.Error, or
// -32084 for other errors; nothing changes then.
func (s *Store) Commit(ctx context.Context, owner device.Owner, opts device.CommitOptions) (device.CommitResult, error) {
	if err := s.begin(ctx); err != nil {
		return device.CommitResult{}, err
	}
	defer s.end()
	if err := s.lockedBy(owner); err != nil {
		return device.CommitResult{}, err
	}
	cand := s.candidateLocked(owner)
	if err := s.validate(cand); err != nil {
		return device.CommitResult{}, err
	}
	confirmed := opts.Confirmed
	if confirmed < 0 {
		confirmed = s.opts.DefaultConfirmTimeout
	}
	d := s.diff(s.st.Running, cand, "running", "candidate")
	if opts.DryRun {
		return device.CommitResult{Status: device.StatusDryRun, Diff: &d}, nil
	}
	now := s.opts.Now()
	if len(d.Changes) == 0 {
		defer s.dropCandidate(owner)
		switch p := s.st.Pending; {
		case p != nil && confirmed > 0:
			return s.extendLocked(owner, confirmed, now)
		case p != nil:
			return s.confirmLocked(owner)
		}
		return device.CommitResult{Status: device.StatusNoChanges}, nil
	}
	if err := s.apply(cand); err != nil {
		return device.CommitResult{}, annotate(err, incompatible, "device refused the configuration: ", "")
	}
	rec := s.newRecord(owner, now, opts.Comment, confirmed, cand)
	next := s.st.clone()
	s.addCommit(next, rec)
	wasPending := next.Pending
	switch {
	case confirmed > 0 && wasPending != nil:
		next.Pending.ID, next.Pending.Owner, next.Pending.Confirmed = rec.ID, owner, confirmed
		next.Pending.Deadline = now.Add(time.Duration(confirmed) * time.Second)
		next.Pending.IDs = append(next.Pending.IDs, rec.ID)
	case confirmed > 0:
		next.Pending = &Pending{ID: rec.ID, Owner: owner, Confirmed: confirmed,
			Deadline: now.Add(time.Duration(confirmed) * time.Second),
			IDs:      []string{rec.ID}, Before: s.st.Head}
	case wasPending != nil:
		// A confirming commit (RFC 6241 section 8.4).
		for _, id := range wasPending.IDs {
			next.setStatus(id, device.StatusConfirmed)
		}
		next.Pending = nil
	}
	if err := s.save(next, rec); err != nil {
		s.revert()
		return device.CommitResult{}, err
	}
	s.dropCandidate(owner)
	res := device.CommitResult{Status: device.StatusCommitted, CommitID: rec.ID, Diff: &d}
	msg := fmt.Sprintf("configuration committed by %s, commit-id %s", who(owner), rec.ID)
	if p := next.Pending; p != nil {
		s.arm(p.Deadline.Sub(now))
		res.RollbackTimeout, res.Deadline = confirmed, p.Deadline
		msg += fmt.Sprintf(", confirmed commit: rolled back unless confirmed within %d s (by %s)",
			confirmed, p.Deadline.UTC().Format(time.RFC3339))
	} else if wasPending != nil {
		s.stopTimer()
		msg += fmt.Sprintf(", confirming commit %s", wasPending.ID)
	}
	s.log(5, "COMMIT", msg)
	return res, nil
}

// extendLocked resets the timer of the pending confirmed commit (a
// follow-up confirmed commit without changes).
func (s *Store) extendLocked(owner device.Owner, confirmed int, now time.Time) (device.CommitResult, error) {
	next := s.st.clone()
	p := next.Pending
	p.Owner, p.Confirmed = owner, confirmed
	p.Deadline = now.Add(time.Duration(confirmed) * time.Second)
	if err := s.save(next, nil); err != nil {
		return device.CommitResult{}, err
	}
	s.arm(p.Deadline.Sub(now))
	s.log(5, "COMMIT", fmt.Sprintf("confirmed commit %s extended by %s: rolled back unless confirmed within %d s",
		p.ID, who(owner), confirmed))
	return device.CommitResult{Status: device.StatusCommitted, CommitID: p.ID,
		RollbackTimeout: confirmed, Deadline: p.Deadline}, nil
}

// Confirm makes the pending confirmed commit permanent (status
// "confirmed"). After its timer fired and rolled it back it gives -32086
// Network.ConfirmedCommitTimeout, until the next commit; with nothing
// pending it gives -32084 ("no confirmed commit is pending"). Any owner may
// confirm (the MCP layer decides who is allowed).
func (s *Store) Confirm(ctx context.Context, owner device.Owner) (device.CommitResult, error) {
	if err := s.begin(ctx); err != nil {
		return device.CommitResult{}, err
	}
	defer s.end()
	if err := s.nothingPending("confirm"); err != nil {
		return device.CommitResult{}, err
	}
	return s.confirmLocked(owner)
}

// nothingPending returns the error for a confirm or cancel with no pending
// confirmed commit, or nil when one is pending.
func (s *Store) nothingPending(what string) error {
	if s.st.Pending != nil {
		return nil
	}
	if e := s.st.Expired; e != nil {
		return netproto.Errorf(netproto.CodeConfirmedCommitTimeout,
			"confirmed commit %s expired at %s; configuration rolled back", e.ID, e.Deadline.UTC().Format(time.RFC3339))
	}
	return errNothingPending(what)
}

func (s *Store) confirmLocked(owner device.Owner) (device.CommitResult, error) {
	p := s.st.Pending
	next := s.st.clone()
	for _, id := range p.IDs {
		next.setStatus(id, device.StatusConfirmed)
	}
	next.Pending = nil
	if err := s.save(next, nil); err != nil {
		return device.CommitResult{}, err
	}
	s.stopTimer()
	s.log(5, "CONFIRM", fmt.Sprintf("confirmed commit %s confirmed by %s", p.ID, who(owner)))
	return device.CommitResult{Status: device.StatusConfirmed, CommitID: p.ID}, nil
}

// CancelCommit rolls the pending confirmed commit back at once to the
// configuration from before it (status "cancelled"). Errors are those of
// Confirm, and -32085 when Options.Apply refuses the old configuration.
func (s *Store) CancelCommit(ctx context.Context, owner device.Owner) (device.CommitResult, error) {
	if err := s.begin(ctx); err != nil {
		return device.CommitResult{}, err
	}
	defer s.end()
	if err := s.nothingPending("cancel-commit"); err != nil {
		return device.CommitResult{}, err
	}
	p := s.st.Pending.clone()
	if err := s.rollbackPending(device.StatusCancelled, true); err != nil {
		return device.CommitResult{}, err
	}
	s.stopTimer()
	s.log(5, "CANCEL", fmt.Sprintf("confirmed commit %s cancelled by %s; configuration rolled back to %s",
		p.ID, who(owner), nameOf(p.Before)))
	return device.CommitResult{Status: device.StatusCancelled, CommitID: p.ID}, nil
}

// rollbackPending makes running the configuration from before the pending
// confirmed commit and marks its commits with status. With callApply the
// device is given the configuration first (-32085 if it refuses).
func (s *Store) rollbackPending(status string, callApply bool) error {
	p := s.st.Pending
	target := s.configOf(p.Before)
	if callApply {
		if err := s.apply(target); err != nil {
			return annotate(err, netproto.CodeRollbackFailed,
				fmt.Sprintf("rolling back confirmed commit %s: device refused the configuration of %s: ", p.ID, nameOf(p.Before)), "")
		}
	}
	next := s.st.clone()
	next.Running, next.Head, next.Pending = target, p.Before, nil
	for _, id := range p.IDs {
		next.setStatus(id, status)
	}
	if status == device.StatusRolledBack {
		next.Expired = &expiry{ID: p.ID, Deadline: p.Deadline}
	}
	if err := s.save(next, nil); err != nil {
		if callApply {
			s.revert()
		}
		return err
	}
	return nil
}

// Rollback makes running the configuration of commit id ("" = the one
// running before the last commit still in effect, i.e. not cancelled or
// rolled back) as a new commit (status "rolled-back", the new commit's id).
// The configuration of every commit stays available, whatever its status.
// The caller's uncommitted candidate is discarded. Errors: *LockedError
// when another owner holds the candidate lock; -32085 for an unknown id,
// when there is nothing to roll back to, while a confirmed commit is
// pending (confirm or cancel it first), or when Options.Apply refuses.
// Rolling back to the running configuration gives "no-changes".
func (s *Store) Rollback(ctx context.Context, owner device.Owner, id string) (device.CommitResult, error) {
	if err := s.begin(ctx); err != nil {
		return device.CommitResult{}, err
	}
	defer s.end()
	if err := s.lockedBy(owner); err != nil {
		return device.CommitResult{}, err
	}
	if p := s.st.Pending; p != nil {
		return device.CommitResult{}, netproto.Errorf(netproto.CodeRollbackFailed,
			"confirmed commit %s is pending until %s; confirm or cancel it before a rollback",
			p.ID, p.Deadline.UTC().Format(time.RFC3339)).Retryable()
	}
	target, err := s.rollbackTarget(id)
	if err != nil {
		return device.CommitResult{}, err
	}
	cfg := s.configOf(target)
	d := s.diff(s.st.Running, cfg, "running", nameOf(target))
	s.dropCandidate(owner)
	if len(d.Changes) == 0 {
		return device.CommitResult{Status: device.StatusNoChanges}, nil
	}
	if err := s.apply(cfg); err != nil {
		return device.CommitResult{}, annotate(err, netproto.CodeRollbackFailed,
			fmt.Sprintf("device refused the configuration of %s: ", nameOf(target)), "")
	}
	now := s.opts.Now()
	rec := s.newRecord(owner, now, "rollback to "+nameOf(target), 0, cfg)
	next := s.st.clone()
	s.addCommit(next, rec)
	if err := s.save(next, rec); err != nil {
		s.revert()
		return device.CommitResult{}, err
	}
	s.log(5, "ROLLBACK", fmt.Sprintf("configuration rolled back to %s by %s, commit-id %s", nameOf(target), who(owner), rec.ID))
	return device.CommitResult{Status: device.StatusRolledBack, CommitID: rec.ID, Diff: &d}, nil
}

// addCommit adds rec to next as the new running configuration.
func (s *Store) addCommit(next *state, rec *record) {
	next.Seq++
	rec.Seq = next.Seq
	next.Commits = append(next.Commits, commitRef{ID: rec.ID, Status: rec.Status})
	next.Head, next.Running, next.Expired = rec.ID, rec.Config, nil
}

// apply gives cfg to Options.Apply.
func (s *Store) apply(cfg map[string]any) error {
	if s.opts.Apply == nil {
		return nil
	}
	return s.opts.Apply(cloneTree(cfg))
}

// revert gives the device back the running configuration after a change
// that Apply accepted could not be made durable.
func (s *Store) revert() {
	if err := s.apply(s.st.Running); err != nil {
		s.log(3, "APPLY_FAILED", fmt.Sprintf("restoring the running configuration after a failed write: %v", err))
	}
}

// dropCandidate releases owner's candidate and lock, if owner holds them.
func (s *Store) dropCandidate(owner device.Owner) {
	if s.holder != nil && *s.holder == owner {
		if err := s.setCandidate(nil, nil); err != nil {
			s.log(3, "CANDIDATE", fmt.Sprintf("releasing the candidate of %s: %v", who(owner), err))
		}
	}
}
