package sshcli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/scrapli/scrapligo/driver/network"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/clitree"
	"github.com/netmcp/netmcp/netproto"
)

// Members of the configuration trees this driver keeps in its configstore:
// the running configuration as the device prints it, one entry per line
// (indentation kept), and a candidate's CLI lines waiting for a commit.
const (
	memConfig  = "netmcp-cli:configuration"
	memPending = "netmcp-cli:pending"
)

// textTree is the configuration tree of a running-configuration text.
func textTree(text string) map[string]any {
	return map[string]any{memConfig: map[string]any{"line": toAny(configLines(text))}}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func linesOf(tree map[string]any, member string) []string {
	m, _ := tree[member].(map[string]any)
	l, _ := m["line"].([]any)
	out := make([]string, 0, len(l))
	for _, v := range l {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// configLines keeps the lines of a printed configuration that carry
// configuration: no blank lines, separators ("!", "#"), block ends ("exit",
// "quit", "end", "return") or banners ("Building configuration...").
func configLines(text string) []string {
	var out []string
	prev := "" // the raw line before this one
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r", ""), "\n") {
		l = strings.TrimRight(l, " \t")
		t := strings.TrimSpace(l)
		last := prev
		prev = l
		// An empty block ("interface eth0" directly followed by "exit" at
		// its own indentation, as FRR prints it) configures nothing.
		if t == "exit" && len(out) > 0 && out[len(out)-1] == last && clitree.Indent(last) == clitree.Indent(l) {
			out = out[:len(out)-1]
			continue
		}
		switch {
		case t == "", strings.HasPrefix(t, "!"), t == "#", t == "exit", t == "quit", t == "end", t == "return",
			t == "Building configuration...", t == "Current configuration:", strings.HasPrefix(t, "Current configuration :"):
			continue
		}
		out = append(out, l)
	}
	return out
}

// restoreLines are the configuration-mode lines that turn the configuration
// cur into target: removed lines are negated ("no X", VRP "undo X") inside
// their parent's context (a removed block is emptied, not negated), added lines are entered with their children, and
// each entered context is left again ("exit", VRP "quit").
func restoreLines(d *dialect, cur, target []string) []string {
	var out []string
	var walk func(c, t []*clitree.Node)
	walk = func(c, t []*clitree.Node) {
		ci, ti := clitree.Index(c), clitree.Index(t)
		for _, n := range c {
			if _, keep := ti[n.Line]; keep {
				continue
			}
			if len(n.Kids) == 0 {
				out = append(out, d.negate(n.Line))
				continue
			}
			// A removed block: its lines are negated inside it, and the
			// then empty block is left in place (negating the header
			// itself is refused for some, e.g. FRR's "no interface eth0"
			// of a kernel interface).
			out = append(out, n.Line)
			walk(n.Kids, nil)
			out = append(out, d.exitContext())
		}
		for _, n := range t {
			old, had := ci[n.Line]
			switch {
			case !had:
				out = append(out, n.Line)
				if len(n.Kids) > 0 {
					walk(nil, n.Kids)
					out = append(out, d.exitContext())
				}
			case !sameTree(old.Kids, n.Kids):
				out = append(out, n.Line)
				walk(old.Kids, n.Kids)
				out = append(out, d.exitContext())
			}
		}
	}
	walk(clitree.Parse(cur), clitree.Parse(target))
	return out
}

func sameTree(a, b []*clitree.Node) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Line != b[i].Line || !sameTree(a[i].Kids, b[i].Kids) {
			return false
		}
	}
	return true
}

// negate is the line that removes line in d's syntax.
func (d *dialect) negate(line string) string {
	neg := "no "
	if d.name == DialectVRP {
		neg = "undo "
	}
	if d.name == DialectJunos {
		if rest, ok := strings.CutPrefix(line, "set "); ok {
			return "delete " + rest
		}
		return "delete " + line
	}
	if rest, ok := strings.CutPrefix(line, neg); ok {
		return rest
	}
	return neg + line
}

// exitContext leaves one configuration context.
func (d *dialect) exitContext() string {
	if d.name == DialectVRP {
		return "quit"
	}
	return "exit"
}

// Configure adds CLI configuration lines to owner's candidate (taking the
// candidate lock). Nothing reaches the device before Commit; each line is
// checked here (one line, no control characters) and by the device when
// the candidate is committed.
func (drv *Driver) Configure(ctx context.Context, owner device.Owner, lines []string) error {
	if len(lines) == 0 {
		return netproto.Errorf(netproto.CodeConfigIncompatible, "no configuration lines (%s)", drv.d.name)
	}
	for _, l := range lines {
		if err := checkLine(l); err != nil {
			return err
		}
		switch strings.ToLower(strings.Fields(l)[0]) {
		case "configure", "conf", "system-view", "commit", "end", "return", "abort", "rollback", "exit", "quit", "write", "copy", "do":
			return netproto.Errorf(netproto.CodeConfigIncompatible, "%q changes the CLI mode or applies the configuration itself; send only configuration lines, then commit", truncate(l, 80))
		}
	}
	return drv.addPending(ctx, owner, lines)
}

// addPending appends checked lines to owner's candidate, taking the lock.
func (drv *Driver) addPending(ctx context.Context, owner device.Owner, lines []string) error {
	cand := drv.store.Candidate(owner)
	next := map[string]any{memConfig: cand[memConfig]}
	pending := append(linesOf(cand, memPending), lines...)
	next[memPending] = map[string]any{"line": toAny(pending)}
	return drv.store.ReplaceCandidate(ctx, owner, next)
}

// Diff compares the candidate (running plus the pending lines) with running.
func (drv *Driver) Diff(ctx context.Context, owner device.Owner) (device.Diff, error) {
	return drv.store.Diff(ctx, owner)
}

// Validate checks the candidate's bookkeeping; the lines themselves are
// checked by the device at commit time (a refused line aborts the commit).
func (drv *Driver) Validate(ctx context.Context, owner device.Owner) error {
	return drv.store.Validate(ctx, owner)
}

// Commit sends owner's pending lines to the device in configuration mode
// and applies them by the dialect's commit model: "commit" (or "commit
// confirmed") on IOS-XR, VRP and Junos; on FRR and IOS-XE, where lines take
// effect as entered, the running configuration is snapshotted first and
// restored if the device refuses a line. The running configuration read
// back from the device becomes the new entry of the history, so Rollback
// and an expired confirmed commit restore it exactly.
func (drv *Driver) Commit(ctx context.Context, owner device.Owner, opts device.CommitOptions) (device.CommitResult, error) {
	cand := drv.store.Candidate(owner)
	pending := linesOf(cand, memPending)
	if len(pending) == 0 || opts.DryRun {
		return drv.store.Commit(ctx, owner, opts)
	}
	if holder, locked := drv.store.LockHolder(); !locked || holder != owner {
		return drv.store.Commit(ctx, owner, opts) // reports the lock error
	}
	after, err := drv.push(ctx, pending, opts.Confirmed)
	if err != nil {
		return device.CommitResult{}, err
	}
	if err := drv.store.ReplaceCandidate(ctx, owner, textTree(after)); err != nil {
		return device.CommitResult{}, err
	}
	return drv.store.Commit(ctx, owner, opts)
}

// push enters configuration mode, sends lines and applies them by the
// dialect's commit model; it returns the running configuration afterwards.
// On a refused line nothing stays applied: the device's candidate is
// aborted, or (without one) the snapshot taken before is restored.
func (drv *Driver) push(ctx context.Context, lines []string, confirmed int) (string, error) {
	var before string
	if drv.d.commitModel == commitNone {
		var err error
		if before, err = drv.runningText(ctx); err != nil {
			return "", err
		}
	}
	commit := ""
	if drv.d.commitModel == commitDevice {
		commit = drv.d.commit
		if confirmed > 0 && drv.d.commitConfirmed != nil {
			commit = drv.d.commitConfirmed(confirmed)
		}
	}
	err := drv.sess.do(ctx, func(nd *network.Driver, timeout time.Duration) error {
		return drv.configMode(nd, lines, commit, false, timeout)
	})
	if err != nil {
		var ne *netproto.Error
		if errors.As(err, &ne) && drv.d.commitModel == commitNone {
			// A refused line: the lines before it took effect. Put the
			// snapshot back.
			if rerr := drv.restore(ctx, before); rerr != nil {
				return "", netproto.Errorf(netproto.CodeRollbackFailed, "%v; restoring the configuration from before the change also failed: %v", ne, rerr)
			}
		}
		if errors.Is(err, errBroken) {
			return "", netproto.Errorf(netproto.CodeUnreachable, "ssh %s: connection lost during the change (check the device's running configuration): %v", drv.cfg.address(), err).Retryable()
		}
		return "", err
	}
	return drv.runningText(ctx)
}

// configMode runs lines in configuration mode, then commit (if not ""),
// then returns to the exec prompt. retryNegation is set for the lines of a
// restore, which negate what the device printed. A refused line aborts the device's
// candidate (where it has one) before the error is returned.
func (drv *Driver) configMode(nd *network.Driver, lines []string, commit string, retryNegation bool, timeout time.Duration) error {
	if err := nd.AcquirePriv("configuration"); err != nil {
		return err
	}
	fail := func(err error) error {
		for _, a := range drv.d.abort {
			if _, aerr := send(nd, a, timeout); aerr != nil {
				var ne *netproto.Error
				if !errors.As(aerr, &ne) {
					return aerr
				}
			}
		}
		if perr := nd.AcquirePriv(drv.d.execPriv); perr != nil {
			return perr
		}
		return err
	}
	for _, l := range lines {
		_, err := send(nd, l, timeout)
		var ne *netproto.Error
		for shorter := l; retryNegation && errors.As(err, &ne); {
			// A negation the device refuses with its value ("no
			// description TEXT" on FRR) is retried without its last words,
			// down to the keyword ("no description").
			neg, rest, _ := strings.Cut(shorter, " ")
			words := strings.Fields(rest)
			if (neg != "no" && neg != "undo") || len(words) < 2 {
				break
			}
			shorter = neg + " " + strings.Join(words[:len(words)-1], " ")
			_, err = send(nd, shorter, timeout)
		}
		if err != nil {
			return fail(err)
		}
	}
	if commit != "" {
		if _, err := send(nd, commit, timeout); err != nil {
			return fail(err)
		}
	}
	return nd.AcquirePriv(drv.d.execPriv)
}

// restore makes the device's running configuration the text target.
func (drv *Driver) restore(ctx context.Context, target string) error {
	cur, err := drv.runningText(ctx)
	if err != nil {
		return err
	}
	lines := restoreLines(drv.d, configLines(cur), configLines(target))
	if len(lines) == 0 {
		return nil
	}
	commit := ""
	if drv.d.commitModel == commitDevice {
		commit = drv.d.commit
	}
	if err := drv.sess.do(ctx, func(nd *network.Driver, timeout time.Duration) error {
		return drv.configMode(nd, lines, commit, true, timeout)
	}); err != nil {
		return err
	}
	now, err := drv.runningText(ctx)
	if err != nil {
		return err
	}
	if rest := restoreLines(drv.d, configLines(now), configLines(target)); len(rest) > 0 {
		return fmt.Errorf("after restoring, the device's configuration still differs from the target; it would need: %s", truncate(strings.Join(rest, "; "), 300))
	}
	return nil
}

// applyRunning is the store's Apply hook: it makes the device run the
// configuration of a rollback, a cancelled or expired confirmed commit (a
// commit's own configuration is already on the device: nothing to do).
func (drv *Driver) applyRunning(running map[string]any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 4*drv.cfg.Timeout)
	defer cancel()
	target := strings.Join(linesOf(running, memConfig), "\n")
	if err := drv.restore(ctx, target); err != nil {
		return netproto.Errorf(netproto.CodeRollbackFailed, "%s: %v", drv.cfg.Name, err)
	}
	return nil
}

// Confirm makes a pending confirmed commit permanent; on dialects whose
// device runs the confirmed commit itself (IOS-XR, Junos), a plain
// "commit" confirms it there too.
func (drv *Driver) Confirm(ctx context.Context, owner device.Owner) (device.CommitResult, error) {
	if drv.d.commitConfirmed != nil {
		if _, pending := drv.store.Pending(); pending {
			if err := drv.sess.do(ctx, func(nd *network.Driver, timeout time.Duration) error {
				return drv.configMode(nd, nil, drv.d.commit, false, timeout)
			}); err != nil {
				return device.CommitResult{}, err
			}
		}
	}
	return drv.store.Confirm(ctx, owner)
}

// CancelCommit rolls a pending confirmed commit back now.
func (drv *Driver) CancelCommit(ctx context.Context, owner device.Owner) (device.CommitResult, error) {
	return drv.store.CancelCommit(ctx, owner)
}

// Discard drops owner's pending lines and releases the lock.
func (drv *Driver) Discard(ctx context.Context, owner device.Owner) error {
	return drv.store.Discard(ctx, owner)
}

// Rollback makes the device run the configuration of commit id ("" = the
// one before the last) again, by the lines that turn the current running
// configuration into it, and records that as a new commit.
func (drv *Driver) Rollback(ctx context.Context, owner device.Owner, id string) (device.CommitResult, error) {
	return drv.store.Rollback(ctx, owner, id)
}

// History lists the commits, newest first.
func (drv *Driver) History(ctx context.Context) ([]device.CommitInfo, error) {
	return drv.store.History(ctx)
}

// Release drops the owner's candidate and lock.
func (drv *Driver) Release(owner device.Owner) { drv.store.Release(owner) }
