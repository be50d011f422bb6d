//go:build linux

package linux

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/configstore"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// Top-level members of the configuration tree besides memInterfaces:
// FRR's running configuration, one line per entry (indentation kept), and
// the FRR configuration lines of a candidate waiting for a commit.
const (
	memFRRConfig  = "netmcp-frr:configuration"
	memFRRPending = "netmcp-frr:pending"
)

// Limits advertised in the capability object.
const (
	maxBulkEdit     = 1000
	rollbackTimeout = 300
	// applyTimeout bounds one change of the device's configuration.
	applyTimeout = 2 * time.Minute
)

var _ device.Configurer = (*Driver)(nil)

// config is a configuration tree read into what the driver applies.
type config struct {
	ifs     []ifConfig
	frr     []string // FRR's configuration lines; nil: FRR is not configured
	hasFRR  bool     // the tree has an FRR member
	pending []string // FRR lines to enter at the next commit
}

// parseConfig reads a configuration tree, refusing (-32084, with the
// path) what the driver cannot apply.
func parseConfig(tree map[string]any) (config, error) {
	var c config
	for k, v := range tree {
		switch k {
		case memInterfaces:
			ifs, err := parseIfConfigs(v)
			if err != nil {
				return c, err
			}
			c.ifs = ifs
		case memFRRConfig, memFRRPending:
			lines, err := parseLines(v, "/"+k)
			if err != nil {
				return c, err
			}
			if k == memFRRConfig {
				c.frr, c.hasFRR = lines, true
				if c.frr == nil {
					c.frr = []string{}
				}
			} else {
				c.pending = lines
			}
		default:
			return c, cfgErr("/"+k, "the linux driver configures %s (netlink) and %s (FRR's configuration lines), not %s", memInterfaces, memFRRConfig, k)
		}
	}
	return c, nil
}

// parseLines reads {"line": ["...", ...]}, checking every line.
func parseLines(v any, p string) ([]string, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, cfgErr(p, "must be an object with a line list")
	}
	for k := range m {
		if k != "line" {
			return nil, cfgErr(p+"/"+k, "only a line list is allowed here, not %q", k)
		}
	}
	l, ok := m["line"].([]any)
	if !ok && m["line"] != nil {
		return nil, cfgErr(p+"/line", "line must be a list of strings")
	}
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, ok := e.(string)
		if !ok {
			return nil, cfgErr(p+"/line", "line %v is not a string", e)
		}
		if err := checkFRRLine(s); err != nil {
			var ne *netproto.Error
			if errors.As(err, &ne) {
				return nil, ne.WithPath(p + "/line")
			}
			return nil, err
		}
		out = append(out, normLine(s))
	}
	return out, nil
}

func linesTree(lines []string) obj {
	l := make([]any, len(lines))
	for i, s := range lines {
		l[i] = s
	}
	return obj{"line": l}
}

// readConfig reads the device's configuration: the interfaces from
// netlink and, where FRR runs, FRR's running configuration.
func (d *Driver) readConfig(ctx context.Context) (map[string]any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	nl, err := d.readNetlink()
	if err != nil {
		return nil, err
	}
	tree := obj{memInterfaces: ifConfigTree(ifConfigs(nl))}
	if d.hasFRR() {
		lines, err := d.readFRR(ctx)
		if err != nil {
			return nil, err
		}
		tree[memFRRConfig] = linesTree(lines)
	}
	return tree, nil
}

// where names the namespace for messages.
func (d *Driver) where() string {
	if d.netns == "" {
		return "this host"
	}
	return "namespace " + d.netns
}

// openStore opens the configuration engine over the device's current
// configuration, then makes the device run the store's running
// configuration if it differs (with a state directory: after a crash, an
// expired confirmed commit was rolled back by the store, or the device
// was changed while no netmcp served it).
func (d *Driver) openStore(ctx context.Context, opts device.Options) error {
	live, err := d.readConfig(ctx)
	if err != nil {
		return err
	}
	st, err := configstore.Open(live, configstore.Options{
		Dir: opts.StateDir, MaxBulkEdit: maxBulkEdit, DefaultConfirmTimeout: rollbackTimeout,
		Apply: d.applyRunning, Log: d.storeLog,
	})
	if err != nil {
		return fmt.Errorf("linux: %s: %w", d.where(), err)
	}
	if opts.StateDir == "" {
		d.store = st // in memory: the store starts from the device's configuration
		return nil
	}
	running := st.Running()
	same, err := d.runs(ctx, running)
	if err == nil && !same {
		slog.Info("linux: the device's configuration differs from the saved running configuration: applying the saved one",
			"device", d.name, "stateDir", opts.StateDir)
		err = d.applyRunning(running)
	}
	if err != nil {
		st.Close()
		return fmt.Errorf("linux: %s: making the device run the saved running configuration (state directory %s): %w", d.where(), opts.StateDir, err)
	}
	d.store = st
	return nil
}

// runs tells whether the device runs the configuration tree.
func (d *Driver) runs(ctx context.Context, tree map[string]any) (bool, error) {
	want, err := parseConfig(tree)
	if err != nil {
		return false, err
	}
	nl, err := d.readNetlink()
	if err != nil {
		return false, err
	}
	if !sameIfConfigs(want.ifs, ifConfigs(nl)) {
		return false, nil
	}
	if want.hasFRR {
		if !d.hasFRR() {
			return false, nil
		}
		cur, err := d.readFRR(ctx)
		if err != nil {
			return false, err
		}
		return len(frrOps(cur, want.frr)) == 0, nil
	}
	return true, nil
}

// storeLog logs the store's events (commits, confirms, rollbacks).
func (d *Driver) storeLog(e device.LogEntry) {
	lvl := slog.LevelInfo
	if e.Severity <= 4 {
		lvl = slog.LevelWarn
	}
	slog.Log(context.Background(), lvl, "linux: "+e.Message, "device", d.name, "event", e.Mnemonic)
}

// applyRunning is the store's Apply hook: it makes the device run the
// configuration running (FRR first, then the interfaces). On a failure
// what it changed is put back and the error returned, so the store
// changes nothing.
func (d *Driver) applyRunning(running map[string]any) error {
	d.applyMu.Lock()
	defer d.applyMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), applyTimeout)
	defer cancel()
	c, err := parseConfig(running)
	if err != nil {
		return err
	}
	if len(c.pending) > 0 {
		return cfgErr("/"+memFRRPending, "FRR lines still pending in a configuration to apply")
	}
	var before []string
	if c.hasFRR {
		if !d.hasFRR() {
			return cfgErr("/"+memFRRConfig, "FRR does not run in %s (no zebra socket in %s): its configuration cannot be applied", d.where(), d.frrDir())
		}
		cur, err := d.readFRR(ctx)
		if err != nil {
			return err
		}
		if len(frrOps(cur, c.frr)) > 0 {
			if err := d.checkFRR(ctx, c.frr); err != nil {
				return err
			}
			before = cur
			if err := d.setFRR(ctx, cur, c.frr); err != nil {
				return d.restoreFRR(ctx, before, err)
			}
		}
	}
	if err := d.applyInterfaces(c.ifs); err != nil {
		if before != nil {
			return d.restoreFRR(ctx, before, err)
		}
		return err
	}
	return nil
}

// restoreFRR puts FRR's configuration before back after cause; it returns
// cause, or -32085 when the restore failed too.
func (d *Driver) restoreFRR(ctx context.Context, before []string, cause error) error {
	if err := d.setFRR(ctx, nil, before); err != nil {
		return netproto.Errorf(netproto.CodeRollbackFailed, "%v; restoring FRR's configuration from before the change also failed: %v", cause, err)
	}
	return cause
}

// frrDir is where FRR's sockets are for the driver.
func (d *Driver) frrDir() string {
	if d.netns == "" {
		return FRRRunDir
	}
	return FRRRunDir + "/" + d.netns
}

// errReadOnly is the error of the Configurer methods of a driver opened
// without a configuration store.
func (d *Driver) errReadOnly() error {
	return netproto.Errorf(netproto.CodeConfigIncompatible,
		"%s is served read-only: configuration is served for a network namespace opened by its URL (linux://NETNS)", d.where())
}

// checkCandidate checks a candidate the way a commit would, without
// changing the device: every listed interface exists, FRR runs if the
// candidate configures it, and FRR's own check accepts changed lines.
func (d *Driver) checkCandidate(ctx context.Context, c config) error {
	if len(c.ifs) > 0 {
		nl, err := d.readNetlink()
		if err != nil {
			return err
		}
		for _, ic := range c.ifs {
			if !slices.ContainsFunc(nl.Ifaces, func(i *nlIface) bool { return i.Name == ic.Name }) {
				return cfgErr(fmt.Sprintf("/%s/interface[name='%s']", memInterfaces, ic.Name),
					"interface %q does not exist in %s (the linux driver configures existing interfaces; it does not create them)", ic.Name, d.where())
			}
		}
	}
	if !c.hasFRR && len(c.pending) == 0 {
		return nil
	}
	if !d.hasFRR() {
		return cfgErr("/"+memFRRConfig, "FRR does not run in %s (no zebra socket in %s): FRR configuration cannot be applied", d.where(), d.frrDir())
	}
	if c.hasFRR {
		run, _ := parseConfig(d.store.RunningView())
		if len(frrOps(run.frr, c.frr)) > 0 {
			if err := d.checkFRR(ctx, c.frr); err != nil {
				return err
			}
		}
	}
	return d.checkFRR(ctx, c.pending)
}

// Edit applies YANG edits to owner's candidate, all or nothing (taking
// the candidate lock): openconfig-interfaces config/mtu, config/enabled
// and the addresses of subinterface 0, and FRR's configuration lines
// (/netmcp-frr:configuration/line, written as FRR prints them).
func (d *Driver) Edit(ctx context.Context, owner device.Owner, edits []device.Edit) error {
	if d.store == nil {
		return d.errReadOnly()
	}
	if err := d.store.CheckEdit(ctx, owner, edits); err != nil || len(edits) == 0 {
		return err
	}
	tree := d.store.Candidate(owner)
	for i, e := range edits {
		p, err := yang.ParsePath(e.Path)
		if err != nil {
			return netproto.Errorf(netproto.CodeYangSyntaxError, "edit %d of %d: %v", i+1, len(edits), err).WithPath(e.Path)
		}
		op := string(e.Operation)
		if op == "" {
			op = string(device.OpMerge)
		}
		if tree, err = yang.Apply(tree, op, p, e.Value, nil); err != nil {
			return netproto.Errorf(netproto.CodeYangSyntaxError, "edit %d of %d: %v", i+1, len(edits), err).WithPath(e.Path)
		}
	}
	next, err := parseConfig(tree)
	if err != nil {
		return err
	}
	cur, _ := parseConfig(d.store.CandidateView(owner))
	for _, l := range next.frr {
		if secretLine(l) && !slices.Contains(cur.frr, l) {
			return cfgErr("/"+memFRRConfig+"/line",
				"FRR line %q carries a secret: send it with network.cli.configure (authorized as a write of the whole configuration), not as a YANG edit of the line list", truncate(strings.Fields(l)[0], 40)+" ...")
		}
	}
	return d.store.Edit(ctx, owner, edits)
}

// secretLine tells whether an FRR configuration line may carry a secret
// (a password, key or community). The MCP layer authorizes YANG edits by
// path and CLI lines as a write of the whole configuration, so such lines
// are accepted only as CLI lines.
func secretLine(l string) bool {
	for _, w := range strings.Fields(strings.ToLower(l)) {
		if strings.Contains(w, "password") || strings.Contains(w, "secret") || strings.Contains(w, "community") ||
			w == "key" || strings.HasSuffix(w, "-key") || strings.HasPrefix(w, "key-") {
			return true
		}
	}
	return false
}

// Configure adds FRR configuration lines to owner's candidate (taking the
// candidate lock), after FRR's own check of their syntax (vtysh
// --dryrun). They reach FRR at the commit, in order, as typed in
// "configure terminal"; FRR refusing one there aborts the commit and
// leaves FRR as it was.
func (d *Driver) Configure(ctx context.Context, owner device.Owner, lines []string) error {
	if d.store == nil {
		return d.errReadOnly()
	}
	if len(lines) == 0 {
		return netproto.Errorf(netproto.CodeConfigIncompatible, "no configuration lines (%s)", DialectFRR)
	}
	if !d.hasFRR() {
		return netproto.Errorf(netproto.CodeConfigIncompatible,
			"FRR does not run in %s: configuration lines go to FRR; interfaces are configured with YANG edits (openconfig-interfaces)", d.where())
	}
	for _, l := range lines {
		if err := checkFRRLine(l); err != nil {
			return err
		}
	}
	if err := d.checkFRR(ctx, lines); err != nil {
		return err
	}
	cand := d.store.Candidate(owner)
	c, err := parseConfig(cand)
	if err != nil {
		return err
	}
	cand[memFRRPending] = linesTree(append(c.pending, lines...))
	return d.store.ReplaceCandidate(ctx, owner, cand)
}

// Diff compares owner's candidate with running.
func (d *Driver) Diff(ctx context.Context, owner device.Owner) (device.Diff, error) {
	if d.store == nil {
		return device.Diff{}, d.errReadOnly()
	}
	return d.store.Diff(ctx, owner)
}

// Validate checks owner's candidate: what the driver can apply, the
// interfaces exist, and FRR's own check (vtysh --dryrun) of the FRR lines.
func (d *Driver) Validate(ctx context.Context, owner device.Owner) error {
	if d.store == nil {
		return d.errReadOnly()
	}
	if err := d.store.Validate(ctx, owner); err != nil {
		return err
	}
	c, err := parseConfig(d.store.CandidateView(owner))
	if err != nil {
		return err
	}
	return d.checkCandidate(ctx, c)
}

// Commit makes owner's candidate the running configuration. Pending FRR
// lines are entered in FRR first and FRR's configuration read back (it
// becomes the commit's FRR configuration, so a rollback restores exactly
// what FRR printed); then the store commits, and its Apply hook changes
// FRR's configuration lines and the interfaces (netlink). FRR or the
// kernel refusing anything gives -32084 with their words, and FRR and the
// interfaces are left as they were.
func (d *Driver) Commit(ctx context.Context, owner device.Owner, opts device.CommitOptions) (device.CommitResult, error) {
	if d.store == nil {
		return device.CommitResult{}, d.errReadOnly()
	}
	if holder, locked := d.store.LockHolder(); !locked || holder != owner {
		return d.store.Commit(ctx, owner, opts) // no changes, or the lock error
	}
	cand := d.store.Candidate(owner)
	c, err := parseConfig(cand)
	if err != nil {
		return device.CommitResult{}, err
	}
	if err := d.checkCandidate(ctx, c); err != nil {
		return device.CommitResult{}, err
	}
	if opts.DryRun || len(c.pending) == 0 {
		return d.store.Commit(ctx, owner, opts)
	}
	before, after, err := d.enterPending(ctx, c)
	if err != nil {
		return device.CommitResult{}, err
	}
	next := yang.Clone(cand).(map[string]any)
	delete(next, memFRRPending)
	next[memFRRConfig] = linesTree(after)
	if err := d.store.ReplaceCandidate(ctx, owner, next); err != nil {
		return device.CommitResult{}, d.putBackFRR(before, err)
	}
	res, err := d.store.Commit(ctx, owner, opts)
	if err != nil {
		err = d.putBackFRR(before, err)
		if rerr := d.store.ReplaceCandidate(context.Background(), owner, cand); rerr != nil {
			slog.Warn("linux: restoring the candidate after a failed commit", "device", d.name, "err", rerr)
		}
		return device.CommitResult{}, err
	}
	return res, nil
}

// enterPending makes FRR run the candidate's FRR lines (if they changed)
// and enters its pending lines; it returns FRR's configuration before and
// after. If FRR refuses a line, FRR's configuration from before is put
// back and the error is FRR's.
func (d *Driver) enterPending(ctx context.Context, c config) (before, after []string, err error) {
	d.applyMu.Lock()
	defer d.applyMu.Unlock()
	if before, err = d.readFRR(ctx); err != nil {
		return nil, nil, err
	}
	if c.hasFRR && len(frrOps(before, c.frr)) > 0 {
		if err := d.setFRR(ctx, before, c.frr); err != nil {
			return nil, nil, d.restoreFRR(ctx, before, err)
		}
	}
	if err := d.enterFRR(ctx, c.pending); err != nil {
		return nil, nil, d.restoreFRR(ctx, before, err)
	}
	if after, err = d.readFRR(ctx); err != nil {
		return nil, nil, d.restoreFRR(ctx, before, err)
	}
	return before, after, nil
}

// putBackFRR restores FRR's configuration before after a failed commit.
func (d *Driver) putBackFRR(before []string, cause error) error {
	d.applyMu.Lock()
	defer d.applyMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), applyTimeout)
	defer cancel()
	return d.restoreFRR(ctx, before, cause)
}

// Confirm makes a pending confirmed commit permanent.
func (d *Driver) Confirm(ctx context.Context, owner device.Owner) (device.CommitResult, error) {
	if d.store == nil {
		return device.CommitResult{}, d.errReadOnly()
	}
	return d.store.Confirm(ctx, owner)
}

// CancelCommit rolls a pending confirmed commit back now.
func (d *Driver) CancelCommit(ctx context.Context, owner device.Owner) (device.CommitResult, error) {
	if d.store == nil {
		return device.CommitResult{}, d.errReadOnly()
	}
	return d.store.CancelCommit(ctx, owner)
}

// Discard drops owner's candidate and releases the lock.
func (d *Driver) Discard(ctx context.Context, owner device.Owner) error {
	if d.store == nil {
		return d.errReadOnly()
	}
	return d.store.Discard(ctx, owner)
}

// Rollback makes the device run the configuration of commit id ("" = the
// one before the last) again, as a new commit.
func (d *Driver) Rollback(ctx context.Context, owner device.Owner, id string) (device.CommitResult, error) {
	if d.store == nil {
		return device.CommitResult{}, d.errReadOnly()
	}
	return d.store.Rollback(ctx, owner, id)
}

// History lists the commits, newest first.
func (d *Driver) History(ctx context.Context) ([]device.CommitInfo, error) {
	if d.store == nil {
		return nil, d.errReadOnly()
	}
	return d.store.History(ctx)
}

// CommitDiff implements device.CommitDiffer: what commit id changed, from
// the configurations the store kept of it and of the commit before.
func (d *Driver) CommitDiff(ctx context.Context, id string) (device.Diff, error) {
	if d.store == nil {
		return device.Diff{}, d.errReadOnly()
	}
	return d.store.CommitDiff(ctx, id)
}

// Release drops the owner's candidate and lock.
func (d *Driver) Release(owner device.Owner) {
	if d.store != nil {
		d.store.Release(owner)
	}
}

// configMembers are the top-level members of the configuration datastores.
var configMembers = []string{memInterfaces, memFRRConfig, memFRRPending}

// getConfig serves Get of running (read live: netlink and FRR's running
// configuration) and candidate (the lock holder's, else the store's
// running).
func (d *Driver) getConfig(ctx context.Context, ds device.Datastore, path string) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := device.ParsePath(path)
	if err != nil {
		return nil, err
	}
	if len(p) > 0 {
		if top := p[0].Module + ":" + p[0].Name; !slices.Contains(configMembers, top) {
			return nil, netproto.Errorf(netproto.CodeConfigIncompatible,
				"the linux driver's %s configuration holds %s, not %s", ds, strings.Join(configMembers, ", "), top).WithPath(path)
		}
	}
	var tree map[string]any
	if ds == device.Running {
		if tree, err = d.readConfig(ctx); err != nil {
			return nil, err
		}
	} else {
		owner, _ := d.store.LockHolder()
		tree = d.store.CandidateView(owner)
	}
	v, err := yang.Get(tree, p)
	if errors.Is(err, yang.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s in %s", device.ErrNotFound, p.String(), ds)
	}
	return v, err
}
