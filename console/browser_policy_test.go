package console_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/security"
	"github.com/chromedp/chromedp"
)

// TestBrowserPolicyViewer: over HTTPS with the policy's identities, a
// Chromium sending a viewer's bearer token (jwt:victor) is shown a
// device's waiting question without an approve button, and its forged
// approval POST (fetch from the page) gets 403; the same browser with an
// operator's token (jwt:bob) is shown the button and approves, and the
// host's change goes on to its commit.
func TestBrowserPolicyViewer(t *testing.T) {
	ctx, errs := browser(t)
	g := newGateLab(t, true, false)
	done := g.applyAsHost("jwt:carol", "r1", "browser viewer")
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	// The lab's CA is not the browser's: the test trusts the console's
	// certificate, which TestPolicyLogins checks against the CA.
	if _, err := chromedp.Call(ctx, security.SetIgnoreCertificateErrors, security.SetIgnoreCertificateErrorsParams{Ignore: true}); err != nil {
		t.Fatal(err)
	}
	as := func(subject string) {
		t.Helper()
		if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
			t.Fatal(err)
		}
		h := network.Headers{"Authorization": "Bearer " + g.token(t, subject)}
		if _, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: h}); err != nil {
			t.Fatal(err)
		}
		openUntil(t, ctx, g.base+"/approvals", "the question in the queue", `!!document.querySelector('section.gate')`)
	}
	as("victor")
	who, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`.who`)))
	if err != nil {
		t.Fatal(err)
	}
	if who != "jwt:victor (viewer)" {
		t.Errorf("the header names %q, want jwt:victor (viewer)", who)
	}
	buttons, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('section.gate button').length`))
	if err != nil {
		t.Fatal(err)
	}
	if buttons != 0 {
		t.Errorf("the viewer is shown %d buttons on the device's question", buttons)
	}
	forged, err := chromedp.Run(ctx, chromedp.Evaluate[int](`fetch(location.origin + '/gates/' + document.querySelector('section.gate').id.slice(5) + '/approve',
		{method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'}, body: 'csrf='}).then(r => r.status)`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if forged != 403 {
		t.Errorf("the viewer's forged approval: %d, want 403", forged)
	}
	artifact(t, ctx, "policy-viewer")

	as("bob")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`section.gate button.approve`))); err != nil {
		t.Fatal(err)
	}
	// The approval's POST is done before the page is loaded again.
	waitJS(t, ctx, 30*time.Second, "the edit approved",
		`location.pathname === '/approvals' && ![...document.querySelectorAll('section.gate h3')].some(h => h.textContent.startsWith('network.yang.edit on r1'))`)
	openUntil(t, ctx, g.base+"/approvals", "the commit's question",
		`[...document.querySelectorAll('section.gate h3')].some(h => h.textContent.startsWith('network.commit on r1'))`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`section.gate button.decline`))); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "AccessDenied") {
			t.Errorf("the host's commit after bob declined it: %v, want refused (-32083)", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the host's change did not end")
	}
	for _, e := range errs.get() {
		if !strings.Contains(e, "status of 403") { // the forged POST's
			t.Errorf("console error: %v", e)
		}
	}
}
