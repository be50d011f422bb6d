package console

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/netproto"
)

// gate is a device's own approval question (its approval gate asking
// through MCP elicitation) about a host's write, waiting in the
// console's queue for a decision.
type gate struct {
	ID          string
	Device      string
	Tool        string // the tool the device asks about
	Requester   string // the host identity whose write it is
	Correlation string
	Arguments   string // the call's arguments, as the device shows them (masked)
	Effect      string // what the change does: the diff
	Window      int    // the confirmed commit's rollback window in seconds (0: none)
	Asked       time.Time

	// Set once decided (or given up: "expired").
	Decision string
	Decider  string
	Decided  time.Time

	answer chan string // the decider, after Decision is set

	// Set per page: what the viewing session may do.
	CanApprove, CanDecline bool
	Refusal                string
}

// maxGatesDecided is how many decided device questions the page lists.
const maxGatesDecided = 50

// Gate queues a device's approval question about the write of a host
// (requester, its identity) and waits until a console user decides it or
// ctx ends: approved, the device is told to go ahead in the approver's
// name (_meta netproto.MetaAnsweredBy, which the device records in its
// audit log); declined, it is told no. A question that ctx ends (the
// host's call gave up) or the console's closing leaves undecided is
// cancelled. The command that serves both the controller and the console
// sends here the questions nobody else can answer well: those of a host
// that cannot be asked, and, with four-eyes (FourEyes), every host's.
func (c *Console) Gate(ctx context.Context, d *client.Device, p *mcp.ElicitParams, requester string) (*mcp.ElicitResult, error) {
	corr, _ := p.GetMeta()[netproto.MetaCorrelationID].(string)
	g := parseQuestion(p.Message)
	g.ID, g.Device, g.Requester, g.Correlation, g.Asked = randomToken()[:12], d.Name(), requester, corr, time.Now()
	g.answer = make(chan string, 1)
	q := c.approvals
	q.mu.Lock()
	q.gates[g.ID] = g
	q.mu.Unlock()
	c.auditEvent(requester, corr, "console/approval-request", d.Name(), map[string]any{"device": d.Name(), "tool": g.Tool, "gate": g.ID})
	c.log.Info("console: device question waiting for approval", "device", d.Name(), "tool", g.Tool, "requester", requester, "gate", g.ID)
	select {
	case who := <-g.answer:
		q.mu.Lock()
		decision := g.Decision
		q.mu.Unlock()
		c.Refresh(d.Name())
		c.kickCommits()
		action := "decline"
		var content map[string]any
		if decision == "approved" {
			action, content = "accept", map[string]any{"approve": true}
		}
		return &mcp.ElicitResult{Action: action, Content: content, Meta: mcp.Meta{netproto.MetaAnsweredBy: who}}, nil
	case <-ctx.Done():
	case <-c.ctx.Done():
	}
	q.settleGate(g, "expired", "")
	return &mcp.ElicitResult{Action: "cancel"}, nil
}

// settleGate moves g from the waiting questions to the decided ones;
// false when it was decided already.
func (q *approvals) settleGate(g *gate, decision, user string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.gates[g.ID]; !ok {
		return false
	}
	delete(q.gates, g.ID)
	g.Decision, g.Decider, g.Decided = decision, user, time.Now()
	q.gatesDecided = append(q.gatesDecided, g)
	if len(q.gatesDecided) > maxGatesDecided {
		q.gatesDecided = q.gatesDecided[len(q.gatesDecided)-maxGatesDecided:]
	}
	return true
}

// questionRe reads the first line of a device's approval question
// (approval.ElicitMessage): the tool, and who asked the device.
var (
	questionRe = regexp.MustCompile(`^Approve (\S+?)(?: requested by .*)?\?$`)
	windowRe   = regexp.MustCompile(`\n\nRollback window: (\d+) s;`)
)

// parseQuestion reads the parts of a device's approval question: the
// tool, the arguments, the effect (the diff) and the rollback window. A
// question in another form is shown whole, as its effect, for the tool
// network.commit (what its approver must be allowed).
func parseQuestion(msg string) *gate {
	g := &gate{Tool: commitTool, Effect: msg}
	first, rest, _ := strings.Cut(msg, "\n")
	m := questionRe.FindStringSubmatch(first)
	if m == nil {
		return g
	}
	g.Tool = netproto.CanonicalName(m[1])
	if w := windowRe.FindStringSubmatch(rest); w != nil {
		g.Window, _ = strconv.Atoi(w[1])
		rest = rest[:strings.Index(rest, w[0])]
	} else if i := strings.LastIndex(rest, "\n\nNo automatic rollback:"); i >= 0 {
		rest = rest[:i]
	}
	args, effect, _ := strings.Cut(rest, "\n\nEffect:\n")
	g.Arguments = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(args), "Arguments:"))
	g.Effect = effect
	return g
}

// requesterIf is requester when the decision is an approval, else ""
// (four-eyes lets the requester withdraw their own change).
func requesterIf(approve bool, requester string) string {
	if approve {
		return requester
	}
	return ""
}

// errFourEyes is a refusal of the requester's own approval.
var errFourEyes = errors.New("four-eyes approval")

// mark sets what the viewing session may do with a fix waiting for
// approval, given mayDecide's answer for an approval.
func (a *approval) mark(err error) {
	a.CanApprove, a.CanDecline = err == nil, err == nil || errors.Is(err, errFourEyes)
	if err != nil {
		a.Refusal = err.Error()
	}
}

// approvalsPage is the data of the approvals page.
type approvalsPage struct {
	page
	Queue, Decided []approval
	gatesView
}

// gatesView is the part of the approvals page this file fills: the
// devices' questions and the confirmed commits waiting.
type gatesView struct {
	Gates        []gate
	GatesDecided []gate
	Commits      []pendingRow
}

// gatesView returns the devices' questions, waiting (oldest first) and
// decided (newest first), marked with what the request's session may do,
// and the confirmed commits waiting for a confirmation.
func (c *Console) gatesView(r *http.Request) gatesView {
	s := sessionOf(r)
	var v gatesView
	q := c.approvals
	q.mu.Lock()
	for _, g := range q.gates {
		v.Gates = append(v.Gates, *g)
	}
	for i := len(q.gatesDecided) - 1; i >= 0; i-- {
		v.GatesDecided = append(v.GatesDecided, *q.gatesDecided[i])
	}
	q.mu.Unlock()
	sort.Slice(v.Gates, func(i, j int) bool { return v.Gates[i].Asked.Before(v.Gates[j].Asked) })
	for i := range v.Gates {
		g := &v.Gates[i]
		err := c.mayDecide(s, g.Tool, g.Requester, []string{g.Device})
		g.CanApprove, g.CanDecline = err == nil, err == nil || errors.Is(err, errFourEyes)
		if err != nil {
			g.Refusal = err.Error()
		}
	}
	v.Commits = c.commitRows(s)
	return v
}

// routeGates adds the routes of the devices' questions and of the
// confirmed commits: their decisions (POST, an operator's, with the
// session's CSRF token) and the commits' countdown stream.
func (c *Console) routeGates(mux *http.ServeMux) {
	mux.Handle("POST /gates/{id}/{decision}", c.authed(c.operatorOnly(c.serveGateDecide)))
	mux.Handle("GET /commits/events", c.authed(c.serveCommitEvents))
	mux.Handle("POST /commits/{device}/{action}", c.authed(c.operatorOnly(c.serveCommitAction)))
}

// serveGateDecide approves or declines a device's question: the device
// is answered in the session user's name.
func (c *Console) serveGateDecide(w http.ResponseWriter, r *http.Request) {
	decision := map[string]string{"approve": "approved", "decline": "declined"}[r.PathValue("decision")]
	if decision == "" {
		c.badRequest(w, r, http.StatusNotFound, "The decision is approve or decline.")
		return
	}
	s := sessionOf(r)
	q := c.approvals
	q.mu.Lock()
	g := q.gates[r.PathValue("id")]
	var snap gate
	if g != nil {
		snap = *g
	}
	q.mu.Unlock()
	if g == nil {
		c.badRequest(w, r, http.StatusNotFound, "No such question waiting: decided already, given up by the device, or never asked.")
		return
	}
	if err := c.mayDecide(s, snap.Tool, requesterIf(decision == "approved", snap.Requester), []string{snap.Device}); err != nil {
		c.log.Warn("console: decision refused", "user", s.user, "gate", snap.ID, "err", err)
		c.badRequest(w, r, http.StatusForbidden, err.Error())
		return
	}
	if !q.settleGate(g, decision, s.user) {
		c.badRequest(w, r, http.StatusConflict, "That question was decided (or given up) meanwhile.")
		return
	}
	c.auditEvent(s.user, snap.Correlation, "console/approval", snap.Device, map[string]any{"device": snap.Device, "tool": snap.Tool,
		"gate": snap.ID, "decision": decision, "requester": snap.Requester})
	c.log.Info("console: device question decided", "user", s.user, "gate", snap.ID, "device", snap.Device, "decision", decision)
	g.answer <- s.user
	http.Redirect(w, r, "/approvals", http.StatusSeeOther)
}
