package console

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
)

// pendingCommit is a confirmed commit a device rolls back by itself
// unless it is confirmed before Deadline.
type pendingCommit struct {
	Device   string
	ID       string
	User     string // who committed, as the device recorded it
	Comment  string
	Window   int // seconds
	Deadline time.Time
}

// commitWatch keeps the confirmed commits pending on the fleet's devices,
// read from each device's commit history (network:///config/history: the
// newest commit still "committed" with a rollback window). Its deadline
// is the commit's time plus its window; a later confirmed commit without
// changes that extends the window shows up at the next read.
type commitWatch struct {
	mu      sync.Mutex
	pending map[string]pendingCommit // by device
	changed chan struct{}            // closed and replaced at each change
	kick    chan struct{}
}

func newCommitWatch() *commitWatch {
	return &commitWatch{pending: map[string]pendingCommit{}, changed: make(chan struct{}), kick: make(chan struct{}, 1)}
}

// snapshot returns the pending commits by device name, and the channel
// closed at their next change.
func (w *commitWatch) snapshot() ([]pendingCommit, <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []pendingCommit
	for _, n := range slices.Sorted(maps.Keys(w.pending)) {
		out = append(out, w.pending[n])
	}
	return out, w.changed
}

// set records what a read of the devices found (read: the devices read;
// found: those of them with a pending commit).
func (w *commitWatch) set(read []string, found map[string]pendingCommit) {
	w.mu.Lock()
	defer w.mu.Unlock()
	changed := false
	for _, n := range read {
		p, ok := found[n]
		old, had := w.pending[n]
		switch {
		case ok && (!had || old != p):
			w.pending[n], changed = p, true
		case !ok && had:
			delete(w.pending, n)
			changed = true
		}
	}
	if changed {
		close(w.changed)
		w.changed = make(chan struct{})
	}
}

// forget drops a device's pending commit (confirmed or cancelled from the
// console) until the next read says otherwise.
func (w *commitWatch) forget(dev string) { w.set([]string{dev}, nil) }

// kickCommits has the devices' commits read now rather than at the next
// round.
func (c *Console) kickCommits() {
	select {
	case c.commits.kick <- struct{}{}:
	default:
	}
}

// commitPeriod is how often the devices' commit histories are read: every
// fourth round of the interface reads, at least a second apart, and 10 ms
// per device apart on a large fleet (10 s for 1,000 devices).
func (c *Console) commitPeriod() time.Duration {
	return max(4*c.opts.Interval, time.Second, time.Duration(len(c.fleet.Devices()))*10*time.Millisecond)
}

// watchCommits reads the fleet's commit histories every commitPeriod, and
// at once when kicked, until ctx ends.
func (c *Console) watchCommits(ctx context.Context) {
	t := time.NewTicker(c.commitPeriod())
	defer t.Stop()
	for {
		c.readCommits(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-c.commits.kick:
		}
	}
}

// readCommits reads every device's commit history once. A device without
// one (no configuration store, or not reachable) has no pending commit.
func (c *Console) readCommits(ctx context.Context) {
	var mu sync.Mutex
	found := map[string]pendingCommit{}
	var read []string
	c.fleet.Each(ctx, nil, func(ctx context.Context, d *client.Device) error {
		p, ok, err := readPending(ctx, d)
		if err != nil {
			return nil // unknown: as it was
		}
		mu.Lock()
		defer mu.Unlock()
		read = append(read, d.Name())
		if ok {
			found[d.Name()] = p
		}
		return nil
	})
	if ctx.Err() == nil {
		c.commits.set(read, found)
	}
}

// readPending reads d's pending confirmed commit from its history; err
// when the history cannot be read (no configuration store, not
// reachable).
func readPending(ctx context.Context, d *client.Device) (p pendingCommit, ok bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	res, err := d.ReadResource(ctx, uriCommitHistory)
	if err != nil {
		return p, false, err
	}
	if len(res.Contents) == 0 {
		return p, false, fmt.Errorf("empty commit history")
	}
	var h struct {
		Commits []device.CommitInfo `json:"commits"`
	}
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &h); err != nil {
		return p, false, err
	}
	for _, ci := range h.Commits { // newest first
		if ci.Status == device.StatusCommitted && ci.Confirmed > 0 {
			return pendingCommit{Device: d.Name(), ID: ci.ID, User: ci.User, Comment: ci.Comment, Window: ci.Confirmed,
				Deadline: ci.Time.Add(time.Duration(ci.Confirmed) * time.Second)}, true, nil
		}
		if ci.Status == device.StatusCommitted || ci.Status == device.StatusConfirmed {
			return p, false, nil // a later commit settled the earlier ones
		}
	}
	return p, false, nil
}

// pendingRow is a pending commit as a page and the countdown stream show
// it to one session.
type pendingRow struct {
	Device  string `json:"device"`
	ID      string `json:"id"`
	User    string `json:"user"`
	Comment string `json:"comment,omitempty"`
	Window  int    `json:"window"`
	Left    int    `json:"left"` // seconds left of the window
	Can     bool   `json:"can"`  // the session may confirm it or roll it back
}

// commitRows are the pending commits as session s sees them.
func (c *Console) commitRows(s *session) []pendingRow {
	list, _ := c.commits.snapshot()
	return c.rowsOf(s, list)
}

func (c *Console) rowsOf(s *session, list []pendingCommit) []pendingRow {
	out := []pendingRow{}
	now := time.Now()
	for _, p := range list {
		left := max(0, int(p.Deadline.Sub(now).Round(time.Second)/time.Second))
		out = append(out, pendingRow{Device: p.Device, ID: p.ID, User: p.User, Comment: p.Comment, Window: p.Window, Left: left,
			Can: c.mayDecide(s, commitTool, "", []string{p.Device}) == nil})
	}
	return out
}

// serveCommitEvents streams the pending commits: a "commits" event with
// the list (seconds left included) every second and at each change.
func (c *Console) serveCommitEvents(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	s := sessionOf(r)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	if _, err := fmt.Fprint(w, "retry: 2000\n\n"); err != nil {
		return
	}
	for {
		list, changed := c.commits.snapshot()
		b, _ := json.Marshal(c.rowsOf(s, list))
		if _, err := fmt.Fprintf(w, "event: commits\ndata: %s\n\n", b); err != nil {
			return
		}
		fl.Flush()
		select {
		case <-r.Context().Done():
			return
		case <-c.ctx.Done():
			return
		case <-changed:
		case <-tick.C:
		}
	}
}

// serveCommitAction confirms a device's pending commit now, or rolls it
// back now (cancel): network.commit with confirm or cancel, whose own
// approval question the console answers in the session user's name.
func (c *Console) serveCommitAction(w http.ResponseWriter, r *http.Request) {
	action := r.PathValue("action")
	args := map[string]map[string]any{"confirm": {"confirm": true}, "cancel": {"cancel": true}}[action]
	if args == nil {
		c.badRequest(w, r, http.StatusNotFound, "The action is confirm or cancel.")
		return
	}
	name := r.PathValue("device")
	d := c.fleetDevice(name)
	if d == nil {
		c.badRequest(w, r, http.StatusNotFound, "No such device in the fleet.")
		return
	}
	s := sessionOf(r)
	if err := c.mayDecide(s, commitTool, "", []string{name}); err != nil {
		c.log.Warn("console: commit action refused", "user", s.user, "device", name, "action", action, "err", err)
		c.badRequest(w, r, http.StatusForbidden, err.Error())
		return
	}
	corr := client.NewCorrelationID()
	end := c.approvals.beginAs(corr, s.user, []string{name})
	defer end()
	ctx, cancel := context.WithTimeout(client.WithCorrelationID(r.Context(), corr), time.Minute)
	defer cancel()
	res, err := d.CallTool(ctx, netproto.ToolCommit, args)
	outcome := "ok"
	if err == nil && res.IsError {
		err = fmt.Errorf("%s", toolText(res.Content))
	}
	if err != nil {
		outcome = err.Error()
	}
	c.auditEvent(s.user, corr, "console/commit-"+action, name, map[string]any{"device": name, "action": action, "outcome": outcome})
	c.log.Info("console: pending commit "+action, "user", s.user, "device", name, "outcome", outcome)
	if err != nil {
		c.badRequest(w, r, http.StatusBadGateway, fmt.Sprintf("%s did not %s its pending commit: %v", name, action, err))
		return
	}
	c.commits.forget(name)
	c.kickCommits()
	c.Refresh(name)
	http.Redirect(w, r, "/approvals", http.StatusSeeOther)
}

// toolText is the text of a tool result's content.
func toolText(content []mcp.Content) string {
	var parts []string
	for _, ct := range content {
		if t, ok := ct.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, " ")
}
