package console_test

import (
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/netmcp/netmcp/console"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
)

// gridTopology is a w×h grid of routers, each linked to its right and
// lower neighbours.
func gridTopology(w, h int) topology.Topology {
	topo := topology.Topology{Name: fmt.Sprintf("grid-%dx%d", w, h)}
	name := func(x, y int) string { return fmt.Sprintf("r%d-%d", y, x) }
	for y := range h {
		for x := range w {
			topo.Devices = append(topo.Devices, topology.Device{Name: name(x, y), Kind: topology.KindRouter})
			if x+1 < w {
				topo.Links = append(topo.Links, topology.Link{A: name(x, y) + ":Eth1", B: name(x+1, y) + ":Eth3"})
			}
			if y+1 < h {
				topo.Links = append(topo.Links, topology.Link{A: name(x, y) + ":Eth2", B: name(x, y+1) + ":Eth4"})
			}
		}
	}
	return topo
}

// BenchmarkFirstRender measures, in headless Chromium, the time from
// opening the map's page to the map drawn with every device, for a
// console already running (its layout, done once when it starts, is
// BenchmarkLayout's).
func BenchmarkFirstRender(b *testing.B) {
	for _, tc := range []struct {
		name string
		topo topology.Topology
	}{
		{"devices=3", gridTopology(3, 1)},
		{"devices=5", sim.DefaultTopology()}, // the built-in lab: 3 routers and 2 hosts
		{"devices=200", gridTopology(20, 10)},
		{"devices=1024", gridTopology(32, 32)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ctx, _ := browser(b)
			want := len(tc.topo.Devices)
			srv := httptest.NewUnstartedServer(nil)
			c, err := console.New(console.Options{Topology: &tc.topo, BaseURL: "http://" + srv.Listener.Addr().String()})
			if err != nil {
				b.Fatal(err)
			}
			srv.Config.Handler = c.Handler()
			srv.Start()
			defer srv.Close()
			defer c.Close() // ends the event streams first, which srv.Close waits for
			if err := chromedp.Do(ctx, chromedp.Navigate(c.LoginURL())); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`svg.map`)))
				if err != nil {
					b.Fatal(err)
				}
				n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`new Promise(r => requestAnimationFrame(() => r(document.querySelectorAll('.node').length)))`, chromedp.EvalAwaitPromise))
				if err != nil {
					b.Fatal(err)
				}
				if n != want {
					b.Fatalf("%d nodes drawn, want %d", n, want)
				}
			}
		})
	}
}
