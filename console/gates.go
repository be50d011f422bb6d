package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
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
	// shared says the question is in Options.Gates (decided there).
	shared bool

	// Set per page: what the viewing session may do.
	CanApprove bool   `json:"-"`
	CanDecline bool   `json:"-"`
	Refusal    string `json:"-"`
}

// GateStore keeps the devices' approval questions where several consoles
// see and decide them (Options.Gates): each question as its JSON, by id,
// and the decision on it as its JSON.
type GateStore interface {
	// Ask records question id as waiting, held by this console: its
	// decision reaches the device through this one.
	Ask(id string, question []byte) error
	// Decide records the decision on question id unless one was
	// recorded: ok is false then, and first is that one.
	Decide(id string, decision []byte) (first []byte, ok bool, err error)
	// Wait returns the decision on question id once any console records
	// one, or ctx's error.
	Wait(ctx context.Context, id string) ([]byte, error)
	// List returns the questions held with their decisions (nil while
	// waiting); a waiting one whose holding console is gone is left out.
	List() ([]GateRecord, error)
}

// GateRecord is a question a GateStore holds, and the decision on it.
type GateRecord struct {
	Question []byte
	Decision []byte // nil: waiting
}

// gateDecided is the decision on a question, as a GateStore keeps it.
type gateDecided struct {
	Decision string    `json:"decision"` // approved, declined or expired
	Decider  string    `json:"decider"`
	Decided  time.Time `json:"decided"`
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
	// A shared question is decided through any console: its decision
	// comes back through the store.
	var shared <-chan gateDecided
	if st := q.sharedGates; st != nil {
		b, err := json.Marshal(g)
		if err == nil {
			err = st.Ask(g.ID, b)
		}
		if err != nil {
			c.log.Warn("console: device question kept in this console only", "device", d.Name(), "gate", g.ID, "err", err)
		} else {
			g.shared = true
			wctx, cancel := context.WithCancel(ctx)
			defer cancel()
			ch := make(chan gateDecided, 1)
			go func() {
				b, err := st.Wait(wctx, g.ID)
				var dec gateDecided
				if err == nil {
					err = json.Unmarshal(b, &dec)
				}
				switch {
				case err == nil:
					ch <- dec
				case wctx.Err() == nil:
					c.log.Error("console: the decision on a device question cannot be read", "device", d.Name(), "gate", g.ID, "err", err)
				}
			}()
			shared = ch
		}
	}
	q.mu.Lock()
	q.gates[g.ID] = g
	q.mu.Unlock()
	c.auditEvent(requester, corr, "console/approval-request", d.Name(), map[string]any{"device": d.Name(), "tool": g.Tool, "gate": g.ID})
	c.log.Info("console: device question waiting for approval", "device", d.Name(), "tool", g.Tool, "requester", requester, "gate", g.ID)
	answer := func(decision, who string) *mcp.ElicitResult {
		c.Refresh(d.Name())
		c.kickCommits()
		action := "decline"
		var content map[string]any
		switch decision {
		case "approved":
			action, content = "accept", map[string]any{"approve": true}
		case "expired":
			return &mcp.ElicitResult{Action: "cancel"}
		}
		return &mcp.ElicitResult{Action: action, Content: content, Meta: mcp.Meta{netproto.MetaAnsweredBy: who}}
	}
	select {
	case who := <-g.answer:
		q.mu.Lock()
		decision := g.Decision
		q.mu.Unlock()
		return answer(decision, who), nil
	case dec := <-shared:
		q.settleGate(g, dec.Decision, dec.Decider)
		return answer(dec.Decision, dec.Decider), nil
	case <-ctx.Done():
	case <-c.ctx.Done():
	}
	if g.shared {
		// The call gave up: no console may decide it any more. A decision
		// recorded just before still wins, but the device's call is gone.
		b, _ := json.Marshal(gateDecided{Decision: "expired", Decided: time.Now()})
		_, _, _ = q.sharedGates.Decide(g.ID, b)
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
	v.Gates, v.GatesDecided = c.approvals.gateLists()
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

// gateLists returns the devices' questions, waiting (oldest first) and
// decided (newest first, at most maxGatesDecided): this console's, and
// with Options.Gates every console's.
func (q *approvals) gateLists() (waiting, decided []gate) {
	seen := map[string]bool{}
	listed := false // the shared questions were read
	if st := q.sharedGates; st != nil {
		recs, err := st.List()
		if listed = err == nil; listed {
			for _, rec := range recs {
				var g gate
				if json.Unmarshal(rec.Question, &g) != nil || g.ID == "" {
					continue
				}
				seen[g.ID] = true
				var dec gateDecided
				if rec.Decision == nil || json.Unmarshal(rec.Decision, &dec) != nil {
					waiting = append(waiting, g)
					continue
				}
				g.Decision, g.Decider, g.Decided = dec.Decision, dec.Decider, dec.Decided
				decided = append(decided, g)
			}
		}
	}
	q.mu.Lock()
	// This console's own: those it could not share, and, when the shared
	// ones could not be read, those it holds.
	for _, g := range q.gates {
		if !seen[g.ID] && (!g.shared || !listed) {
			waiting = append(waiting, *g)
		}
	}
	for _, g := range q.gatesDecided {
		if !seen[g.ID] && (!g.shared || !listed) {
			decided = append(decided, *g)
		}
	}
	q.mu.Unlock()
	sort.Slice(waiting, func(i, j int) bool { return waiting[i].Asked.Before(waiting[j].Asked) })
	sort.SliceStable(decided, func(i, j int) bool { return decided[i].Decided.After(decided[j].Decided) })
	if len(decided) > maxGatesDecided {
		decided = decided[:maxGatesDecided]
	}
	return waiting, decided
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
	id := r.PathValue("id")
	q.mu.Lock()
	g := q.gates[id]
	var snap gate
	if g != nil {
		snap = *g
	}
	q.mu.Unlock()
	if q.sharedGates != nil && (g == nil || g.shared) {
		c.decideSharedGate(w, r, s, id, decision)
		return
	}
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
	c.gateDecided(s, snap, decision)
	g.answer <- s.user
	http.Redirect(w, r, "/approvals", http.StatusSeeOther)
}

// gateDecided records in the audit log and the log that s decided the
// question g.
func (c *Console) gateDecided(s *session, g gate, decision string) {
	c.auditEvent(s.user, g.Correlation, "console/approval", g.Device, map[string]any{"device": g.Device, "tool": g.Tool,
		"gate": g.ID, "decision": decision, "requester": g.Requester})
	c.log.Info("console: device question decided", "user", s.user, "gate", g.ID, "device", g.Device, "decision", decision)
}

// decideSharedGate decides a question of Options.Gates: the first
// decision recorded, through any console, wins; the console holding the
// device's call answers the device.
func (c *Console) decideSharedGate(w http.ResponseWriter, r *http.Request, s *session, id, decision string) {
	waiting, decided := c.approvals.gateLists()
	i := slices.IndexFunc(waiting, func(g gate) bool { return g.ID == id })
	if i < 0 {
		if j := slices.IndexFunc(decided, func(g gate) bool { return g.ID == id }); j >= 0 {
			c.badRequest(w, r, http.StatusConflict, alreadyDecided(decided[j].Decision, decided[j].Decider))
			return
		}
		c.badRequest(w, r, http.StatusNotFound, "No such question waiting: decided already, given up by the device, or never asked.")
		return
	}
	snap := waiting[i]
	if err := c.mayDecide(s, snap.Tool, requesterIf(decision == "approved", snap.Requester), []string{snap.Device}); err != nil {
		c.log.Warn("console: decision refused", "user", s.user, "gate", snap.ID, "err", err)
		c.badRequest(w, r, http.StatusForbidden, err.Error())
		return
	}
	b, err := json.Marshal(gateDecided{Decision: decision, Decider: s.user, Decided: time.Now()})
	if err != nil {
		c.badRequest(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	first, ok, err := c.approvals.sharedGates.Decide(id, b)
	if err != nil {
		c.badRequest(w, r, http.StatusServiceUnavailable, "The decision could not be recorded: "+err.Error())
		return
	}
	if !ok {
		var dec gateDecided
		_ = json.Unmarshal(first, &dec)
		c.badRequest(w, r, http.StatusConflict, alreadyDecided(dec.Decision, dec.Decider))
		return
	}
	c.gateDecided(s, snap, decision)
	http.Redirect(w, r, "/approvals", http.StatusSeeOther)
}

// alreadyDecided says who decided a question before.
func alreadyDecided(decision, who string) string {
	if decision == "expired" || who == "" {
		return "That question was given up: the device's call ended before any decision."
	}
	return fmt.Sprintf("That question was already answered by %s (%s).", who, decision)
}
