package console_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/netproto"
)

// TestPolicyLogins: over HTTPS, the policy's identities log in as
// themselves with their roles: a client certificate opens an HttpOnly,
// SameSite=Strict, Secure session bound to that certificate; a bearer
// token is its identity on each request; a viewer's POST is refused; a
// bad token, or no credential at all, logs nobody in; the one-time login
// link still works on loopback.
func TestPolicyLogins(t *testing.T) {
	g := newGateLab(t, true, false)
	cases := []struct {
		name     string
		hc       *http.Client
		who      string
		operator bool
	}{
		{"mTLS operator", g.tlsClient(t, "alice"), "mtls:alice (operator)", true},
		{"mTLS viewer", g.tlsClient(t, "victor"), "mtls:victor (viewer)", false},
		{"mTLS r2 operator", g.tlsClient(t, "carol"), "mtls:carol (operator)", true},
		{"bearer operator", g.bearer(t, g.token(t, "bob")), "jwt:bob (operator)", true},
		{"bearer viewer", g.bearer(t, g.token(t, "victor")), "jwt:victor (viewer)", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, err := c.hc.Get(g.base + "/")
			if err != nil {
				t.Fatal(err)
			}
			page := body(t, resp)
			if resp.StatusCode != http.StatusOK || !strings.Contains(page, c.who) {
				i := strings.Index(page, `class="who"`)
				t.Fatalf("GET /: %s, want 200 naming %q: %.100s", resp.Status, c.who, page[max(i, 0):])
			}
			// The identity comes with every request: no log-out button
			// that would end nothing.
			if strings.Contains(page, `action="/logout"`) {
				t.Error("a certificate or bearer identity is offered a log-out button")
			}
			if strings.HasPrefix(c.name, "mTLS") {
				ck := resp.Header.Get("Set-Cookie")
				for _, want := range []string{"HttpOnly", "SameSite=Strict", "Secure"} {
					if !strings.Contains(ck, want) {
						t.Errorf("session cookie %q lacks %s", ck, want)
					}
				}
			}
			s := g.as(t, c.hc)
			if strings.HasPrefix(c.name, "mTLS") && s.csrf == "" {
				t.Fatal("an mTLS session has no CSRF token")
			}
			// An ask with a nonsense intent changes nothing: a 400 for
			// an operator, a 403 for a viewer.
			code, _ := s.post("/ask", url.Values{"intent": {""}}, s.csrf != "")
			if want := map[bool]int{true: http.StatusBadRequest, false: http.StatusForbidden}[c.operator]; code != want {
				t.Errorf("POST /ask: %d, want %d", code, want)
			}
		})
	}

	// A cookie session without its CSRF token is refused.
	alice := g.as(t, g.tlsClient(t, "alice"))
	if code, _ := alice.post("/ask", url.Values{"intent": {"x"}}, false); code != http.StatusForbidden {
		t.Errorf("mTLS POST without CSRF token: %d, want 403", code)
	}
	// alice's cookie with victor's certificate is not alice's session.
	victor := g.tlsClient(t, "victor")
	victor.Jar = alice.hc.Jar
	resp, err := victor.Get(g.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	if p := body(t, resp); !strings.Contains(p, "mtls:victor (viewer)") {
		t.Errorf("alice's cookie with victor's certificate: not victor's session:\n%.400s", p)
	}
	// Refused credentials.
	for name, hc := range map[string]*http.Client{
		"forged token":  g.bearer(t, g.token(t, "bob")+"x"),
		"no credential": g.tlsClient(t, ""),
	} {
		resp, err := hc.Get(g.base + "/")
		if err != nil {
			t.Fatal(err)
		}
		p := body(t, resp)
		if resp.StatusCode != http.StatusUnauthorized || strings.Contains(p, "csrf-token") {
			t.Errorf("%s: %s, want 401 and no page", name, resp.Status)
		}
	}
	// The terminal's one-time login (loopback) still works, over HTTPS.
	hc := g.tlsClient(t, "")
	resp, err = hc.Get(g.c.LoginURL())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("one-time login: %s", resp.Status)
	}
	if p := g.as(t, hc).get("/", http.StatusOK); !strings.Contains(p, "alice (operator)") {
		t.Error("the one-time login is not the console's operator")
	}
}

// TestDeviceGateApprovals: a host's write reaches a device whose gate
// asks for approval; the question waits in the console's queue with the
// tool, the device, the requester, the diff and the rollback window.
// With four-eyes, the requester sees no approve button and their POST is
// refused; a viewer and an identity whose role does not reach the device
// are refused too; another operator approves (mTLS), and the device
// records that approver. The confirmed commit then counts down in the
// console; "roll back now" from a viewer is refused, from an operator it
// rolls the device back.
func TestDeviceGateApprovals(t *testing.T) {
	g := newGateLab(t, true, true)
	before := g.description(t, "r1")
	done := g.applyAsHost("jwt:bob", "r1", "gate test")

	alice := g.as(t, g.tlsClient(t, "alice"))
	bob := g.as(t, g.bearer(t, g.token(t, "bob")))
	victor := g.as(t, g.tlsClient(t, "victor"))
	carol := g.as(t, g.tlsClient(t, "carol")) // commits on r2 only

	approve := func(tool string) {
		t.Helper()
		var page string
		eventually(t, time.Minute, tool+" waits in the queue", func() bool {
			page = alice.get("/approvals", http.StatusOK)
			return gateID(page, tool) != ""
		})
		id := gateID(page, tool)
		for _, want := range []string{"jwt:bob", "r1", "GigabitEthernet0/0/1"} {
			if !strings.Contains(page, want) {
				t.Errorf("the question of %s does not show %q", tool, want)
			}
		}
		if tool == netproto.ToolCommit && (!strings.Contains(page, "<strong>120 s</strong>") || !strings.Contains(page, `class="add"`)) {
			t.Errorf("the commit's question lacks its rollback window or its diff:\n%s", page)
		}
		// The requester: decline only; the viewer and carol: nothing.
		if p := bob.get("/approvals", http.StatusOK); gateAction(p, tool, "approve") != "" || gateAction(p, tool, "decline") == "" ||
			!strings.Contains(p, "four-eyes") {
			t.Errorf("%s: the requester's page offers an approval, no decline, or says nothing of four-eyes", tool)
		}
		for name, s := range map[string]*session{"victor": victor, "carol": carol} {
			if p := s.get("/approvals", http.StatusOK); gateAction(p, tool, "approve") != "" {
				t.Errorf("%s: %s is shown the approve button", tool, name)
			}
		}
		for name, c := range map[string]struct {
			s    *session
			csrf bool
		}{"bob": {bob, false}, "victor": {victor, true}, "carol": {carol, true}, "alice without CSRF": {alice, false}} {
			if code, _ := c.s.post("/gates/"+id+"/approve", nil, c.csrf); code != http.StatusForbidden {
				t.Errorf("%s: %s's approval: %d, want 403", tool, name, code)
			}
		}
		if code, _ := alice.post("/gates/"+id+"/approve", nil, true); code != http.StatusSeeOther {
			t.Fatalf("%s: alice's approval: %d", tool, code)
		}
		if code, _ := alice.post("/gates/"+id+"/approve", nil, true); code != http.StatusNotFound {
			t.Errorf("%s: a second approval: %d, want 404", tool, code)
		}
	}
	approve(netproto.ToolYangEdit)
	approve(netproto.ToolCommit)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the host's change: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the host's change did not end")
	}
	if d := g.description(t, "r1"); !strings.Contains(d, "gate test") {
		t.Fatalf("r1's description after the approved commit: %s", d)
	}
	// r1 records alice as the approver of bob's change.
	found := false
	for _, r := range g.lab.Audit("r1") {
		found = found || strings.Contains(string(r.Arguments), `"answeredBy":"mtls:alice"`)
	}
	if !found {
		t.Error("r1's audit log does not name mtls:alice as the approver")
	}
	// And its commit history.
	hctx, hcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer hcancel()
	hist, err := g.fleet.Device("r1").ReadResource(hctx, "network:///config/history")
	if err != nil {
		t.Fatal(err)
	}
	if h := hist.Contents[0].Text; !strings.Contains(h, `"comment":"set by jwt:bob (approved by mtls:alice)"`) {
		t.Errorf("r1's commit history does not name the approver:\n%.600s", h)
	}

	// The confirmed commit counts down.
	var page string
	eventually(t, 30*time.Second, "the pending commit on the approvals page", func() bool {
		page = alice.get("/approvals", http.StatusOK)
		return strings.Contains(page, `id="commit-r1"`)
	})
	if !strings.Contains(page, `action="/commits/r1/cancel"`) || !strings.Contains(page, " s</span> of 120 s") {
		t.Errorf("the pending commit shows no countdown or no roll-back button:\n%s", page)
	}
	if strings.Contains(victor.get("/approvals", http.StatusOK), `action="/commits/r1/cancel"`) {
		t.Error("the viewer is offered to roll back")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, g.base+"/commits/events", nil)
	resp, err := alice.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, _ := resp.Body.Read(buf)
	for n < len(buf) && !strings.Contains(string(buf[:n]), "\n\nevent: commits") {
		m, err := resp.Body.Read(buf[n:])
		if err != nil {
			break
		}
		n += m
	}
	resp.Body.Close()
	if ev := string(buf[:n]); !strings.Contains(ev, `"device":"r1"`) || !strings.Contains(ev, `"window":120`) || !strings.Contains(ev, `"can":true`) {
		t.Errorf("the countdown stream: %q", ev)
	}
	for name, c := range map[string]struct {
		s    *session
		csrf bool
	}{"victor": {victor, true}, "carol": {carol, true}, "alice without CSRF": {alice, false}} {
		if code, _ := c.s.post("/commits/r1/cancel", nil, c.csrf); code != http.StatusForbidden {
			t.Errorf("%s's roll back: %d, want 403", name, code)
		}
	}
	if code, _ := alice.post("/commits/r1/cancel", nil, true); code != http.StatusSeeOther {
		t.Fatalf("alice's roll back: %d", code)
	}
	if d := g.description(t, "r1"); d != before {
		t.Errorf("r1's description after the roll back: %s, want %s", d, before)
	}
	eventually(t, 10*time.Second, "the commit leaves the page", func() bool {
		return !strings.Contains(alice.get("/approvals", http.StatusOK), `id="commit-r1"`)
	})
	if code, _ := alice.post("/commits/r1/cancel", nil, true); code != http.StatusBadGateway {
		t.Errorf("a second roll back: %d, want 502 (nothing pending)", code)
	}
}

// TestFourEyesFix: with four-eyes, who asked for a fix in the console
// sees no approve button and is refused (403), but may withdraw it;
// another operator approves it, and the fix is applied in their name.
func TestFourEyesFix(t *testing.T) {
	g := newGateLab(t, true, true, "icmp_acl_block r3:GigabitEthernet0/0/0")
	alice := g.as(t, g.tlsClient(t, "alice"))
	bob := g.as(t, g.bearer(t, g.token(t, "bob")))
	_, run := alice.post("/ask", url.Values{"intent": {"verify reachability between r1 and h3"}}, true)
	id := alice.waitRun(run, time.Minute)
	if code, _ := alice.post("/report/"+id+"/apply", nil, true); code != http.StatusSeeOther {
		t.Fatalf("apply request: %d", code)
	}
	page := alice.get("/approvals", http.StatusOK)
	m := regexp.MustCompile(`action="(/approvals/[^/"]+)/decline"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the requester cannot withdraw the fix:\n%s", page)
	}
	if strings.Contains(page, m[1]+"/approve") || !strings.Contains(page, "four-eyes") {
		t.Error("the requester is offered to approve their own fix, or not told why not")
	}
	if code, _ := alice.post(m[1]+"/approve", nil, true); code != http.StatusForbidden {
		t.Errorf("the requester's approval: %d, want 403", code)
	}
	if !strings.Contains(bob.get("/approvals", http.StatusOK), m[1]+"/approve") {
		t.Error("another operator is not offered to approve")
	}
	code, run := bob.post(m[1]+"/approve", nil, false)
	if code != http.StatusSeeOther {
		t.Fatalf("bob's approval: %d", code)
	}
	if rep := bob.waitRun(run, time.Minute); rep != id {
		t.Errorf("the apply's report %s, want %s", rep, id)
	}
	if p := bob.get("/report/"+id, http.StatusOK); !strings.Contains(p, "console:jwt:bob") {
		t.Error("the report does not give bob's consent")
	}
}
