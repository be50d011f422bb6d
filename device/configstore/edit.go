package configstore

import (
	"context"
	"fmt"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

const (
	yangSyntax   = netproto.CodeYangSyntaxError
	incompatible = netproto.CodeConfigIncompatible
)

// lockedBy returns a *LockedError if an owner other than owner holds the
// candidate lock.
func (s *Store) lockedBy(owner device.Owner) error {
	if s.holder != nil && *s.holder != owner {
		if s.dropDead(); s.holder == nil {
			return nil
		}
		return &LockedError{Holder: *s.holder}
	}
	return nil
}

// begin starts a change of the store: s.mu, then (with a directory) its
// lock and what other processes changed. The caller defers s.end().
func (s *Store) begin(ctx context.Context) error {
	s.mu.Lock()
	if err := s.check(ctx); err != nil {
		s.mu.Unlock()
		return err
	}
	if err := s.enter(); err != nil {
		s.mu.Unlock()
		return err
	}
	return nil
}

// end ends what begin started.
func (s *Store) end() {
	s.leave()
	s.mu.Unlock()
}

// Edit applies edits to owner's candidate, all or nothing, and takes the
// candidate lock. Errors (nothing is applied):
//   - *LockedError when another owner holds the lock;
//   - -32084 when there are more edits than Options.MaxBulkEdit ("request
//     has N edits; maxBulkEdit is M": the controller should chunk them, as
//     MCP-NET section 3.1 says), or a path names a node the schema does not
//     know, or the result fails the schema's rules;
//   - -32088 for a path that does not parse, an unknown operation, a create
//     of an existing node, a delete of a missing node or a bad value.
//
// The error's detail starts with "edit I of N: " and its path is the edit's.
func (s *Store) Edit(ctx context.Context, owner device.Owner, edits []device.Edit) error {
	if err := s.begin(ctx); err != nil {
		return err
	}
	defer s.end()
	tree, err := s.editedLocked(ctx, owner, edits)
	if err != nil || len(edits) == 0 {
		return err
	}
	return s.setCandidate(tree, &owner)
}

// editedLocked returns owner's candidate with edits applied and checked,
// changing nothing: the context, the candidate lock, the bulk limit, each
// edit, then (when there are edits) the schema's rules on the result; s.mu
// is held.
func (s *Store) editedLocked(ctx context.Context, owner device.Owner, edits []device.Edit) (map[string]any, error) {
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	if err := s.lockedBy(owner); err != nil {
		return nil, err
	}
	if len(edits) > s.opts.MaxBulkEdit {
		return nil, netproto.Errorf(incompatible, "request has %d edits; maxBulkEdit is %d", len(edits), s.opts.MaxBulkEdit)
	}
	tree := s.candidateLocked(owner)
	if len(edits) == 0 {
		return tree, nil
	}
	for i, e := range edits {
		var err error
		if tree, err = s.applyEdit(tree, e); err != nil {
			return nil, annotate(err, yangSyntax, fmt.Sprintf("edit %d of %d: ", i+1, len(edits)), e.Path)
		}
	}
	return tree, s.validate(tree)
}

// CheckEdit reports the error Edit would return for edits, without changing
// anything: the candidate lock, the bulk limit, every edit and the schema's
// rules on the result. It lets a caller refuse a change that cannot apply
// before anyone is asked to approve it. With no edits it checks that owner
// may change the candidate and that owner's candidate is valid (what
// Commit checks first).
func (s *Store) CheckEdit(ctx context.Context, owner device.Owner, edits []device.Edit) error {
	if err := s.begin(ctx); err != nil {
		return err
	}
	defer s.end()
	tree, err := s.editedLocked(ctx, owner, edits)
	if err != nil || len(edits) > 0 {
		return err
	}
	return s.validate(tree) // no edits: is owner's candidate valid as it is?
}

// applyEdit returns tree with edit e applied; tree is not modified.
func (s *Store) applyEdit(tree map[string]any, e device.Edit) (map[string]any, error) {
	op := e.Operation
	switch op {
	case "":
		op = device.OpMerge
	case device.OpMerge, device.OpReplace, device.OpCreate, device.OpDelete, device.OpRemove:
	default:
		return nil, fmt.Errorf("unknown operation %q (want merge, replace, create, delete or remove)", op)
	}
	p, err := yang.ParsePath(e.Path)
	if err != nil {
		return nil, err
	}
	if s.opts.Schema != nil {
		if err := s.opts.Schema.Check(p); err != nil {
			return nil, annotate(err, incompatible, "", p.String())
		}
	}
	// Apply normalizes the value (and ignores it for delete and remove).
	return yang.Apply(tree, string(op), p, e.Value, s.opts.Schema)
}

// ReplaceCandidate replaces owner's whole candidate with tree (whole-config
// replace, MCP-NET section 5.3) after validating it, and takes the lock.
// Errors are those of Edit.
func (s *Store) ReplaceCandidate(ctx context.Context, owner device.Owner, tree map[string]any) error {
	t, err := normalizeTree(tree)
	if err != nil {
		return annotate(err, yangSyntax, "candidate configuration: ", "")
	}
	if err := s.begin(ctx); err != nil {
		return err
	}
	defer s.end()
	if err := s.lockedBy(owner); err != nil {
		return err
	}
	if err := s.validate(t); err != nil {
		return err
	}
	return s.setCandidate(t, &owner)
}

// Diff compares owner's candidate with running.
func (s *Store) Diff(ctx context.Context, owner device.Owner) (device.Diff, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx); err != nil {
		return device.Diff{}, err
	}
	if err := s.refresh(); err != nil {
		return device.Diff{}, err
	}
	return s.diff(s.st.Running, s.candidateLocked(owner), "running", "candidate"), nil
}

// diff returns the difference from a to b.
func (s *Store) diff(a, b map[string]any, aName, bName string) device.Diff {
	changes := yang.Diff(a, b, s.opts.Schema)
	d := device.Diff{Unified: yang.UnifiedDiff(a, b, aName, bName), Changes: make([]device.Change, len(changes))}
	for i, c := range changes {
		// Copies: the values may be subtrees of the store's trees.
		d.Changes[i] = device.Change{Op: c.Op, Path: c.Path, Old: yang.Clone(c.Old), New: yang.Clone(c.New)}
	}
	return d
}

// Validate checks owner's candidate against the schema (-32088 / -32084).
func (s *Store) Validate(ctx context.Context, owner device.Owner) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx); err != nil {
		return err
	}
	if err := s.refresh(); err != nil {
		return err
	}
	return s.validate(s.candidateLocked(owner))
}

// Discard drops owner's uncommitted candidate and releases the lock. It
// gives a *LockedError when another owner holds the lock.
func (s *Store) Discard(ctx context.Context, owner device.Owner) error {
	if err := s.begin(ctx); err != nil {
		return err
	}
	defer s.end()
	if err := s.lockedBy(owner); err != nil {
		return err
	}
	if s.holder == nil {
		return nil
	}
	return s.setCandidate(nil, nil)
}

// Release drops owner's uncommitted candidate and frees the lock if owner
// holds it (its session ended). A pending confirmed commit is not affected:
// unlike RFC 6241 section 8.4.1 without <persist>, the end of the session
// does not roll it back, because an MCP controller may confirm over a new
// session (MCP-NET section 8.4); its timer still does.
func (s *Store) Release(owner device.Owner) {
	if s.begin(context.Background()) != nil {
		return
	}
	defer s.end()
	s.dropCandidate(owner)
}

// validate checks a whole tree against Options.Schema (nil: no checks) and
// returns the problem as a *netproto.Error (-32088 unless it has a code).
func (s *Store) validate(tree map[string]any) error {
	if s.opts.Schema == nil {
		return nil
	}
	if err := s.opts.Schema.Validate(tree); err != nil {
		return annotate(err, yangSyntax, "", "")
	}
	return nil
}
