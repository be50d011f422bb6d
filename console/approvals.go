package console

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/netproto"
)

// maxDecisions is how many decided approvals the queue's page lists.
const maxDecisions = 50

// approval is a request to apply a report's fix, waiting for an
// operator's decision.
type approval struct {
	ID          string
	Report      string
	Correlation string
	Intent      string
	Why         string   // the diagnosis
	What        []Change // the changes, with their diffs
	Requester   string
	Requested   time.Time

	// Set once decided.
	Decision string // "approved" or "declined"
	Decider  string
	Decided  time.Time
	Run      string // the apply's run, when approved

	// Set per page: what the viewing session may do.
	CanApprove bool   `json:"-"`
	CanDecline bool   `json:"-"`
	Refusal    string `json:"-"`
}

// Devices are the devices the approval's changes touch.
func (a *approval) Devices() []string {
	var out []string
	for _, ch := range a.What {
		if !slices.Contains(out, ch.Device) {
			out = append(out, ch.Device)
		}
	}
	return out
}

// PendingStore keeps the fixes waiting for approval where several
// consoles see them (Options.Pending): each fix as its JSON, by id.
type PendingStore interface {
	// Put queues a fix under id; it fails when id is queued already.
	Put(id string, v []byte) error
	// List returns the queued fixes.
	List() ([][]byte, error)
	// Take removes the fix id and returns it; of the consoles that take
	// it at once, one succeeds.
	Take(id string) ([]byte, error)
}

// approvals is the queue, and the approved applies in progress whose
// devices' approval questions the console answers.
type approvals struct {
	// shared, when set, holds the queue (pending is then unused).
	shared PendingStore
	// sharedGates, when set, holds the devices' questions too (gates.go).
	sharedGates GateStore

	mu      sync.Mutex
	pending map[string]*approval
	decided []*approval // newest last
	// applying maps the correlation id of an approved change in progress
	// (a fix's apply, a confirm or roll back from the console) to who
	// approved it and the devices it changes.
	applying map[string]applyingAs
	// gates are the devices' own approval questions waiting for a
	// decision (gates.go), and the decided ones, newest last.
	gates        map[string]*gate
	gatesDecided []*gate
}

// applyingAs is an approved change in progress: the devices' questions
// carrying its correlation id are answered in Approver's name.
type applyingAs struct {
	Approver string
	Devices  []string
}

func newApprovals(shared PendingStore, gates GateStore) *approvals {
	return &approvals{shared: shared, sharedGates: gates, pending: map[string]*approval{}, applying: map[string]applyingAs{}, gates: map[string]*gate{}}
}

// waiting returns the pending approvals, in no order.
func (q *approvals) waiting() ([]approval, error) {
	if q.shared == nil {
		q.mu.Lock()
		defer q.mu.Unlock()
		out := make([]approval, 0, len(q.pending))
		for _, a := range q.pending {
			out = append(out, *a)
		}
		return out, nil
	}
	vs, err := q.shared.List()
	if err != nil {
		return nil, err
	}
	out := make([]approval, 0, len(vs))
	for _, v := range vs {
		var a approval
		if err := json.Unmarshal(v, &a); err != nil {
			return nil, fmt.Errorf("a fix waiting for approval is unreadable: %w", err)
		}
		out = append(out, a)
	}
	return out, nil
}

// count is the number of pending approvals (0 when they cannot be read).
func (q *approvals) count() int {
	w, _ := q.waiting()
	return len(w)
}

// waitingCount counts the fixes and device questions waiting for a
// decision.
func (q *approvals) waitingCount() int {
	waiting, _ := q.gateLists()
	return q.count() + len(waiting)
}

// request queues a report's fix; it refuses a second request for the
// same report while one is pending.
func (q *approvals) request(rep *Report, user string) (*approval, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	waiting, err := q.waitingLocked()
	if err != nil {
		return nil, err
	}
	for _, a := range waiting {
		if a.Report == rep.ID {
			return nil, fmt.Errorf("the fix of report %s is waiting for approval already", rep.ID)
		}
	}
	a := &approval{ID: randomToken()[:12], Report: rep.ID, Correlation: rep.CorrelationID, Intent: rep.IntentText, Why: rep.Diagnosis,
		What: rep.ProposedChanges, Requester: user, Requested: time.Now()}
	if err := q.put(a); err != nil {
		return nil, err
	}
	return a, nil
}

// waitingLocked is waiting with q.mu held.
func (q *approvals) waitingLocked() ([]approval, error) {
	if q.shared != nil {
		return q.waiting()
	}
	out := make([]approval, 0, len(q.pending))
	for _, a := range q.pending {
		out = append(out, *a)
	}
	return out, nil
}

// put queues a. q.mu is held.
func (q *approvals) put(a *approval) error {
	if q.shared == nil {
		q.pending[a.ID] = a
		return nil
	}
	b, err := json.Marshal(a)
	if err != nil {
		return err
	}
	return q.shared.Put(a.ID, b)
}

// list returns the pending approvals, oldest first, and the decided ones,
// newest first.
func (q *approvals) list() (pending, decided []approval, err error) {
	pending, err = q.waiting()
	if err != nil {
		return nil, nil, err
	}
	sort.Slice(pending, func(i, j int) bool { return pending[i].Requested.Before(pending[j].Requested) })
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := len(q.decided) - 1; i >= 0; i-- {
		decided = append(decided, *q.decided[i])
	}
	return pending, decided, nil
}

// pendingFor returns the pending approval of a report.
func (q *approvals) pendingFor(report string) (approval, bool) {
	waiting, _ := q.waiting()
	for _, a := range waiting {
		if a.Report == report {
			return a, true
		}
	}
	return approval{}, false
}

// lastDecided returns the newest decided approval of a report.
func (q *approvals) lastDecided(report string) (approval, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := len(q.decided) - 1; i >= 0; i-- {
		if q.decided[i].Report == report {
			return *q.decided[i], true
		}
	}
	return approval{}, false
}

// decide takes a pending approval out of the queue, decided by user.
func (q *approvals) decide(id, decision, user string) (*approval, error) {
	return q.decideIf(id, decision, user, nil)
}

// decideIf is decide when check, given the approval, returns nil (nil
// check: always); else the approval stays in the queue and check's error
// is returned.
func (q *approvals) decideIf(id, decision, user string, check func(*approval) error) (*approval, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if check != nil {
		w, err := q.waitingLocked()
		if err != nil {
			return nil, err
		}
		for i := range w {
			if w[i].ID != id {
				continue
			}
			if err := check(&w[i]); err != nil {
				return nil, err
			}
		}
	}
	var a *approval
	if q.shared != nil {
		b, err := q.shared.Take(id)
		if err != nil {
			return nil, fmt.Errorf("no pending approval %q (decided already, here or through another replica's console, or never requested): %w", id, err)
		}
		a = &approval{}
		if err := json.Unmarshal(b, a); err != nil {
			return nil, fmt.Errorf("pending approval %q is unreadable: %w", id, err)
		}
	} else {
		var ok bool
		if a, ok = q.pending[id]; !ok {
			return nil, fmt.Errorf("no pending approval %q (decided already, or never requested)", id)
		}
		delete(q.pending, id)
	}
	a.Decision, a.Decider, a.Decided = decision, user, time.Now()
	q.decided = append(q.decided, a)
	if len(q.decided) > maxDecisions {
		q.decided = q.decided[len(q.decided)-maxDecisions:]
	}
	return a, nil
}

// undo puts a decided approval back in the queue (its apply could not
// start).
func (q *approvals) undo(a *approval) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.decided = slices.DeleteFunc(q.decided, func(x *approval) bool { return x == a })
	a.Decision, a.Decider, a.Decided = "", "", time.Time{}
	_ = q.put(a) // a fix another console queued under its id meanwhile stays
}

// begin marks an approved apply in progress: the questions of its
// devices that carry its correlation id are answered in its approver's
// name until end.
func (q *approvals) begin(a *approval) (end func()) {
	return q.beginAs(a.Correlation, a.Decider, a.Devices())
}

// beginAs marks a change approved by approver in progress under
// correlation id corr: the questions of devices that carry corr are
// answered in approver's name until end.
func (q *approvals) beginAs(corr, approver string, devices []string) (end func()) {
	q.mu.Lock()
	q.applying[corr] = applyingAs{Approver: approver, Devices: devices}
	q.mu.Unlock()
	return func() {
		q.mu.Lock()
		delete(q.applying, corr)
		q.mu.Unlock()
	}
}

// applyingAs returns the approver and the devices of the apply in
// progress under correlation id corr.
func (q *approvals) applyingAs(corr string) (approver string, devices []string, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	a, ok := q.applying[corr]
	if !ok || corr == "" {
		return "", nil, false
	}
	return a.Approver, a.Devices, true
}

// Elicit answers a device's approval question when it belongs to a fix
// approved in the console and being applied (the question names the
// apply's correlation id): accepted, from a device the fix changes, in
// the approver's name
// (_meta netproto.MetaAnsweredBy, which the device records); declined
// from any other device. ok is false
// for a question the console does not own; the caller answers it (or
// declines it).
func (c *Console) Elicit(_ context.Context, d *client.Device, p *mcp.ElicitParams) (res *mcp.ElicitResult, ok bool) {
	corr, _ := p.GetMeta()[netproto.MetaCorrelationID].(string)
	who, devices, ok := c.approvals.applyingAs(corr)
	if !ok {
		return nil, false
	}
	if !slices.Contains(devices, d.Name()) {
		// The approved fix changes other devices only.
		c.auditEvent(who, corr, "console/elicitation", d.Name(), map[string]any{"device": d.Name(), "question": p.Message, "action": "decline"})
		return &mcp.ElicitResult{Action: "decline"}, true
	}
	c.auditEvent(who, corr, "console/elicitation", d.Name(), map[string]any{"device": d.Name(), "question": p.Message, "action": "accept"})
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true, "confirm": true},
		Meta: mcp.Meta{netproto.MetaAnsweredBy: who}}, true
}

// auditEvent records an action taken in the console, by user.
func (c *Console) auditEvent(user, corr, method, tool string, details any) {
	if c.opts.Audit == nil {
		return
	}
	rec := audit.Record{Identity: user, Correlation: corr, Kind: audit.KindNotification, Method: method, Tool: tool,
		Outcome: audit.OutcomeOK, Durable: true}
	if b, err := json.Marshal(details); err == nil {
		rec.Arguments = b
	}
	if _, err := c.opts.Audit.Append(rec); err != nil {
		c.log.Error("console: audit record not written", "method", method, "err", err)
	}
}
