package gnmi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"github.com/openconfig/gnmi/proto/gnmi_ext"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/configstore"
	"github.com/netmcp/netmcp/device/gnmi/internal/wire"
	"github.com/netmcp/netmcp/internal/atomicfile"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// Limits advertised in Info.
const (
	maxBulkEdit = 1000
	// defaultConfirm is the rollback timeout of a confirmed commit that
	// names none: the Commit extension's default of 10 minutes.
	defaultConfirm = 600
	// expiryGrace delays the store's own rollback timer behind the
	// target's, so that with the Commit extension the target rolls back
	// first and the store only records it.
	expiryGrace = 2 * time.Second
)

// syncOwner is the owner of the commits that record a configuration
// changed on the target outside netmcp.
var syncOwner = device.Owner{Session: "gnmi-sync", User: "gnmi-sync"}

// extCommit is a confirmed commit made with the target's Commit
// extension, waiting for a confirmation.
type extCommit struct {
	ID       string    `json:"id"`
	Deadline time.Time `json:"deadline"`
	// Expired: the target refused a confirmation because its timer had
	// already rolled the commit back; the store's timer records it soon.
	Expired bool `json:"expired,omitempty"`
}

// commitState is the driver's side of the Commit extension.
type commitState struct {
	mu  sync.Mutex
	ext *extCommit
	// noApply: the store is recording what the target already runs (an
	// adopted outside change, or a confirmed commit the target took with
	// the extension), so Apply has nothing to send. No store timer can
	// fire meanwhile: the store has no pending commit then.
	noApply atomic.Bool
}

// storeDir and commitFile are where a state directory keeps the store
// and the pending extension commit.
func (d *Driver) storeDir() string {
	if d.cfg.StateDir == "" {
		return ""
	}
	return filepath.Join(d.cfg.StateDir, "gnmi-config")
}

func (d *Driver) commitFile() string {
	if d.cfg.StateDir == "" {
		return ""
	}
	return filepath.Join(d.cfg.StateDir, "gnmi-commit.json")
}

// openStore opens the candidate store on the target's configuration. With
// a state directory the store keeps its history; the target's current
// configuration is then recorded as a commit when it differs, except
// that a configuration the store rolled back (a confirmed commit that
// expired while no netmcp ran) is taken off the target again.
func (d *Driver) openStore(ctx context.Context) error {
	cur, err := d.readConfig(ctx)
	if err != nil {
		return err
	}
	after := func(dur time.Duration, f func()) configstore.Stopper {
		if d.caps.CommitExtension {
			dur += expiryGrace
		}
		return time.AfterFunc(dur, f)
	}
	if f := d.commitFile(); f != "" {
		var ec extCommit
		if b, err := os.ReadFile(f); err == nil && json.Unmarshal(b, &ec) == nil && ec.ID != "" {
			d.cc.ext = &ec
		}
	}
	st, err := configstore.Open(cur, configstore.Options{
		Dir: d.storeDir(), MaxBulkEdit: maxBulkEdit, DefaultConfirmTimeout: defaultConfirm,
		AfterFunc: after, Apply: d.applyRunning, Log: d.tel.storeLogged,
	})
	if err != nil {
		return fmt.Errorf("gnmi %s: %w", d.cfg.Address(), err)
	}
	d.store = st
	if d.storeDir() == "" {
		return nil
	}
	if _, pending := st.Pending(); pending {
		return nil
	}
	d.setExt(nil)
	if h, err := st.History(ctx); err == nil && len(h) > 0 && h[0].Status == device.StatusRolledBack {
		if cfg, err := st.Config(h[0].ID); err == nil && len(yang.Diff(cfg, cur, nil)) == 0 {
			if err := d.applyRunning(st.Running()); err != nil {
				return fmt.Errorf("gnmi %s: finishing the rollback of expired confirmed commit %s: %w", d.cfg.Address(), h[0].ID, err)
			}
			return nil
		}
	}
	return d.adopt(ctx, cur)
}

// readConfig reads the target's whole configuration.
func (d *Driver) readConfig(ctx context.Context) (map[string]any, error) {
	v, err := d.get(ctx, gpb.GetRequest_CONFIG, nil)
	if errors.Is(err, device.ErrNotFound) {
		return map[string]any{}, nil
	}
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "gnmi %s: the configuration read is not an object", d.cfg.Address())
	}
	return m, nil
}

// adopt records cur, the target's configuration, as a commit when it
// differs from the store's running (it was changed outside netmcp), so
// that a candidate starts from it and a rollback goes back to it. Nothing
// is adopted while a confirmed commit is pending or a candidate is held.
func (d *Driver) adopt(ctx context.Context, cur map[string]any) error {
	if _, pending := d.store.Pending(); pending {
		return nil
	}
	if _, held := d.store.LockHolder(); held {
		return nil
	}
	if len(yang.Diff(d.store.Running(), cur, nil)) == 0 {
		return nil
	}
	d.cc.noApply.Store(true)
	defer d.cc.noApply.Store(false)
	if err := d.store.ReplaceCandidate(ctx, syncOwner, cur); err != nil {
		return err
	}
	_, err := d.store.Commit(ctx, syncOwner, device.CommitOptions{Comment: "configuration changed on the target outside netmcp"})
	if err != nil {
		d.store.Discard(context.WithoutCancel(ctx), syncOwner)
	}
	return err
}

// refresh adopts the target's configuration before a new candidate.
func (d *Driver) refresh(ctx context.Context, owner device.Owner) error {
	if holder, held := d.store.LockHolder(); held && holder == owner {
		return nil
	}
	if _, held := d.store.LockHolder(); held {
		return nil // the store reports the lock
	}
	cur, err := d.readConfig(ctx)
	if err != nil {
		return err
	}
	return d.adopt(ctx, cur)
}

func (d *Driver) storeLimits() (maxBulk, rollback int) {
	if d.store == nil {
		return maxBulkEdit, defaultConfirm
	}
	return d.store.Limits()
}

func (d *Driver) candidateGet(p yang.Path) (any, error) {
	owner, _ := d.store.LockHolder()
	v, err := yang.Get(d.store.CandidateView(owner), p)
	if errors.Is(err, yang.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s in candidate", device.ErrNotFound, p)
	}
	return v, err
}

// setRequest is the Set that turns the configuration cur into target:
// deletes of what is gone, replaces of changed leaves, updates of what is
// new. It is empty when they are equal.
func (d *Driver) setRequest(cur, target map[string]any) (*gpb.SetRequest, error) {
	req := &gpb.SetRequest{}
	for _, c := range yang.Diff(cur, target, yang.DefaultSchema()) {
		p, err := yang.ParsePath(c.Path)
		if err != nil {
			return nil, err
		}
		gp := wire.ToGNMI(p, wire.OriginStyle)
		if c.Op == yang.ChangeDelete {
			req.Delete = append(req.Delete, gp)
			continue
		}
		v, err := yang.Get(target, p)
		if err != nil {
			return nil, fmt.Errorf("gnmi: value of %s: %w", c.Path, err)
		}
		tv, err := wire.EncodeJSON(v, d.enc == gpb.Encoding_JSON_IETF)
		if err != nil {
			return nil, err
		}
		u := &gpb.Update{Path: gp, Val: tv}
		if c.Op == yang.ChangeModify {
			req.Replace = append(req.Replace, u)
		} else {
			req.Update = append(req.Update, u)
		}
	}
	return req, nil
}

func empty(req *gpb.SetRequest) bool {
	return len(req.Delete)+len(req.Replace)+len(req.Update) == 0
}

// set sends a Set; what names it in errors. A refusal is -32084 with the
// target's words (or the draft's code a netmcp target sent).
func (d *Driver) set(ctx context.Context, what string, req *gpb.SetRequest) error {
	cctx, cancel := d.callCtx(ctx)
	defer cancel()
	_, err := d.client.Set(cctx, req)
	return d.fail(ctx, what, err)
}

// commitAction returns the Commit extension with action.
func commitAction(id string, action any) []*gnmi_ext.Extension {
	c := &gnmi_ext.Commit{Id: id}
	switch a := action.(type) {
	case time.Duration:
		c.Action = &gnmi_ext.Commit_Commit{Commit: &gnmi_ext.CommitRequest{RollbackDuration: durationpb.New(a)}}
	case *gnmi_ext.CommitConfirm:
		c.Action = &gnmi_ext.Commit_Confirm{Confirm: a}
	case *gnmi_ext.CommitCancel:
		c.Action = &gnmi_ext.Commit_Cancel{Cancel: a}
	case *gnmi_ext.CommitSetRollbackDuration:
		c.Action = &gnmi_ext.Commit_SetRollbackDuration{SetRollbackDuration: a}
	}
	return []*gnmi_ext.Extension{{Ext: &gnmi_ext.Extension_Commit{Commit: c}}}
}

// probeCommit asks the target to confirm a commit that does not exist: a
// target with the Commit extension refuses (nothing pending, or another
// id); one without ignores the extension and applies the empty Set.
func (d *Driver) probeCommit(ctx context.Context) bool {
	cctx, cancel := d.callCtx(ctx)
	defer cancel()
	_, err := d.client.Set(cctx, &gpb.SetRequest{Extension: commitAction("netmcp-probe-"+randomID(), &gnmi_ext.CommitConfirm{})})
	st := status.Convert(err)
	switch st.Code() {
	case codes.FailedPrecondition:
		return true
	case codes.InvalidArgument:
		return strings.Contains(strings.ToLower(st.Message()), "commit")
	}
	return false
}

func randomID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// ext returns the pending extension commit, or nil.
func (d *Driver) ext() *extCommit {
	d.cc.mu.Lock()
	defer d.cc.mu.Unlock()
	if d.cc.ext == nil {
		return nil
	}
	c := *d.cc.ext
	return &c
}

// setExt records (or, nil, forgets) the pending extension commit, in the
// state directory too.
func (d *Driver) setExt(c *extCommit) {
	d.cc.mu.Lock()
	defer d.cc.mu.Unlock()
	d.cc.ext = c
	f := d.commitFile()
	if f == "" {
		return
	}
	if c == nil {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			d.log.Warn("gnmi: removing the pending commit file", "err", err)
		}
		return
	}
	b, _ := json.Marshal(c)
	if err := atomicfile.WriteFile(f, b, 0o600); err != nil {
		d.log.Warn("gnmi: saving the pending commit", "err", err)
	}
}

// applyRunning is the store's Apply hook: it makes the target run
// running, by the Set that turns the target's configuration into it. A
// pending extension commit is cancelled first (the store rolls it back:
// cancel or expiry), so the target restores what it ran before it.
func (d *Driver) applyRunning(running map[string]any) error {
	if d.cc.noApply.Load() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*d.cfg.Timeout)
	defer cancel()
	if c := d.ext(); c != nil {
		if !c.Expired {
			err := d.set(ctx, "cancel of confirmed commit "+c.ID, &gpb.SetRequest{Extension: commitAction(c.ID, &gnmi_ext.CommitCancel{})})
			if err != nil {
				d.log.Info("gnmi: the target did not cancel the confirmed commit (its own timer may have rolled it back)", "device", d.cfg.Address(), "commit", c.ID, "err", err)
			}
		}
		d.setExt(nil)
	}
	cur, err := d.readConfig(ctx)
	if err != nil {
		return err
	}
	req, err := d.setRequest(cur, running)
	if err != nil || empty(req) {
		return err
	}
	return d.set(ctx, "Set", req)
}

// Edit applies edits to owner's candidate (taking its lock); a new
// candidate starts from the target's configuration as it is now.
func (d *Driver) Edit(ctx context.Context, owner device.Owner, edits []device.Edit) error {
	d.cfgMu.Lock()
	defer d.cfgMu.Unlock()
	if err := d.refresh(ctx, owner); err != nil {
		return err
	}
	return d.store.Edit(ctx, owner, edits)
}

// Configure refuses CLI lines: gNMI configuration is YANG data.
func (d *Driver) Configure(ctx context.Context, owner device.Owner, lines []string) error {
	return netproto.Errorf(netproto.CodeConfigIncompatible, "gnmi: %s takes no CLI configuration: send YANG edits (network.yang.edit)", d.cfg.Name)
}

// Diff compares the candidate with running.
func (d *Driver) Diff(ctx context.Context, owner device.Owner) (device.Diff, error) {
	return d.store.Diff(ctx, owner)
}

// Validate checks the candidate's bookkeeping; the target validates the
// configuration itself when it is committed (a refusal commits nothing).
func (d *Driver) Validate(ctx context.Context, owner device.Owner) error {
	return d.store.Validate(ctx, owner)
}

// Commit sends owner's candidate to the target as one Set: the changes
// between the target's configuration and the candidate. A refused Set
// changes nothing (-32084 with the target's words). A confirmed commit
// uses the target's Commit extension when it has one (the target rolls
// back unless confirmed in time; gNMI allows one at a time, so a commit
// with changes while one is pending is refused); otherwise netmcp keeps
// the configuration from before and sets it back when the timer fires.
// While an extension commit is pending, a commit without changes
// confirms it, or restarts its timer when confirmed again.
func (d *Driver) Commit(ctx context.Context, owner device.Owner, opts device.CommitOptions) (device.CommitResult, error) {
	d.cfgMu.Lock()
	defer d.cfgMu.Unlock()
	holder, held := d.store.LockHolder()
	if opts.DryRun || (held && holder != owner) {
		return d.store.Commit(ctx, owner, opts)
	}
	confirmed := opts.Confirmed
	if confirmed < 0 {
		_, confirmed = d.store.Limits()
	}
	if c := d.ext(); c != nil {
		return d.commitWhilePending(ctx, owner, opts, confirmed, c)
	}
	if confirmed == 0 || !d.caps.CommitExtension {
		return d.store.Commit(ctx, owner, opts)
	}
	cur, err := d.readConfig(ctx)
	if err != nil {
		return device.CommitResult{}, err
	}
	req, err := d.setRequest(cur, d.store.Candidate(owner))
	if err != nil {
		return device.CommitResult{}, err
	}
	if empty(req) {
		return d.store.Commit(ctx, owner, opts)
	}
	id := "netmcp-" + randomID()
	dur := time.Duration(confirmed) * time.Second
	req.Extension = commitAction(id, dur)
	if err := d.set(ctx, "confirmed commit", req); err != nil {
		return device.CommitResult{}, err
	}
	d.cc.noApply.Store(true)
	res, err := d.store.Commit(ctx, owner, opts)
	d.cc.noApply.Store(false)
	if err != nil {
		cerr := d.set(context.WithoutCancel(ctx), "cancel of confirmed commit "+id, &gpb.SetRequest{Extension: commitAction(id, &gnmi_ext.CommitCancel{})})
		if cerr != nil {
			return res, netproto.Errorf(netproto.CodeRollbackFailed, "%v; cancelling the target's confirmed commit %s also failed: %v", err, id, cerr)
		}
		return res, err
	}
	d.setExt(&extCommit{ID: id, Deadline: time.Now().Add(dur)})
	return res, nil
}

// commitWhilePending handles a commit while extension commit c waits.
func (d *Driver) commitWhilePending(ctx context.Context, owner device.Owner, opts device.CommitOptions, confirmed int, c *extCommit) (device.CommitResult, error) {
	diff, err := d.store.Diff(ctx, owner)
	if err != nil {
		return device.CommitResult{}, err
	}
	if len(diff.Changes) > 0 {
		return device.CommitResult{}, netproto.Errorf(netproto.CodeConfigIncompatible,
			"gnmi %s: confirmed commit %s is pending on the target until %s; gNMI allows one at a time: confirm or cancel it, then commit",
			d.cfg.Address(), c.ID, c.Deadline.UTC().Format(time.RFC3339)).Retryable()
	}
	if confirmed == 0 {
		return d.confirm(ctx, owner, c, func() (device.CommitResult, error) { return d.store.Commit(ctx, owner, opts) })
	}
	if c.Expired {
		return device.CommitResult{}, expiredError(c)
	}
	dur := time.Duration(confirmed) * time.Second
	req := &gpb.SetRequest{Extension: commitAction(c.ID, &gnmi_ext.CommitSetRollbackDuration{RollbackDuration: durationpb.New(dur)})}
	if err := d.set(ctx, "set_rollback_duration of confirmed commit "+c.ID, req); err != nil {
		return device.CommitResult{}, d.pendingGone(c, err)
	}
	res, err := d.store.Commit(ctx, owner, opts)
	if err == nil {
		c.Deadline = time.Now().Add(dur)
		d.setExt(c)
	}
	return res, err
}

func expiredError(c *extCommit) error {
	return netproto.Errorf(netproto.CodeConfirmedCommitTimeout, "gnmi: confirmed commit %s was rolled back by the target (its rollback timer fired)", c.ID)
}

// pendingGone turns the target's refusal of a confirm or a new rollback
// duration into -32086 when it says nothing is pending any more: its
// timer rolled the commit back. The commit is then marked expired until
// the store's own timer records the rollback.
func (d *Driver) pendingGone(c *extCommit, err error) error {
	var ne *netproto.Error
	if errors.As(err, &ne) && (ne.Code == netproto.CodeConfirmedCommitTimeout ||
		strings.Contains(ne.Detail, "FailedPrecondition") || strings.Contains(ne.Detail, "no confirmed commit")) {
		c.Expired = true
		d.setExt(c)
		return expiredError(c)
	}
	return err
}

// confirm confirms extension commit c on the target, then in the store.
func (d *Driver) confirm(ctx context.Context, owner device.Owner, c *extCommit, inStore func() (device.CommitResult, error)) (device.CommitResult, error) {
	if c.Expired {
		return device.CommitResult{}, expiredError(c)
	}
	req := &gpb.SetRequest{Extension: commitAction(c.ID, &gnmi_ext.CommitConfirm{})}
	if err := d.set(ctx, "confirm of confirmed commit "+c.ID, req); err != nil {
		return device.CommitResult{}, d.pendingGone(c, err)
	}
	d.setExt(nil)
	return inStore()
}

// Confirm makes a pending confirmed commit permanent (on the target too,
// with the Commit extension).
func (d *Driver) Confirm(ctx context.Context, owner device.Owner) (device.CommitResult, error) {
	d.cfgMu.Lock()
	defer d.cfgMu.Unlock()
	if c := d.ext(); c != nil {
		return d.confirm(ctx, owner, c, func() (device.CommitResult, error) { return d.store.Confirm(ctx, owner) })
	}
	return d.store.Confirm(ctx, owner)
}

// CancelCommit rolls a pending confirmed commit back now: the target's
// cancel with the Commit extension, else the configuration from before.
func (d *Driver) CancelCommit(ctx context.Context, owner device.Owner) (device.CommitResult, error) {
	d.cfgMu.Lock()
	defer d.cfgMu.Unlock()
	if c := d.ext(); c != nil && !c.Expired {
		req := &gpb.SetRequest{Extension: commitAction(c.ID, &gnmi_ext.CommitCancel{})}
		if err := d.set(ctx, "cancel of confirmed commit "+c.ID, req); err != nil {
			if perr := d.pendingGone(c, err); perr != err {
				return device.CommitResult{}, perr
			}
			return device.CommitResult{}, err
		}
		d.setExt(nil)
	}
	return d.store.CancelCommit(ctx, owner)
}

// Discard drops owner's candidate and releases the lock.
func (d *Driver) Discard(ctx context.Context, owner device.Owner) error {
	d.cfgMu.Lock()
	defer d.cfgMu.Unlock()
	return d.store.Discard(ctx, owner)
}

// Rollback makes the target run the configuration of commit id ("" = the
// one before the last) again, as a new commit.
func (d *Driver) Rollback(ctx context.Context, owner device.Owner, id string) (device.CommitResult, error) {
	d.cfgMu.Lock()
	defer d.cfgMu.Unlock()
	if err := d.refresh(ctx, owner); err != nil {
		return device.CommitResult{}, err
	}
	return d.store.Rollback(ctx, owner, id)
}

// PlanRollback implements device.RollbackPlanner.
func (d *Driver) PlanRollback(ctx context.Context, id string) (device.Diff, error) {
	return d.store.PlanRollback(ctx, id)
}

// CommitDiff implements device.CommitDiffer.
func (d *Driver) CommitDiff(ctx context.Context, id string) (device.Diff, error) {
	return d.store.CommitDiff(ctx, id)
}

// History lists the commits, newest first.
func (d *Driver) History(ctx context.Context) ([]device.CommitInfo, error) {
	return d.store.History(ctx)
}

// Release drops the owner's candidate and lock.
func (d *Driver) Release(owner device.Owner) {
	d.cfgMu.Lock()
	defer d.cfgMu.Unlock()
	d.store.Release(owner)
}
