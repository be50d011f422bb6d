package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/console"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/lab/labtest"
)

// engine is the controller's engine as the console's, as the command
// wires it: asks and reports in a store, fixes through Remediate.
type engine struct {
	fleet *client.Fleet
	ctl   controller.Controller
	store controller.Store
}

func (e *engine) controller(progress io.Writer) *controller.Controller {
	c := e.ctl
	c.Fleet, c.Progress = e.fleet, progress
	return &c
}

func (e *engine) Ask(ctx context.Context, text string, progress io.Writer) (*console.Report, error) {
	in, err := controller.ParseIntent(text)
	if err != nil {
		return nil, err
	}
	rep, err := e.controller(progress).Ask(ctx, in)
	if err != nil {
		return nil, err
	}
	if _, err := e.store.Save(rep); err != nil {
		return nil, err
	}
	return asConsole(rep)
}

func (e *engine) Apply(ctx context.Context, id, consent string, progress io.Writer) (*console.Report, error) {
	rep, err := e.store.Load(id)
	if err != nil {
		return nil, err
	}
	if err := e.controller(progress).Remediate(ctx, rep, consent); err != nil {
		return nil, err
	}
	if _, err := e.store.Save(rep); err != nil {
		return nil, err
	}
	return asConsole(rep)
}

func (e *engine) Reports() ([]string, error) { return e.store.List() }

func (e *engine) Report(id string) (*console.Report, error) {
	rep, err := e.store.Load(id)
	if err != nil {
		return nil, err
	}
	return asConsole(rep)
}

func asConsole(rep *controller.Report) (*console.Report, error) {
	b, err := json.Marshal(rep)
	if err != nil {
		return nil, err
	}
	var out console.Report
	err = json.Unmarshal(b, &out)
	out.IntentText = rep.Intent.String()
	return &out, err
}

// askLab is a served lab with audit logs on its devices, the faults
// given, and a console with the controller's engine in front of it.
type askLab struct {
	lab   *labtest.Lab
	c     *console.Console
	base  string
	audit string // the console's audit log
}

func newAskLab(t testing.TB, faults ...string) *askLab {
	t.Helper()
	l := labtest.New(t, labtest.Options{Faults: faults, Audit: true})
	inv := l.Serve().Inventory()
	var web atomic.Pointer[console.Console]
	fleet, err := client.New(inv, client.Options{Name: "console-test", CallTimeout: time.Minute,
		Elicit: func(ctx context.Context, d *client.Device, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			if res, ok := web.Load().Elicit(ctx, d, p); ok {
				return res, nil
			}
			return &mcp.ElicitResult{Action: "decline"}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fleet.Close() })
	topo := l.Topology()
	dir := t.TempDir()
	alog, err := audit.Open(dir+"/console-audit.jsonl", audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { alog.Close() })
	eng := &engine{fleet: fleet, ctl: controller.Controller{Hosts: controller.HostsOf(topo), Domains: controller.DomainsOf(topo)},
		store: controller.Store{Dir: dir + "/reports"}}
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	files := []console.AuditFile{{Name: "console", Path: alog.Path()}}
	for _, r := range l.Routers() {
		files = append(files, console.AuditFile{Name: r, Path: l.AuditFile(r), Device: r})
	}
	c, err := console.New(console.Options{Inventory: inv, Fleet: fleet, Topology: &topo, BaseURL: base, Interval: 200 * time.Millisecond,
		User: "alice", Engine: eng, Audit: alog, AuditFiles: files})
	if err != nil {
		t.Fatal(err)
	}
	web.Store(c)
	srv.Config.Handler = c.Handler()
	srv.Start()
	t.Cleanup(func() {
		c.Close()
		srv.Close()
	})
	return &askLab{lab: l, c: c, base: base, audit: dir + "/console-audit.jsonl"}
}

// session is a logged-in HTTP client that does not follow redirects.
type session struct {
	t    testing.TB
	hc   *http.Client
	base string
	csrf string
}

func (a *askLab) login(t testing.TB, loginURL string) *session {
	t.Helper()
	hc := loginWith(t, loginURL)
	s := &session{t: t, hc: hc, base: a.base}
	body := s.get("/", http.StatusOK)
	m := regexp.MustCompile(`name="csrf-token" content="([^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no CSRF token on the map's page")
	}
	s.csrf = m[1]
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return s
}

func (s *session) get(path string, want int) string {
	s.t.Helper()
	resp, err := s.hc.Get(s.base + path)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		s.t.Fatalf("GET %s: %s, want %d: %s", path, resp.Status, want, b)
	}
	return string(b)
}

// post posts a form (with the CSRF token unless csrf is false) and
// returns the status and the redirect's target.
func (s *session) post(path string, form url.Values, csrf bool) (int, string) {
	s.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if csrf {
		form.Set("csrf", s.csrf)
	}
	resp, err := s.hc.PostForm(s.base+path, form)
	if err != nil {
		s.t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Location")
}

// waitRun waits for a run's page to say it is done and returns its report.
func (s *session) waitRun(run string, within time.Duration) string {
	s.t.Helper()
	deadline := time.Now().Add(within)
	for {
		resp, err := s.hc.Get(s.base + run)
		if err != nil {
			s.t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body := string(b)
		if id, ok := strings.CutPrefix(resp.Header.Get("Location"), "/report/"); ok && resp.StatusCode == http.StatusSeeOther {
			return id
		}
		if strings.Contains(body, "Failed:") {
			s.t.Fatalf("run %s failed: %s", run, body)
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("run %s not done within %v", run, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestAskApproveApply: an operator asks, the report names the faulty
// device and proposes a fix; applying it queues an approval, a viewer
// sees it and cannot decide it (403 on every change), the operator
// approves, the fix is committed, verified and confirmed, and the
// device's audit log names the approver.
func TestAskApproveApply(t *testing.T) {
	a := newAskLab(t, "icmp_acl_block r3:GigabitEthernet0/0/0")
	op := a.login(t, a.c.LoginURL())
	viewerURL, err := a.c.AddLogin("victor", console.RoleViewer)
	if err != nil {
		t.Fatal(err)
	}
	viewer := a.login(t, viewerURL)
	if _, err := a.c.AddLogin("x", "admin"); err == nil {
		t.Error("AddLogin took an unknown role")
	}

	// Bad input is refused and starts nothing.
	for _, c := range []struct {
		intent string
		csrf   bool
		want   int
	}{
		{"", true, http.StatusBadRequest},
		{strings.Repeat("x", 501), true, http.StatusBadRequest},
		{"verify reachability between r1 and h3", false, http.StatusForbidden},
	} {
		if code, _ := op.post("/ask", url.Values{"intent": {c.intent}}, c.csrf); code != c.want {
			t.Errorf("ask %.20q (csrf %v): %d, want %d", c.intent, c.csrf, code, c.want)
		}
	}
	// An intent the engine cannot parse ends its run with the reason.
	_, run := op.post("/ask", url.Values{"intent": {"make me a sandwich"}}, true)
	eventually(t, 10*time.Second, "the run of a nonsense intent fails", func() bool {
		return strings.Contains(op.get(run, http.StatusOK), "Failed:")
	})

	// A viewer may not ask.
	if code, _ := viewer.post("/ask", url.Values{"intent": {"what is wrong with the network?"}}, true); code != http.StatusForbidden {
		t.Errorf("viewer ask: %d, want 403", code)
	}
	code, run := op.post("/ask", url.Values{"intent": {"verify reachability between r1 and h3"}}, true)
	if code != http.StatusSeeOther || !strings.HasPrefix(run, "/runs/") {
		t.Fatalf("ask: %d %q", code, run)
	}
	id := op.waitRun(run, time.Minute)
	// The run's stream gives the plan and each call, then the report.
	events := op.get(run+"/events", http.StatusOK)
	for _, want := range []string{"event: line\ndata: \"step 1: ", "network.yang.get", "event: done\ndata: {\"error\":\"\",\"report\":\"" + id + "\"}"} {
		if !strings.Contains(events, want) {
			t.Errorf("run stream lacks %q:\n%.2000s", want, events)
		}
	}
	page := op.get("/report/"+id, http.StatusOK)
	for _, want := range []string{"icmp_acl_block", `id="node-r3"`, `class="node k-router s-up fault" id="node-r3"`, `id="apply"`, "10 deny icmp any any"} {
		if !strings.Contains(page, want) && !strings.Contains(page, strings.Replace(want, "s-up ", "s-unknown ", 1)) {
			t.Errorf("report page lacks %q", want)
		}
	}
	if regexp.MustCompile(`class="node[^"]*fault[^"]*" id="node-r[12]"`).MatchString(page) {
		t.Error("a healthy router is highlighted")
	}
	if strings.Contains(viewer.get("/report/"+id, http.StatusOK), `id="apply"`) {
		t.Error("the viewer is shown the apply button")
	}
	if !strings.Contains(op.get("/reports", http.StatusOK), id) {
		t.Error("the saved report is not listed")
	}
	if code, _ := viewer.post("/report/"+id+"/apply", nil, true); code != http.StatusForbidden {
		t.Errorf("viewer apply: %d, want 403", code)
	}
	if code, _ := op.post("/report/"+id+"/apply", nil, false); code != http.StatusForbidden {
		t.Errorf("apply without CSRF token: %d, want 403", code)
	}
	// A declined request changes nothing and says so; it may be asked again.
	if code, _ := op.post("/report/"+id+"/apply", nil, true); code != http.StatusSeeOther {
		t.Fatalf("apply: %d", code)
	}
	d := regexp.MustCompile(`action="(/approvals/[^/"]+)/decline"`).FindStringSubmatch(op.get("/approvals", http.StatusOK))
	if d == nil {
		t.Fatal("no decline button")
	}
	if code, loc := op.post(d[1]+"/decline", nil, true); code != http.StatusSeeOther || loc != "/approvals" {
		t.Fatalf("decline: %d %q", code, loc)
	}
	if page := op.get("/report/"+id, http.StatusOK); !strings.Contains(page, `id="declined"`) || !strings.Contains(page, `id="apply"`) {
		t.Error("the report does not say the fix was declined, or does not offer it again")
	}
	if code, loc := op.post("/report/"+id+"/apply", nil, true); code != http.StatusSeeOther || loc != "/approvals" {
		t.Fatalf("apply: %d %q", code, loc)
	}
	if code, _ := op.post("/report/"+id+"/apply", nil, true); code != http.StatusConflict {
		t.Errorf("second apply of the same report: %d, want 409", code)
	}

	// The queue: the viewer sees what, who and why, and no button.
	vq := viewer.get("/approvals", http.StatusOK)
	for _, want := range []string{id, "alice", "NIKA-ICMP-BLOCK", "r3"} {
		if !strings.Contains(vq, want) {
			t.Errorf("the viewer's queue lacks %q", want)
		}
	}
	if strings.Contains(vq, "/approve") {
		t.Error("the viewer is shown the approve button")
	}
	m := regexp.MustCompile(`action="(/approvals/[^/"]+)/approve"`).FindStringSubmatch(op.get("/approvals", http.StatusOK))
	if m == nil {
		t.Fatal("no approve button for the operator")
	}
	if code, _ := viewer.post(m[1]+"/approve", nil, true); code != http.StatusForbidden {
		t.Errorf("viewer approve: %d, want 403", code)
	}
	if code, _ := op.post(m[1]+"/approve", nil, false); code != http.StatusForbidden {
		t.Errorf("approve without CSRF token: %d, want 403", code)
	}
	code, run = op.post(m[1]+"/approve", nil, true)
	if code != http.StatusSeeOther || !strings.HasPrefix(run, "/runs/") {
		t.Fatalf("approve: %d %q", code, run)
	}
	if code, _ := op.post(m[1]+"/approve", nil, true); code != http.StatusNotFound {
		t.Errorf("second approval: %d, want 404", code)
	}
	op.waitRun(run, 2*time.Minute)
	page = op.get("/report/"+id, http.StatusOK)
	if !strings.Contains(page, "confirmed") || !strings.Contains(page, "console:alice") {
		t.Errorf("the report does not say the fix was confirmed with alice's consent")
	}
	if strings.Contains(page, `id="apply"`) {
		t.Error("the apply button is still shown after the fix")
	}

	// The device records the approver; the console's log the decision.
	found := false
	for _, r := range a.lab.Audit("r3") {
		if strings.Contains(string(r.Arguments), `"answeredBy":"alice"`) {
			found = true
		}
	}
	if !found {
		t.Error("r3's audit log does not name alice as the approver")
	}
	recs, err := audit.ReadFile(a.audit)
	if err != nil {
		t.Fatal(err)
	}
	methods := map[string]string{}
	for _, r := range recs {
		methods[r.Method] = r.Identity
	}
	declined := 0
	for _, r := range recs {
		if r.Method == "console/approval" && strings.Contains(string(r.Arguments), `"decision":"declined"`) {
			declined++
		}
	}
	if declined != 1 {
		t.Errorf("console audit: %d declined decisions, want 1", declined)
	}
	for _, m := range []string{"console/ask", "console/apply-request", "console/approval", "console/apply"} {
		if methods[m] != "alice" {
			t.Errorf("console audit: %s by %q, want alice (%v)", m, methods[m], methods)
		}
	}
	if _, err := audit.Verify(a.audit); err != nil {
		t.Errorf("console audit log: %v", err)
	}
}

// TestAuditSearch: the audit page searches the console's and the
// devices' logs by user, device, tool, correlation id and time, shows
// each chain's verification, refuses a malformed time, and is read-only.
func TestAuditSearch(t *testing.T) {
	a := newAskLab(t, "icmp_acl_block r3:GigabitEthernet0/0/0")
	op := a.login(t, a.c.LoginURL())
	viewerURL, _ := a.c.AddLogin("victor", console.RoleViewer)
	viewer := a.login(t, viewerURL)
	_, run := op.post("/ask", url.Values{"intent": {"verify reachability between r1 and h3"}}, true)
	id := op.waitRun(run, time.Minute)
	op.post("/report/"+id+"/apply", nil, true)
	m := regexp.MustCompile(`action="(/approvals/[^/"]+)/approve"`).FindStringSubmatch(op.get("/approvals", http.StatusOK))
	if m == nil {
		t.Fatal("no approval waiting")
	}
	_, run = op.post(m[1]+"/approve", nil, true)
	op.waitRun(run, 2*time.Minute)

	count := func(body string) int {
		t.Helper()
		m := regexp.MustCompile(`id="audit-count">(\d+) record`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("no count on the audit page:\n%.1500s", body)
		}
		n := 0
		fmt.Sscan(m[1], &n)
		return n
	}
	rows := func(body string) []string {
		return regexp.MustCompile(`(?s)<tr><td>\d{4}-.*?</tr>`).FindAllString(body, -1)
	}
	all := viewer.get("/audit", http.StatusOK)
	if !strings.Contains(all, "<strong>console</strong>: verified") || !strings.Contains(all, "<strong>r3</strong>: verified") {
		t.Errorf("the chains' verification is not shown:\n%.1500s", all)
	}
	n := count(all)
	cases := []struct {
		query string
		check func(rows []string) bool
	}{
		{"user=alice", func(rs []string) bool {
			for _, r := range rs {
				if !strings.Contains(r, "<td>alice</td>") {
					return false
				}
			}
			return true
		}},
		{"tool=console/approval", func(rs []string) bool { return len(rs) == 1 && strings.Contains(rs[0], "approved") }},
		{"device=r3&tool=network.commit", func(rs []string) bool {
			for _, r := range rs {
				if !strings.Contains(r, "<td>r3</td>") {
					return false
				}
			}
			return len(rs) > 0
		}},
		{"device=r1&tool=network.commit", func(rs []string) bool { return len(rs) == 0 }},
		{"from=2000-01-01T00:00&to=2000-01-02T00:00", func(rs []string) bool { return len(rs) == 0 }},
	}
	for _, c := range cases {
		body := viewer.get("/audit?"+c.query, http.StatusOK)
		k := count(body)
		if k == 0 && c.query != "device=r1&tool=network.commit" && !strings.HasPrefix(c.query, "from=") || k > n || !c.check(rows(body)) {
			t.Errorf("audit search %s: %d of %d records, rows:\n%s", c.query, k, n, strings.Join(rows(body), "\n"))
		}
	}
	viewer.get("/audit?from=yesterday", http.StatusBadRequest)
	if code, _ := viewer.post("/audit", nil, true); code != http.StatusMethodNotAllowed {
		t.Errorf("POST /audit: %d, want 405", code)
	}
}
