package console_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// axeSerious is the expression that runs axe-core (loaded in the page)
// and lists its serious and critical violations.
const axeSerious = `axe.run(document, {resultTypes: ['violations']}).then(r => r.violations
	.filter(v => v.impact === 'serious' || v.impact === 'critical')
	.map(v => v.impact + ' ' + v.id + ': ' + v.help + ' at ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')))`

// TestBrowserCommitCountdown: a host's change of r1 waits at r1's
// approval gate; an operator approves its edit and its confirmed commit
// in the console's approvals page, whose countdown of the commit's
// rollback window then goes down live (server-sent events, the page's
// own script: no inline script runs under its CSP); "Roll back now"
// rolls r1 back, and its running configuration is as before. axe-core
// finds no serious violation on the page with a question waiting, nor
// with the countdown.
func TestBrowserCommitCountdown(t *testing.T) {
	ctx, errs := browser(t)
	axe := axeScript(t)
	g := newGateLab(t, false, false)
	before := g.description(t, "r1")
	done := g.applyAsHost("jwt:bob", "r1", "browser countdown")
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(g.c.LoginURL()), chromedp.WaitVisible(chromedp.CSS(`svg.map`))); err != nil {
		t.Fatal(err)
	}
	checkAxe := func(what string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](axe+"\n;true")); err != nil {
			t.Fatalf("%s: load axe-core: %v", what, err)
		}
		found, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](axeSerious, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%s: axe-core: %v", what, err)
		}
		for _, v := range found {
			t.Errorf("%s: %s", what, v)
		}
	}
	for i, tool := range []string{"network.yang.edit", "network.commit"} {
		// The queue is a page: load it until the question is there.
		openUntil(t, ctx, g.base+"/approvals", tool+" in the queue",
			`[...document.querySelectorAll('section.gate h3')].some(h => h.textContent.startsWith('`+tool+` on r1'))`)
		if i == 0 {
			artifact(t, ctx, "device-question")
			checkAxe("a device question waiting")
		}
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`section.gate button.approve`))); err != nil {
			t.Fatal(err)
		}
		waitJS(t, ctx, 10*time.Second, tool+" approved", `location.pathname === '/approvals' && !document.querySelector('section.gate button.approve') || [...document.querySelectorAll('section.gate h3')].every(h => !h.textContent.startsWith('`+tool+`'))`)
	}
	approved := time.Now()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the host's change: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the host's change did not end")
	}
	// The countdown appears without a reload and goes down.
	waitJS(t, ctx, 30*time.Second, "the countdown", `!!document.querySelector('#commit-r1 .left') && !document.getElementById('commits').hidden`)
	t.Logf("commit approved to its countdown on screen: %v", time.Since(approved))
	first, err := chromedp.Run(ctx, chromedp.Evaluate[int](`Number(document.querySelector('#commit-r1 .left').dataset.left)`))
	if err != nil {
		t.Fatal(err)
	}
	if first <= 0 || first > 120 {
		t.Fatalf("seconds left %d, want within the 120 s window", first)
	}
	waitJS(t, ctx, 10*time.Second, "the countdown going down", `Number(document.querySelector('#commit-r1 .left').dataset.left) < `+strconv.Itoa(first))
	artifact(t, ctx, "commit-countdown")
	checkAxe("the countdown")
	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`#commit-r1 button.decline`)), chromedp.KeyEvent("\r")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 30*time.Second, "the commit rolled back", `location.pathname === '/approvals' && !document.getElementById('commit-r1') && !document.getElementById('commits-empty').hidden`)
	t.Logf("roll back now to the page without the commit: %v", time.Since(start))
	if d := g.description(t, "r1"); d != before {
		t.Errorf("r1's description after the roll back: %s, want %s", d, before)
	}
	if strings.Contains(g.description(t, "r1"), "browser countdown") {
		t.Error("r1 still runs the rolled-back change")
	}
	if e := errs.get(); len(e) > 0 {
		t.Errorf("console errors: %v", e)
	}
}

// openUntil loads url again and again until expr holds on the page.
func openUntil(t testing.TB, ctx context.Context, url, what, expr string) {
	t.Helper()
	eventually(t, time.Minute, what, func() bool {
		if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
			return false // a load cut short (net::ERR_ABORTED): again
		}
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		return err == nil && ok
	})
}
