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

// approvals is the queue, and the approved applies in progress whose
// devices' approval questions the console answers.
type approvals struct {
	mu      sync.Mutex
	pending map[string]*approval
	decided []*approval // newest last
	// applying maps the correlation id of an approved apply in progress
	// to its approval.
	applying map[string]*approval
}

func newApprovals() *approvals {
	return &approvals{pending: map[string]*approval{}, applying: map[string]*approval{}}
}

// request queues a report's fix; it refuses a second request for the
// same report while one is pending.
func (q *approvals) request(rep *Report, user string) (*approval, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, a := range q.pending {
		if a.Report == rep.ID {
			return nil, fmt.Errorf("the fix of report %s is waiting for approval already", rep.ID)
		}
	}
	a := &approval{ID: randomToken()[:12], Report: rep.ID, Correlation: rep.CorrelationID, Intent: rep.IntentText, Why: rep.Diagnosis,
		What: rep.ProposedChanges, Requester: user, Requested: time.Now()}
	q.pending[a.ID] = a
	return a, nil
}

// list returns the pending approvals, oldest first, and the decided ones,
// newest first.
func (q *approvals) list() (pending, decided []approval) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, a := range q.pending {
		pending = append(pending, *a)
	}
	sort.Slice(pending, func(i, j int) bool { return pending[i].Requested.Before(pending[j].Requested) })
	for i := len(q.decided) - 1; i >= 0; i-- {
		decided = append(decided, *q.decided[i])
	}
	return pending, decided
}

// pendingFor returns the pending approval of a report.
func (q *approvals) pendingFor(report string) (approval, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, a := range q.pending {
		if a.Report == report {
			return *a, true
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
	q.mu.Lock()
	defer q.mu.Unlock()
	a, ok := q.pending[id]
	if !ok {
		return nil, fmt.Errorf("no pending approval %q (decided already, or never requested)", id)
	}
	delete(q.pending, id)
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
	q.pending[a.ID] = a
}

// begin marks an approved apply in progress: the questions of its
// devices that carry its correlation id are answered in its approver's
// name until end.
func (q *approvals) begin(a *approval) (end func()) {
	q.mu.Lock()
	q.applying[a.Correlation] = a
	q.mu.Unlock()
	return func() {
		q.mu.Lock()
		delete(q.applying, a.Correlation)
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
	return a.Decider, a.Devices(), true
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
