package console_test

import (
	"context"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/netmcp/netmcp/console"
	"github.com/netmcp/netmcp/lab/topology"
)

// benchConsole serves a console of the test lab with the product's
// polling interval (Options' default), as `netmcp lab up` does.
func benchConsole(b *testing.B, l *testLab) (*console.Console, string) {
	b.Helper()
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	c, err := console.New(console.Options{Inventory: l.inv, Topology: &l.topo, BaseURL: base})
	if err != nil {
		b.Fatal(err)
	}
	srv.Config.Handler = c.Handler()
	srv.Start()
	b.Cleanup(func() {
		c.Close() // ends the event streams first, which srv.Close waits for
		srv.Close()
	})
	return c, base
}

// BenchmarkFaultToRed measures, in headless Chromium, the time from a
// fault injected in the lab (what `netmcp lab fault add` asks the lab's
// control endpoint to do) to the link drawn red on the open map, with the
// console polling at its default interval (500 ms). The fault is cleared
// and the link seen green again between rounds, off the clock.
func BenchmarkFaultToRed(b *testing.B) {
	ctx, _ := browser(b)
	l := newTestLab(b)
	c, _ := benchConsole(b, l)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(c.LoginURL()), chromedp.WaitVisible(chromedp.CSS(`svg.map`))); err != nil {
		b.Fatal(err)
	}
	const end = "r2:GigabitEthernet0/0/0/1"
	red := `[...document.querySelectorAll('.link.s-down')].some(g => g.dataset.a === '` + end + `' || g.dataset.b === '` + end + `')`
	green := `[...document.querySelectorAll('.link.s-up')].some(g => g.dataset.a === '` + end + `' || g.dataset.b === '` + end + `')`
	waitJS(b, ctx, 30*time.Second, "the link green", green)
	f, err := topology.ParseFault("link_down " + end)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		af, err := l.lab.Inject(f)
		if err != nil {
			b.Fatal(err)
		}
		waitJS(b, ctx, 10*time.Second, "the link red", red)
		b.StopTimer()
		if _, err := l.lab.ClearFault(af.ID); err != nil {
			b.Fatal(err)
		}
		waitJS(b, ctx, 30*time.Second, "the link green again", green)
		b.StartTimer()
	}
}

// BenchmarkTenPages measures the console server's memory with ten maps
// open: pages=10 opens each in a browser context of its own with its own
// login, as ten users would have (ten server-sent event streams);
// tabs=10 opens them as ten tabs of one profile, which share one stream
// through the page's shared worker. Reported: the Go heap in use after a
// collection and the process's resident set (the lab's devices run in the
// same process: compare with pages=0). Every wait, and every tab's close,
// is bounded: a tab that does not load fails the benchmark rather than
// hanging it.
func BenchmarkTenPages(b *testing.B) {
	for _, tc := range []struct {
		name       string
		pages      int
		oneProfile bool
	}{{"pages=0", 0, false}, {"pages=10", 10, false}, {"tabs=10", 10, true}} {
		b.Run(tc.name, func(b *testing.B) {
			bctx, _ := browser(b)
			l := newTestLab(b)
			c, base := benchConsole(b, l)
			var heap, rss float64
			for b.Loop() {
				tabs := make([]context.CancelFunc, 0, tc.pages)
				for i := range tc.pages {
					opts := []chromedp.ContextOption{chromedp.WithNewBrowserContext()}
					target := ""
					switch {
					case !tc.oneProfile || i == 0:
						login, err := c.AddLogin("user"+strconv.Itoa(i), console.RoleViewer)
						if err != nil {
							b.Fatal(err)
						}
						target = login
					default:
						target = base + "/"
					}
					if tc.oneProfile {
						opts = nil
					}
					tctx, tcancel := chromedp.NewContext(bctx, opts...)
					tabs = append(tabs, tcancel)
					// The tab is made on its own context (a tab lives as
					// long as the context its first action ran on).
					if err := chromedp.Do(tctx); err != nil {
						b.Fatal(err)
					}
					wctx, wcancel := context.WithTimeout(tctx, 30*time.Second)
					err := chromedp.Do(wctx, chromedp.Navigate(target), chromedp.WaitVisible(chromedp.CSS(`svg.map`)))
					if err == nil {
						// Live: its event stream is open and has the state.
						waitJS(b, wctx, 20*time.Second, "page "+strconv.Itoa(i)+" live", `document.getElementById('status').textContent.startsWith('Live')`)
					}
					wcancel()
					if err != nil {
						b.Fatalf("page %d: %v", i, err)
					}
				}
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				heap += float64(ms.HeapInuse) / (1 << 20)
				rss += residentMB(b)
				for _, tcancel := range tabs {
					done := make(chan struct{})
					go func() { tcancel(); close(done) }()
					select {
					case <-done:
					case <-time.After(30 * time.Second):
						b.Fatal("a browser tab did not close within 30 s")
					}
				}
			}
			b.ReportMetric(heap/float64(b.N), "heap-MB")
			b.ReportMetric(rss/float64(b.N), "rss-MB")
		})
	}
}

// residentMB is the process's resident set size, in MiB.
func residentMB(b *testing.B) float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skipf("no /proc/self/status: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb / 1024
		}
	}
	b.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// BenchmarkMapPage measures the server's side of the map's first render:
// the page of a 32x32 grid (about 1 MB of SVG) made for a logged-in
// request, without the network and the browser.
func BenchmarkMapPage(b *testing.B) {
	topo := gridTopology(32, 32)
	c, err := console.New(console.Options{Topology: &topo, BaseURL: "http://127.0.0.1"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	h := c.Handler()
	req := httptest.NewRequest("GET", c.LoginURL(), nil)
	req.RemoteAddr = "127.0.0.1:1"
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	cookie, _, _ := strings.Cut(w.Header().Get("Set-Cookie"), ";")
	for b.Loop() {
		req := httptest.NewRequest("GET", "http://127.0.0.1/", nil)
		req.RemoteAddr = "127.0.0.1:1"
		req.Header.Set("Cookie", cookie)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 || !strings.Contains(w.Body.String(), `id="node-r31-31"`) {
			b.Fatalf("GET /: %d, %d bytes, not the whole map", w.Code, w.Body.Len())
		}
	}
}
