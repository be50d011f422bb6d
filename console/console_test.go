package console_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/console"
	"github.com/netmcp/netmcp/lab/topology"
)

// startConsole serves a console of the lab on loopback and returns it
// with its base URL.
func startConsole(t testing.TB, l *testLab) (*console.Console, string) {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	c, err := console.New(console.Options{Inventory: l.inv, Topology: &l.topo, BaseURL: base, Interval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = c.Handler()
	srv.Start()
	t.Cleanup(func() {
		c.Close() // ends the event streams first, which srv.Close waits for
		srv.Close()
	})
	return c, base
}

// loggedIn returns an HTTP client with the console's session cookie.
func loggedIn(t testing.TB, c *console.Console) *http.Client {
	t.Helper()
	return loginWith(t, c.LoginURL())
}

// loginWith returns an HTTP client logged in with a one-time login URL.
func loginWith(t testing.TB, loginURL string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar}
	resp, err := hc.Get(loginURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("login: %s", resp.Status)
	}
	return hc
}

type stateMsg struct {
	V     uint64                       `json:"v"`
	Nodes map[string]map[string]string `json:"nodes"`
	Links map[string]map[string]string `json:"links"`
}

// mapState reads the map's state from the console at base.
func mapState(t testing.TB, hc *http.Client, base string) stateMsg {
	t.Helper()
	resp, err := hc.Get(base + "/api/state")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m stateMsg
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// linkShows reports whether a link of m is in one of states with a note
// naming the interface end ("r1:GigabitEthernet0/0/0").
func linkShows(m stateMsg, end string, states ...string) bool {
	for _, lv := range m.Links {
		if slices.Contains(states, lv["s"]) && strings.Contains(lv["n"], end) {
			return true
		}
	}
	return false
}

func TestConsoleSecurity(t *testing.T) {
	l := newTestLab(t)
	c, base := startConsole(t, l)
	login := c.LoginURL()
	if !strings.HasPrefix(login, base+"/login?token=") {
		t.Fatalf("LoginURL = %q", login)
	}
	anon := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	// Before login: pages and the stream are refused, with the headers.
	for _, p := range []string{"/", "/events", "/api/state", "/device/r1", "/map.svg"} {
		resp, err := anon.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without session: %s, want 401", p, resp.Status)
		}
		if resp.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("GET %s: no Content-Security-Policy", p)
		}
	}
	// A wrong token opens nothing.
	resp, err := anon.Get(base + "/login?token=wrong")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("wrong token: %s, want 403", resp.Status)
	}

	// The token opens a session once, with a strict HttpOnly cookie.
	resp, err = anon.Get(login)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login: %s", resp.Status)
	}
	ck := resp.Cookies()
	if len(ck) != 1 || !ck[0].HttpOnly || ck[0].SameSite != http.SameSiteStrictMode {
		t.Fatalf("session cookie = %+v, want HttpOnly SameSite=Strict", ck)
	}
	if c.LoginURL() != "" {
		t.Errorf("LoginURL after use = %q, want empty", c.LoginURL())
	}
	if resp, err = anon.Get(login); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("second use of the token: %s, want 403", resp.Status)
		}
	}

	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(base)
	jar.SetCookies(u, ck)
	hc := &http.Client{Jar: jar, CheckRedirect: anon.CheckRedirect}
	resp, err = hc.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET / with session: %s", resp.Status)
	}
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"script-src 'self'", "default-src 'none'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP allows inline: %q", csp)
	}
	if strings.Contains(string(page), "<script>") || strings.Contains(string(page), " style=") {
		t.Errorf("page has inline script or style")
	}
	csrf := between(string(page), `name="csrf-token" content="`, `"`)
	if csrf == "" {
		t.Fatal("no CSRF token in the page")
	}

	// State-changing requests need the CSRF token.
	tests := []struct {
		name   string
		header map[string]string
		form   string
		want   int
	}{
		{"no token", nil, "", http.StatusForbidden},
		{"wrong token", map[string]string{"X-CSRF-Token": "nope"}, "", http.StatusForbidden},
		{"foreign origin", map[string]string{"X-CSRF-Token": csrf, "Origin": "http://evil.example"}, "", http.StatusForbidden},
		{"cross-site fetch", map[string]string{"X-CSRF-Token": csrf, "Sec-Fetch-Site": "cross-site"}, "", http.StatusForbidden},
		{"token in form", nil, "csrf=" + url.QueryEscape(csrf), http.StatusSeeOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, base+"/logout", strings.NewReader(tt.form))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("POST /logout: %s, want %d", resp.Status, tt.want)
			}
		})
	}
	// Logged out: the session is gone.
	resp, err = hc.Get(base + "/api/state")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("after logout: %s, want 401", resp.Status)
	}
}

func TestConsoleRefusesRemote(t *testing.T) {
	l := newTestLab(t)
	c, err := console.New(console.Options{Inventory: l.inv, Topology: &l.topo})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	h := c.Handler()
	for _, tt := range []struct{ remote, host string }{
		{"192.0.2.7:5555", "127.0.0.1:8080"},      // another host
		{"127.0.0.1:5555", "attacker.example:80"}, // a rebound name
	} {
		req := httptest.NewRequest(http.MethodGet, "/static/console.css", nil)
		req.RemoteAddr, req.Host = tt.remote, tt.host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusForbidden {
			t.Errorf("from %s to %s: %d, want 403", tt.remote, tt.host, rec.Code)
		}
	}
}

func TestConsoleLiveState(t *testing.T) {
	l := newTestLab(t)
	c, base := startConsole(t, l)
	hc := loggedIn(t, c)
	state := func() stateMsg { return mapState(t, hc, base) }
	linkOf := func(m stateMsg, s string) string {
		for id, lv := range m.Links {
			if lv["s"] == s {
				return id
			}
		}
		return ""
	}
	eventually(t, 10*time.Second, "every router up", func() bool {
		m := state()
		return m.Nodes["r1"]["s"] == "up" && m.Nodes["r2"]["s"] == "up" && m.Nodes["r3"]["s"] == "up" && linkOf(m, "unknown") == ""
	})
	if m := state(); m.Nodes["h1"]["s"] != "unmanaged" || len(m.Links) != len(l.topo.Links) {
		t.Fatalf("state = %+v", m)
	}
	// The stream's first event is the whole state.
	resp, err := hc.Get(base + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("events Content-Type %q", ct)
	}
	buf := make([]byte, 4096)
	n, _ := io.ReadAtLeast(resp.Body, buf, 64)
	if !strings.Contains(string(buf[:n]), "event: state") {
		t.Fatalf("first event: %q", buf[:n])
	}

	f, err := topology.ParseFault("link_down r1:GigabitEthernet0/0/0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.lab.Inject(f); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	eventually(t, 2*time.Second, "link r1-r2 down", func() bool {
		m := state()
		id := linkOf(m, "down")
		return id != "" && strings.Contains(m.Links[id]["n"], "r1:GigabitEthernet0/0/0")
	})
	t.Logf("fault to red link in the state: %v", time.Since(start))
}

func between(s, from, to string) string {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, to)
	return v
}

// TestConsoleRefresh: with polling too slow to matter, a device named to
// Refresh (as its change stream reports a change) is read at once, and the
// map shows the change.
func TestConsoleRefresh(t *testing.T) {
	l := newTestLab(t)
	c, err := console.New(console.Options{Inventory: l.inv, Topology: &l.topo, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	srv := httptest.NewServer(c.Handler())
	t.Cleanup(srv.Close)
	hc := loginWith(t, strings.Replace(c.LoginURL(), "/login", srv.URL+"/login", 1))
	// Only r1 is read again: its end shows shut (link_down shuts the
	// target end), whatever r2's end showed at the last round.
	linkDown := func() bool {
		return linkShows(mapState(t, hc, srv.URL), "r1:GigabitEthernet0/0/0", "admin-down")
	}
	eventually(t, 10*time.Second, "r1 read once", func() bool { return mapState(t, hc, srv.URL).Nodes["r1"]["s"] == "up" })
	f, err := topology.ParseFault("link_down r1:GigabitEthernet0/0/0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.lab.Inject(f); err != nil {
		t.Fatal(err)
	}
	if linkDown() {
		t.Fatal("the link shows down before any read: the test proves nothing")
	}
	c.Refresh("r1", "no-such-device")
	eventually(t, 5*time.Second, "link r1-r2 shut at r1 after Refresh", linkDown)
}
