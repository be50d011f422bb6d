package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// reportIDRe is what a report id in a URL may look like.
var reportIDRe = regexp.MustCompile(`^[0-9A-Za-z_-]{1,64}$`)

// sessionOf is the request's session (authed put it there).
func sessionOf(r *http.Request) *session {
	s, _ := r.Context().Value(sessionKey{}).(*session)
	if s == nil {
		return &session{role: RoleViewer}
	}
	return s
}

// operatorOnly serves h to an operator's session only: a viewer's
// request is refused with 403 whatever the page showed it.
func (c *Console) operatorOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s := sessionOf(r); !s.operator() {
			c.log.Warn("console: refused to a viewer", "user", s.user, "method", r.Method, "path", r.URL.Path)
			http.Error(w, "forbidden: the "+s.role+" role may look, not change anything", http.StatusForbidden)
			return
		}
		h(w, r)
	}
}

// withEngine serves h when the console has an engine, else 404.
func (c *Console) withEngine(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if c.opts.Engine == nil {
			http.Error(w, "this console has no controller engine: no ask, reports or approvals", http.StatusNotFound)
			return
		}
		h(w, r)
	}
}

// badRequest renders the error page with a clear message.
func (c *Console) badRequest(w http.ResponseWriter, r *http.Request, code int, msg string) {
	p := c.basePage(r, "Error")
	c.render(w, code, "error.html", struct {
		page
		Message string
	}{p, msg})
}

// page is what every page's header needs.
type page struct {
	Title, CSRF string
	User, Role  string
	Operator    bool
	Engine      bool
	Audit       bool // audit logs to search
	Pending     int  // approvals waiting
	// LogOut offers the log-out button: only to a one-time login's
	// session. A client certificate or a bearer token is the identity of
	// every request it comes with, so there is nothing to log out of.
	LogOut bool
}

func (c *Console) basePage(r *http.Request, title string) page {
	s := sessionOf(r)
	n := 0
	if c.approvals != nil {
		n = c.approvals.waitingCount()
	}
	return page{Title: title, CSRF: csrfOf(r), User: s.user, Role: s.role, Operator: s.operator(), Engine: c.opts.Engine != nil, Audit: len(c.auditFiles()) > 0, Pending: n, LogOut: s.id == nil}
}

// serveAsk starts an intent's run and sends the browser to its page.
func (c *Console) serveAsk(w http.ResponseWriter, r *http.Request) {
	intent := strings.TrimSpace(r.PostFormValue("intent"))
	switch {
	case intent == "":
		c.badRequest(w, r, http.StatusBadRequest, `No intent: write one, e.g. "verify reachability between r1 and h3".`)
		return
	case len(intent) > maxIntentLen || !utf8.ValidString(intent) || strings.ContainsAny(intent, "\x00\r\n"):
		c.badRequest(w, r, http.StatusBadRequest, fmt.Sprintf("The intent must be one line of text of at most %d bytes.", maxIntentLen))
		return
	}
	s := sessionOf(r)
	rn, err := c.runs.start("ask", intent, s.user, func(ctx context.Context, rn *run) (string, error) {
		rep, err := c.opts.Engine.Ask(ctx, intent, rn)
		if err != nil {
			return "", err
		}
		c.auditEvent(s.user, rep.CorrelationID, "console/ask", "", map[string]any{"intent": intent, "report": rep.ID, "diagnosis": rep.Diagnosis})
		return rep.ID, nil
	})
	if err != nil {
		c.badRequest(w, r, http.StatusTooManyRequests, err.Error())
		return
	}
	c.log.Info("console: ask", "user", s.user, "intent", intent, "run", rn.ID)
	http.Redirect(w, r, "/runs/"+rn.ID, http.StatusSeeOther)
}

// runPage is the data of a run's page.
type runPage struct {
	page
	Run    *run
	Lines  []string
	Done   bool
	Report string
	Err    string
}

func (c *Console) serveRun(w http.ResponseWriter, r *http.Request) {
	rn := c.runs.get(r.PathValue("id"))
	if rn == nil {
		c.badRequest(w, r, http.StatusNotFound, "No such run: the console keeps the last runs only, and forgets them when it stops.")
		return
	}
	lines, done, rep, errText, _ := rn.snapshot(0)
	if done && rep != "" && errText == "" {
		// Ended well: its report tells the rest, plan and calls included.
		http.Redirect(w, r, "/report/"+rep, http.StatusSeeOther)
		return
	}
	c.render(w, http.StatusOK, "run.html", runPage{page: c.basePage(r, rn.Kind+": "+rn.Title), Run: rn, Lines: lines, Done: done, Report: rep, Err: errText})
}

// reportRow is a saved report in the list.
type reportRow struct {
	ID, Intent, Diagnosis, Remediation string
	Anomaly                            bool
	Err                                string
}

// maxListed is how many of the newest reports the list shows.
const maxListed = 50

func (c *Console) serveReports(w http.ResponseWriter, r *http.Request) {
	ids, err := c.opts.Engine.Reports()
	if err != nil {
		c.badRequest(w, r, http.StatusInternalServerError, "The saved reports cannot be listed: "+err.Error())
		return
	}
	var rows []reportRow
	for i := len(ids) - 1; i >= 0 && len(rows) < maxListed; i-- {
		row := reportRow{ID: ids[i]}
		if rep, err := c.opts.Engine.Report(ids[i]); err != nil {
			row.Err = err.Error()
		} else {
			row.Intent, row.Diagnosis, row.Anomaly = rep.IntentText, rep.Diagnosis, rep.IsAnomaly
			if rep.Remediation != nil {
				row.Remediation = rep.Remediation.Result
			}
		}
		rows = append(rows, row)
	}
	c.render(w, http.StatusOK, "reports.html", struct {
		page
		Rows  []reportRow
		Total int
		D2D   d2dList
	}{c.basePage(r, "Reports"), rows, len(ids), c.d2dRows()})
}

// reportPage is the data of a report's page: the map with the faulty
// devices and links highlighted, and the report.
type reportPage struct {
	mapPage
	R       *Report
	Pending *approval
	Decided *approval // the last decision on its fix, if any
	CanFix  bool
}

func (c *Console) loadReport(w http.ResponseWriter, r *http.Request) (*Report, bool) {
	id := r.PathValue("id")
	if !reportIDRe.MatchString(id) {
		c.badRequest(w, r, http.StatusBadRequest, "That is not a report id.")
		return nil, false
	}
	rep, err := c.opts.Engine.Report(id)
	if err != nil {
		c.badRequest(w, r, http.StatusNotFound, "No such report: "+err.Error())
		return nil, false
	}
	return rep, true
}

func (c *Console) serveReport(w http.ResponseWriter, r *http.Request) {
	rep, ok := c.loadReport(w, r)
	if !ok {
		return
	}
	p := reportPage{mapPage: c.mapData(r), R: rep}
	p.Title = "Report " + rep.ID
	p.FaultNodes, p.FaultLinks = c.highlights(rep)
	if a, ok := c.approvals.pendingFor(rep.ID); ok {
		p.Pending = &a
	}
	if a, ok := c.approvals.lastDecided(rep.ID); ok {
		p.Decided = &a
	}
	p.CanFix = p.Operator && rep.pending() && p.Pending == nil
	c.render(w, http.StatusOK, "report.html", p)
}

// highlights are the devices and links a report finds faulty: the devices
// its causes name, and the links whose end is an interface a cause names
// on its device (or whose two ends are both a cause's devices).
func (c *Console) highlights(rep *Report) (nodes, links map[string]bool) {
	nodes, links = map[string]bool{}, map[string]bool{}
	for _, d := range rep.FaultyDevices {
		nodes[d] = true
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, cause := range rep.RootCauses {
		words := strings.FieldsFunc(cause.Where+" "+cause.Summary, func(r rune) bool { return strings.ContainsRune(" ,;:()[]'\"", r) })
		for _, e := range c.graph.Edges {
			a, b := slices.Contains(cause.Devices, e.A), slices.Contains(cause.Devices, e.B)
			if (a && b) || (a && slices.Contains(words, e.AIf)) || (b && slices.Contains(words, e.BIf)) {
				links[e.ID] = true
			}
		}
	}
	return nodes, links
}

// serveApply queues a report's fix for approval.
func (c *Console) serveApply(w http.ResponseWriter, r *http.Request) {
	rep, ok := c.loadReport(w, r)
	if !ok {
		return
	}
	if !rep.pending() {
		c.badRequest(w, r, http.StatusConflict, "This report has no fix left to apply (none proposed, or applied or decided already).")
		return
	}
	s := sessionOf(r)
	a, err := c.approvals.request(rep, s.user)
	if err != nil {
		c.badRequest(w, r, http.StatusConflict, err.Error())
		return
	}
	c.auditEvent(s.user, rep.CorrelationID, "console/apply-request", "", map[string]any{"report": rep.ID, "approval": a.ID, "devices": a.Devices()})
	c.log.Info("console: fix waiting for approval", "user", s.user, "report", rep.ID, "approval", a.ID)
	http.Redirect(w, r, "/approvals", http.StatusSeeOther)
}

func (c *Console) serveApprovals(w http.ResponseWriter, r *http.Request) {
	pending, decided, err := c.approvals.list()
	if err != nil {
		c.badRequest(w, r, http.StatusServiceUnavailable, "The fixes waiting for approval cannot be read: "+err.Error())
		return
	}
	s := sessionOf(r)
	for i := range pending {
		pending[i].mark(c.mayDecide(s, commitTool, pending[i].Requester, pending[i].Devices()))
	}
	c.render(w, http.StatusOK, "approvals.html", approvalsPage{page: c.basePage(r, "Approvals"), Queue: pending, Decided: decided,
		gatesView: c.gatesView(r)})
}

// serveDecide approves or declines a pending fix. An approval starts the
// apply: confirmed commits, verification, confirm or roll back, the
// devices' questions answered in the approver's name.
func (c *Console) serveDecide(w http.ResponseWriter, r *http.Request) {
	decision := map[string]string{"approve": "approved", "decline": "declined"}[r.PathValue("decision")]
	if decision == "" {
		c.badRequest(w, r, http.StatusNotFound, "The decision is approve or decline.")
		return
	}
	s := sessionOf(r)
	a, err := c.approvals.decideIf(r.PathValue("id"), decision, s.user, func(a *approval) error {
		return c.mayDecide(s, commitTool, requesterIf(decision == "approved", a.Requester), a.Devices())
	})
	if errors.Is(err, errForbidden) {
		c.log.Warn("console: decision refused", "user", s.user, "approval", r.PathValue("id"), "err", err)
		c.badRequest(w, r, http.StatusForbidden, err.Error())
		return
	}
	if err != nil {
		c.badRequest(w, r, http.StatusNotFound, err.Error())
		return
	}
	c.auditEvent(s.user, a.Correlation, "console/approval", "", map[string]any{"report": a.Report, "approval": a.ID, "decision": decision,
		"requester": a.Requester, "devices": a.Devices()})
	c.log.Info("console: approval decided", "user", s.user, "approval", a.ID, "report", a.Report, "decision", decision)
	if decision == "declined" {
		http.Redirect(w, r, "/approvals", http.StatusSeeOther)
		return
	}
	consent := "console:" + s.user
	rn, err := c.runs.start("apply", "the fix of report "+a.Report, s.user, func(ctx context.Context, rn *run) (string, error) {
		end := c.approvals.begin(a)
		defer end()
		rep, err := c.opts.Engine.Apply(ctx, a.Report, consent, rn)
		if err != nil {
			return "", err
		}
		if rep.Remediation == nil {
			return rep.ID, errors.New("the engine applied nothing")
		}
		c.auditEvent(s.user, rep.CorrelationID, "console/apply", "", map[string]any{"report": rep.ID, "result": rep.Remediation.Result})
		return rep.ID, nil
	})
	if err != nil {
		c.approvals.undo(a)
		c.badRequest(w, r, http.StatusTooManyRequests, "The fix could not start, it is still waiting for approval: "+err.Error())
		return
	}
	c.approvals.mu.Lock()
	a.Run = rn.ID
	c.approvals.mu.Unlock()
	http.Redirect(w, r, "/runs/"+rn.ID, http.StatusSeeOther)
}
