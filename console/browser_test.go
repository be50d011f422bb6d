package console_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/netmcp/netmcp/console"
	"github.com/netmcp/netmcp/lab/topology"
)

// chromium returns the path of Debian's chromium, or skips the test.
func chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium is not installed (scripts/install-deps.sh installs it): browser test skipped")
	return ""
}

// browser starts a headless Chromium with a fresh profile; console
// messages at error level and uncaught exceptions are collected.
func browser(t testing.TB) (context.Context, *consoleErrors) {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1366, 800),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelB(); cancelA() })
	errs := &consoleErrors{}
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				errs.add(m.String())
			}
		}
	}()
	return ctx, errs
}

type consoleErrors struct {
	mu   sync.Mutex
	list []string
}

func (e *consoleErrors) add(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, s)
}

func (e *consoleErrors) get() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.list...)
}

func TestBrowserMap(t *testing.T) {
	ctx, errs := browser(t)
	l := newTestLab(t)
	c, base := startConsole(t, l)
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()

	// Log in with the one-time link, as a user pasting it would.
	if err := chromedp.Do(ctx, chromedp.Navigate(c.LoginURL()), chromedp.WaitVisible(chromedp.CSS(`svg.map`))); err != nil {
		t.Fatal(err)
	}
	nodes, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('.node')).map(n => n.dataset.node)`))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range l.topo.Devices {
		if !contains(nodes, d.Name) {
			t.Errorf("device %s not on the map (nodes %v)", d.Name, nodes)
		}
	}
	// Every link of the lab turns green once the devices are read.
	waitJS(t, ctx, 10*time.Second, "every link up",
		fmt.Sprintf(`document.querySelectorAll('.link.s-up').length === %d`, len(l.topo.Links)))
	if e := errs.get(); len(e) > 0 {
		t.Errorf("console errors on the map: %v", e)
	}
	probed := len(errs.get())
	// The CSP is in force: an inline script does not run.
	inline, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		const s = document.createElement('script'); s.textContent = 'window.inlineRan = true';
		document.body.append(s); return window.inlineRan === true })()`))
	if err != nil {
		t.Fatal(err)
	}
	if inline {
		t.Error("an inline script ran despite the CSP")
	}
	// A POST without the CSRF token is refused, even from the page itself.
	code, err := chromedp.Run(ctx, chromedp.Evaluate[int](`fetch('/logout', {method: 'POST'}).then(r => r.status)`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if code != 403 {
		t.Errorf("POST /logout without CSRF token from the page: %d, want 403", code)
	}

	// A fault in the lab turns the right link red, without a reload.
	f, err := topology.ParseFault("link_down r2:GigabitEthernet0/0/0/1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.lab.Inject(f); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	red := `[...document.querySelectorAll('.link.s-down')].map(g => g.dataset.a + '|' + g.dataset.b)`
	waitJS(t, ctx, 2*time.Second, "link r2-r3 red", red+`.some(s => s.includes('r2:GigabitEthernet0/0/0/1'))`)
	t.Logf("fault injected to red link on screen: %v", time.Since(start))
	downs, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](red))
	if err != nil {
		t.Fatal(err)
	}
	if len(downs) != 1 {
		t.Errorf("red links %v, want only r2-r3", downs)
	}
	time.Sleep(300 * time.Millisecond) // let the colour transition end
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(t.TempDir(), "map.png")
	if dir := os.Getenv("NETMCP_ARTIFACTS"); dir != "" {
		shot = filepath.Join(dir, "console-map.png")
	}
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("map screenshot: %s", shot)

	// A device's page lists its interfaces.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/device/r2"), chromedp.WaitVisible(chromedp.CSS(`main.device`))); err != nil {
		t.Fatal(err)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`main.device`)))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"GigabitEthernet0/0/0/1", "Interfaces", "LLDP neighbours", "Syslog"} {
		if !strings.Contains(text, want) {
			t.Errorf("device page lacks %q", want)
		}
	}
	// The probes above logged their refusals (an inline script, a 403);
	// nothing after them may log an error.
	if e := errs.get(); len(e) > probed+2 {
		t.Errorf("console errors after the probes: %v", e[probed+2:])
	}
}

// waitJS polls a JavaScript expression until it is true.
func waitJS(t testing.TB, ctx context.Context, within time.Duration, what, expr string) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		if err != nil && time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		if ok {
			return
		}
		// An error is a page between two navigations: try again.
		if time.Now().After(deadline) {
			where, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname + ': ' + document.body.innerText.slice(0, 600)`))
			t.Fatalf("%s: not within %v (at %s)", what, within, where)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// artifact writes a screenshot of the page as a test artifact
// ($NETMCP_ARTIFACTS/console-NAME.png, else in the test's directory).
func artifact(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	waitJS(t, ctx, 5*time.Second, name+" loaded", `document.readyState === 'complete' && document.documentElement.clientWidth > 0`)
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	for deadline := time.Now().Add(2 * time.Second); err != nil && time.Now().Before(deadline); {
		// A page just loaded may not be laid out yet.
		time.Sleep(50 * time.Millisecond)
		png, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
	}
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(t.TempDir(), name+".png")
	if dir := os.Getenv("NETMCP_ARTIFACTS"); dir != "" {
		shot = filepath.Join(dir, "console-"+name+".png")
	}
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s screenshot: %s", name, shot)
}

// TestBrowserAsk drives the ask box in Chromium on a lab with an ACL
// that drops ICMP on r3: the cause shows with its evidence, r3 is
// highlighted on the map and no other device is, "apply" queues an
// approval, approving it commits the fix, which verifies and is kept.
func TestBrowserAsk(t *testing.T) {
	ctx, errs := browser(t)
	a := newAskLab(t, "icmp_acl_block r3:GigabitEthernet0/0/0")
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(a.c.LoginURL()), chromedp.WaitVisible(chromedp.CSS(`svg.map`))); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(`#intent`), "verify reachability between r1 and h3")); err != nil {
		t.Fatal(err)
	}
	artifact(t, ctx, "ask")
	start := time.Now()
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`form.ask button`))); err != nil {
		t.Fatal(err)
	}
	// The run's page follows the run and opens the report when it ends.
	waitJS(t, ctx, time.Minute, "the report opens", `location.pathname.startsWith('/report/') && !!document.getElementById('diagnosis')`)
	t.Logf("ask to diagnosis on screen: %v", time.Since(start))
	diag, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#diagnosis`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(diag, "NIKA-ICMP-BLOCK") {
		t.Errorf("diagnosis %q does not name the ACL", diag)
	}
	faulty, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('.node.fault')].map(n => n.dataset.node)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(faulty) != 1 || faulty[0] != "r3" {
		t.Errorf("highlighted devices %v, want [r3]", faulty)
	}
	links, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('.link.fault')].map(g => g.dataset.a + '|' + g.dataset.b)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(links) != 1 || !strings.Contains(links[0], "r3:GigabitEthernet0/0/0|") && !strings.HasSuffix(links[0], "|r3:GigabitEthernet0/0/0") {
		t.Errorf("highlighted links %v, want the one on r3:GigabitEthernet0/0/0", links)
	}
	// The live map still runs on the report's page.
	waitJS(t, ctx, 10*time.Second, "live state on the report's map", `document.querySelectorAll('.link.s-up').length > 0`)
	artifact(t, ctx, "diagnosis")

	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#apply`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 10*time.Second, "the approvals queue", `location.pathname === '/approvals' && !!document.querySelector('button.approve')`)
	artifact(t, ctx, "approvals")
	start = time.Now()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`button.approve`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, time.Minute, "the fix applied", `location.pathname.startsWith('/report/') && !!document.getElementById('remediation')`)
	t.Logf("approve to verified fix on screen: %v", time.Since(start))
	rem, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#remediation`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rem, "verified") || !strings.Contains(rem, "confirmed") {
		t.Errorf("remediation %q: not verified and confirmed", rem)
	}
	if e := errs.get(); len(e) > 0 {
		t.Errorf("console errors: %v", e)
	}
}

// axeScript returns axe-core's script, which scripts/install-deps.sh
// installs into .tools/mcp ($NETMCP_AXE_CORE names another copy); it
// skips the test when it is absent, and fails it under CI.
func axeScript(t testing.TB) string {
	t.Helper()
	path := os.Getenv("NETMCP_AXE_CORE")
	if path == "" {
		root, err := filepath.Abs("..")
		if err != nil {
			t.Fatal(err)
		}
		path = filepath.Join(root, ".tools", "mcp", "node_modules", "axe-core", "axe.min.js")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		msg := "axe-core is not installed (" + path + "); run scripts/install-deps.sh"
		if v := strings.ToLower(os.Getenv("CI")); v != "" && v != "false" && v != "0" {
			t.Fatal(msg + " (CI is set: this check must run)")
		}
		t.Skip(msg)
	}
	return string(b)
}

// TestBrowserAccessibility runs axe-core inside each of the console's
// pages (the map, a report with its fix, the approvals queue with a fix
// waiting, the reports, the audit search, a device) and fails on any
// serious or critical violation.
func TestBrowserAccessibility(t *testing.T) {
	axe := axeScript(t)
	ctx, _ := browser(t)
	a := newAskLab(t, "icmp_acl_block r3:GigabitEthernet0/0/0")
	op := a.login(t, a.c.LoginURL())
	_, run := op.post("/ask", url.Values{"intent": {"verify reachability between r1 and h3"}}, true)
	id := op.waitRun(run, time.Minute)
	op.post("/report/"+id+"/apply", nil, true)

	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	login, err := a.c.AddLogin("alice", console.RoleOperator)
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(login), chromedp.WaitVisible(chromedp.CSS(`svg.map`))); err != nil {
		t.Fatal(err)
	}
	check := `axe.run(document, {resultTypes: ['violations']}).then(r => r.violations
		.filter(v => v.impact === 'serious' || v.impact === 'critical')
		.map(v => v.impact + ' ' + v.id + ': ' + v.help + ' at ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')))`
	for _, p := range []string{"/", "/report/" + id, "/approvals", "/reports", "/audit", "/device/r3"} {
		if err := chromedp.Do(ctx, chromedp.Navigate(a.base+p), chromedp.WaitVisible(chromedp.CSS(`body`))); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](axe+"\n;true")); err != nil {
			t.Fatalf("%s: load axe-core: %v", p, err)
		}
		found, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](check, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%s: axe-core: %v", p, err)
		}
		for _, v := range found {
			t.Errorf("%s: %s", p, v)
		}
	}
}
