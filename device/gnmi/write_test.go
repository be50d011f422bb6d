package gnmi_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/gnmi/gnmiserver"
	"github.com/netmcp/netmcp/netproto"
)

// editDesc puts a description on ifName in owner's candidate.
func editDesc(t *testing.T, d device.Configurer, value string) {
	t.Helper()
	if err := d.Edit(ctxT(t), owner, []device.Edit{{Operation: device.OpMerge, Path: descPath, Value: value}}); err != nil {
		t.Fatalf("Edit: %v", err)
	}
}

// historyStatus is the status of the newest commit of the simulator's r1.
func (l *labTarget) historyStatus(t *testing.T) (status, comment string) {
	t.Helper()
	h, err := l.r1.History(context.Background())
	if err != nil || len(h) == 0 {
		t.Fatalf("simulator history: %v, %v", h, err)
	}
	return h[0].Status, h[0].Comment
}

// TestConfirmedCommitExtension: a confirmed commit goes to the target
// with the Commit extension; not confirmed, the target rolls it back by
// its own timer, and the driver's history records the rollback.
func TestConfirmedCommitExtension(t *testing.T) {
	l := startLab(t, gnmiserver.Options{})
	d := openURL(t, l.URL())
	if !d.Capabilities().CommitExtension {
		t.Fatal("the probe did not find the server's Commit extension")
	}
	before := l.running(t, descPath)
	editDesc(t, d, "confirmed, never confirmed")
	res, err := d.Commit(ctxT(t), owner, device.CommitOptions{Confirmed: 2, Comment: "try"})
	if err != nil || res.Status != device.StatusCommitted || res.RollbackTimeout != 2 {
		t.Fatalf("confirmed commit: %+v, %v", res, err)
	}
	if v := l.running(t, descPath); v != "confirmed, never confirmed" {
		t.Fatalf("the target runs description %v after the commit", v)
	}
	if st, comment := l.historyStatus(t); st != device.StatusCommitted || !strings.Contains(comment, "confirmed commit") {
		t.Fatalf("the target's newest commit: %s %q, want a confirmed commit made by gNMI", st, comment)
	}
	// A second commit with changes while one is pending is refused.
	editDesc(t, d, "second")
	_, err = d.Commit(ctxT(t), owner, device.CommitOptions{})
	wantCode(t, "commit while a confirmed commit is pending", err, netproto.CodeConfigIncompatible)
	d.Discard(ctxT(t), owner)

	if !eventually(5*time.Second, func() bool { return l.running(t, descPath) == before }) {
		t.Fatalf("the target still runs %v after the rollback duration, want %v", l.running(t, descPath), before)
	}
	if st, _ := l.historyStatus(t); st != device.StatusRolledBack {
		t.Errorf("the target's newest commit is %s, want rolled-back (by its own timer)", st)
	}
	if !eventually(5*time.Second, func() bool {
		h, _ := d.History(context.Background())
		return len(h) > 0 && h[0].Status == device.StatusRolledBack
	}) {
		h, _ := d.History(context.Background())
		t.Errorf("the driver's history %+v, want the confirmed commit rolled back", h)
	}
	_, err = d.Confirm(ctxT(t), owner)
	wantCode(t, "confirm after the rollback", err, netproto.CodeConfirmedCommitTimeout)
}

// TestConfirmAndCancel: a confirm makes the commit stay past its timer; a
// cancel rolls the target back at once.
func TestConfirmAndCancel(t *testing.T) {
	l := startLab(t, gnmiserver.Options{})
	d := openURL(t, l.URL())
	before := l.running(t, descPath)

	editDesc(t, d, "cancelled")
	if _, err := d.Commit(ctxT(t), owner, device.CommitOptions{Confirmed: 60}); err != nil {
		t.Fatal(err)
	}
	res, err := d.CancelCommit(ctxT(t), owner)
	if err != nil || res.Status != device.StatusCancelled {
		t.Fatalf("cancel: %+v, %v", res, err)
	}
	if v := l.running(t, descPath); v != before {
		t.Fatalf("the target runs %v after the cancel, want %v", v, before)
	}
	if st, _ := l.historyStatus(t); st != device.StatusCancelled {
		t.Errorf("the target's newest commit is %s, want cancelled", st)
	}

	editDesc(t, d, "confirmed")
	if _, err := d.Commit(ctxT(t), owner, device.CommitOptions{Confirmed: 1}); err != nil {
		t.Fatal(err)
	}
	if res, err := d.Confirm(ctxT(t), owner); err != nil || res.Status != device.StatusConfirmed {
		t.Fatalf("confirm: %+v, %v", res, err)
	}
	time.Sleep(1500 * time.Millisecond)
	if v := l.running(t, descPath); v != "confirmed" {
		t.Fatalf("the target runs %v after a confirmed commit's timer, want the confirmed value", v)
	}
	if st, _ := l.historyStatus(t); st != device.StatusConfirmed {
		t.Errorf("the target's newest commit is %s, want confirmed", st)
	}
	_, err = d.CancelCommit(ctxT(t), owner)
	wantCode(t, "cancel with nothing pending", err, netproto.CodeConfigIncompatible)
}

// TestConfirmedCommitSnapshot: without the Commit extension the driver
// keeps the configuration from before and sets it back itself.
func TestConfirmedCommitSnapshot(t *testing.T) {
	l := startLab(t, gnmiserver.Options{})
	d := openURL(t, l.URL("commit-confirmed", "snapshot"))
	if d.Capabilities().CommitExtension {
		t.Fatal("commit-confirmed=snapshot still uses the extension")
	}
	before := l.running(t, descPath)
	editDesc(t, d, "snapshot")
	if _, err := d.Commit(ctxT(t), owner, device.CommitOptions{Confirmed: 1}); err != nil {
		t.Fatal(err)
	}
	if st, comment := l.historyStatus(t); st != device.StatusCommitted || strings.Contains(comment, "confirmed") {
		t.Fatalf("the target's newest commit: %s %q, want a plain commit", st, comment)
	}
	if !eventually(5*time.Second, func() bool { return l.running(t, descPath) == before }) {
		t.Fatalf("the target still runs %v, want %v set back by the driver", l.running(t, descPath), before)
	}
	h, _ := d.History(ctxT(t))
	if len(h) == 0 || h[0].Status != device.StatusRolledBack {
		t.Errorf("the driver's history %+v, want the commit rolled back", h)
	}
}

// TestSetRefused: a Set the target refuses changes nothing, and the
// target's words are in the error.
func TestSetRefused(t *testing.T) {
	l := startLab(t, gnmiserver.Options{})
	d := openURL(t, l.URL())
	mtu := "/openconfig-interfaces:interfaces/interface[name='" + ifName + "']/config/mtu"
	before, beforeDesc := l.running(t, mtu), l.running(t, descPath)
	simHist, _ := l.r1.History(ctxT(t))
	drvHist, _ := d.History(ctxT(t))
	err := d.Edit(ctxT(t), owner, []device.Edit{
		{Operation: device.OpMerge, Path: descPath, Value: "refused with the MTU"},
		{Operation: device.OpMerge, Path: mtu, Value: "not a number"},
	})
	if err != nil {
		t.Fatalf("Edit (the driver leaves validation to the target): %v", err)
	}
	_, err = d.Commit(ctxT(t), owner, device.CommitOptions{})
	if err == nil {
		t.Fatal("the target took an MTU that is not a number")
	}
	ne := wantCode(t, "refused Set", err, netproto.CodeYangSyntaxError)
	if !strings.Contains(ne.Detail, "mtu") || !strings.Contains(ne.Detail, "127.0.0.1") {
		t.Errorf("the detail %q does not carry the target's words about the MTU", ne.Detail)
	}
	if l.running(t, mtu) != before || l.running(t, descPath) != beforeDesc {
		t.Error("the refused Set changed the target's configuration")
	}
	if h, _ := l.r1.History(ctxT(t)); len(h) != len(simHist) {
		t.Errorf("the target's history grew from %d to %d commits", len(simHist), len(h))
	}
	if h, _ := d.History(ctxT(t)); len(h) != len(drvHist) {
		t.Errorf("the driver's history grew from %d to %d commits", len(drvHist), len(h))
	}
	if err := d.Discard(ctxT(t), owner); err != nil {
		t.Fatal(err)
	}
}

// TestOutsideChangeAdopted: a configuration changed on the target
// outside netmcp is recorded as a commit before a new candidate, so a
// rollback of netmcp's change goes back to it.
func TestOutsideChangeAdopted(t *testing.T) {
	l := startLab(t, gnmiserver.Options{})
	d := openURL(t, l.URL())
	other := device.Owner{Session: "outside", User: "someone"}
	if err := l.r1.Edit(ctxT(t), other, []device.Edit{{Path: descPath, Value: "changed outside"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.r1.Commit(ctxT(t), other, device.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	editDesc(t, d, "netmcp's")
	diff, err := d.Diff(ctxT(t), owner)
	if err != nil || len(diff.Changes) != 1 || diff.Changes[0].Old != "changed outside" {
		t.Fatalf("diff %+v, %v: want only netmcp's change, from the value set outside", diff, err)
	}
	if _, err := d.Commit(ctxT(t), owner, device.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	h, _ := d.History(ctxT(t))
	if len(h) < 2 || h[1].User != "gnmi-sync" {
		t.Fatalf("history %+v: want the outside change recorded before netmcp's", h)
	}
	if _, err := d.Rollback(ctxT(t), owner, ""); err != nil {
		t.Fatal(err)
	}
	if v := l.running(t, descPath); v != "changed outside" {
		t.Errorf("after the rollback the target runs %v, want the outside change", v)
	}
}

// TestPendingCommitSurvivesRestart: with a state directory, a driver
// opened again confirms the extension commit the previous one made.
func TestPendingCommitSurvivesRestart(t *testing.T) {
	l := startLab(t, gnmiserver.Options{})
	dir := t.TempDir()
	open := func() device.Driver {
		d, err := device.Open(ctxT(t), l.URL(), device.Options{StateDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	d := open()
	editDesc(t, d.(device.Configurer), "survives")
	if _, err := d.(device.Configurer).Commit(ctxT(t), owner, device.CommitOptions{Confirmed: 3}); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	d = open()
	defer d.Close()
	if res, err := d.(device.Configurer).Confirm(ctxT(t), owner); err != nil || res.Status != device.StatusConfirmed {
		t.Fatalf("confirm after reopening: %+v, %v", res, err)
	}
	time.Sleep(3500 * time.Millisecond)
	if v := l.running(t, descPath); v != "survives" {
		t.Errorf("the target runs %v past the rollback duration, want the confirmed value", v)
	}
	if st, _ := l.historyStatus(t); st != device.StatusConfirmed {
		t.Errorf("the target's newest commit is %s, want confirmed", st)
	}
}
