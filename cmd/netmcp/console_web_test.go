package main

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/controller"
)

// webSession is a browser's session on a console, over plain HTTP.
type webSession struct {
	t    *testing.T
	hc   *http.Client
	base string
	csrf string
}

// loginConsole opens a session with a one-time login URL.
func loginConsole(t *testing.T, login string) *webSession {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	s := &webSession{t: t, hc: &http.Client{Jar: jar, Timeout: 30 * time.Second}}
	s.base, _, _ = strings.Cut(login, "/login")
	if code, _, _ := s.do(http.MethodGet, login, nil); code != http.StatusOK {
		t.Fatalf("GET %s: %d", login, code)
	}
	s.hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	_, body, _ := s.do(http.MethodGet, s.base+"/", nil)
	m := regexp.MustCompile(`name="csrf-token" content="([^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no CSRF token on the map's page:\n%.500s", body)
	}
	s.csrf = m[1]
	return s
}

// do makes a request and returns the status, the body and the redirect.
func (s *webSession) do(method, u string, form url.Values) (int, string, string) {
	s.t.Helper()
	var body io.Reader
	if form != nil {
		form.Set("csrf", s.csrf)
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		s.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header.Get("Location")
}

// run waits for a run to end well and returns its report's id.
func (s *webSession) run(path string) string {
	s.t.Helper()
	var id string
	eventually(s.t, 2*time.Minute, "run "+path+" ends", func() bool {
		code, body, loc := s.do(http.MethodGet, s.base+path, nil)
		if strings.Contains(body, "Failed:") {
			s.t.Fatalf("run %s failed:\n%s", path, body)
		}
		id, _ = strings.CutPrefix(loc, "/report/")
		return code == http.StatusSeeOther && id != ""
	})
	return id
}

// askAndFix asks the console, checks the diagnosis names the fault on r3,
// requests the fix, approves it, and returns the report's page after.
func (s *webSession) askAndFix(intent string) string {
	s.t.Helper()
	code, _, loc := s.do(http.MethodPost, s.base+"/ask", url.Values{"intent": {intent}})
	if code != http.StatusSeeOther {
		s.t.Fatalf("POST /ask: %d", code)
	}
	id := s.run(loc)
	_, page, _ := s.do(http.MethodGet, s.base+"/report/"+id, nil)
	if !strings.Contains(page, "icmp_acl_block") || !regexp.MustCompile(`class="node[^"]* fault" id="node-r3"`).MatchString(page) {
		s.t.Fatalf("report %s does not find the ACL on r3:\n%.3000s", id, page)
	}
	if code, _, _ := s.do(http.MethodPost, s.base+"/report/"+id+"/apply", url.Values{}); code != http.StatusSeeOther {
		s.t.Fatalf("apply: %d", code)
	}
	_, queue, _ := s.do(http.MethodGet, s.base+"/approvals", nil)
	m := regexp.MustCompile(`action="(/approvals/[^/"]+/approve)"`).FindStringSubmatch(queue)
	if m == nil {
		s.t.Fatalf("no approval waiting:\n%.2000s", queue)
	}
	code, _, loc = s.do(http.MethodPost, s.base+m[1], url.Values{})
	if code != http.StatusSeeOther {
		s.t.Fatalf("approve: %d", code)
	}
	s.run(loc)
	_, page, _ = s.do(http.MethodGet, s.base+"/report/"+id, nil)
	return page
}

// TestControllerServeWeb: `controller serve --web` serves the console
// with the controller's engine: an intent asked there finds the fault,
// its fix applied after an approval is verified and confirmed, and the
// controller's audit log records the decision with the console user.
func TestControllerServeWeb(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	reports := t.TempDir()
	o := controllerServeOptions{lab: labBuiltin, listen: "127.0.0.1:0", web: "127.0.0.1:0", reportsDir: reports,
		faults: []string{"icmp_acl_block r3:GigabitEthernet0/0/0"}, webViewers: []string{"victor"}}
	errw := &syncBuffer{ch: make(chan struct{}, 1)}
	done := make(chan error, 1)
	go func() { done <- runControllerServe(ctx, o, strings.NewReader(""), io.Discard, errw) }()
	defer func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("controller serve: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("controller serve did not stop")
		}
	}()
	var login string
	eventually(t, 30*time.Second, "controller serve prints the console's URL", func() bool {
		m := regexp.MustCompile(`console at (\S+)`).FindStringSubmatch(errw.String())
		if m != nil {
			login = m[1]
		}
		return m != nil
	})
	var viewerLogin string
	eventually(t, 5*time.Second, "controller serve prints the viewer's login", func() bool {
		m := regexp.MustCompile(`console \(viewer victor\): (\S+)`).FindStringSubmatch(errw.String())
		if m != nil {
			viewerLogin = m[1]
		}
		return m != nil
	})
	viewer := loginConsole(t, viewerLogin)
	if code, _, _ := viewer.do(http.MethodPost, viewer.base+"/ask", url.Values{"intent": {"what is wrong with the network?"}}); code != http.StatusForbidden {
		t.Errorf("the viewer's ask: %d, want 403", code)
	}
	if _, home, _ := viewer.do(http.MethodGet, viewer.base+"/", nil); strings.Contains(home, `action="/ask"`) || !strings.Contains(home, "victor (viewer)") {
		t.Errorf("the viewer's map page shows the ask box or not the viewer:\n%.1500s", home)
	}
	s := loginConsole(t, login)
	page := s.askAndFix("verify reachability between r1 and h3")
	if !strings.Contains(page, "verified") || !strings.Contains(page, "confirmed") {
		t.Errorf("the fix was not verified and confirmed:\n%.3000s", page)
	}
	rep, err := controller.Store{Dir: reports}.Load("last")
	if err != nil || rep.Remediation == nil || !rep.Remediation.Verified {
		t.Fatalf("saved report: %v %+v", err, rep)
	}
	recs, err := audit.ReadFile(filepath.Join(reports, "controller-audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var decided bool
	for _, r := range recs {
		if r.Method == "console/approval" && r.Identity != "" && strings.Contains(string(r.Arguments), `"decision":"approved"`) {
			decided = true
		}
	}
	if !decided {
		t.Error("the controller's audit log does not record the approval")
	}
	// The console searches the controller's audit log.
	_, found, _ := s.do(http.MethodGet, s.base+"/audit?tool=console/approval", nil)
	if !strings.Contains(found, "<strong>controller</strong>: verified") || !strings.Contains(found, `id="audit-count">1 record`) {
		t.Errorf("audit search of the controller's log:\n%.2000s", found)
	}
}
