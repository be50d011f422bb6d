package console_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/netmcp/netmcp/lab/topology"
)

// TestBrowserManyTabs opens the map in eight tabs of one browser, more
// than the six HTTP/1.1 connections Chromium opens to one host: every tab
// goes live (the tabs share one event stream), and a fault turns the link
// red in every one of them.
func TestBrowserManyTabs(t *testing.T) {
	bctx, _ := browser(t)
	l := newTestLab(t)
	c, base := startConsole(t, l)
	const tabs = 8
	ctx, cancel := context.WithTimeout(bctx, 3*time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(c.LoginURL()), chromedp.WaitVisible(chromedp.CSS(`svg.map`))); err != nil {
		t.Fatal(err)
	}
	live := `document.getElementById('status').textContent.startsWith('Live')`
	pages := []context.Context{ctx}
	for i := 1; i < tabs; i++ {
		tctx, tcancel := chromedp.NewContext(ctx)
		defer tcancel()
		// The tab is made on its own context (a tab lives as long as the
		// context its first action ran on), then each wait is bounded.
		if err := chromedp.Do(tctx); err != nil {
			t.Fatalf("tab %d: %v", i+1, err)
		}
		wctx, wcancel := context.WithTimeout(tctx, 30*time.Second)
		err := chromedp.Do(wctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`svg.map`)))
		wcancel()
		if err != nil {
			t.Fatalf("tab %d: the map did not load: %v", i+1, err)
		}
		pages = append(pages, tctx)
	}
	for i, p := range pages {
		waitJS(t, p, 20*time.Second, fmt.Sprintf("tab %d live", i+1), live)
	}
	f, err := topology.ParseFault("link_down r2:GigabitEthernet0/0/0/1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.lab.Inject(f); err != nil {
		t.Fatal(err)
	}
	red := `[...document.querySelectorAll('.link.s-down')].some(g => (g.dataset.a + '|' + g.dataset.b).includes('r2:GigabitEthernet0/0/0/1'))`
	for i, p := range pages {
		waitJS(t, p, 10*time.Second, fmt.Sprintf("tab %d: the link red", i+1), red)
	}
}
