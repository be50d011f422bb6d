package serve_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/controller/serve"
	_ "github.com/netmcp/netmcp/device/gnmi" // gnmi:// for the devices' change streams
	"github.com/netmcp/netmcp/device/gnmi/gnmiserver"
	"github.com/netmcp/netmcp/device/gnmi/gnmitest"
	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/lab/labtest"
	"github.com/netmcp/netmcp/lab/topology"
)

const (
	// operURI is r1's GigabitEthernet0/0/0 oper-status, the interface
	// of its link to r2, which carries its BGP session with r2.
	operURI = "mcp://r1/openconfig-interfaces:interfaces/interface=GigabitEthernet0%2F0%2F0/state/oper-status"
	// bgpURI is every BGP session's state of r1.
	bgpURI = "mcp://r1/openconfig-network-instance:network-instances/network-instance/protocols/protocol/bgp/neighbors/neighbor/state/session-state"
)

// updates collects a host's notifications/resources/updated.
type updates struct {
	mu  sync.Mutex
	got []*mcp.ResourceUpdatedNotificationParams
}

func (u *updates) add(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
	u.mu.Lock()
	u.got = append(u.got, req.Params)
	u.mu.Unlock()
}

// reset forgets what arrived so far.
func (u *updates) reset() {
	u.mu.Lock()
	u.got = nil
	u.mu.Unlock()
}

// wait waits for a notification of uri from the change stream whose
// changed leaves include one ending in leaf.
func (u *updates) wait(t *testing.T, uri, leaf string) {
	t.Helper()
	u.waitFrom(t, uri, serve.SourceOnChange, leaf)
}

// waitFrom waits for a notification of uri from source, whose changed
// leaves include one ending in leaf (any, when leaf is empty).
func (u *updates) waitFrom(t *testing.T, uri, source, leaf string) {
	t.Helper()
	testwait.Until(t, 10*time.Second, "a notification of "+uri, func() (bool, string) {
		u.mu.Lock()
		defer u.mu.Unlock()
		for _, p := range u.got {
			if p.URI != uri {
				continue
			}
			if src, _ := p.Meta[serve.MetaSource].(string); src != source {
				return false, "a notification from " + src
			}
			changed, _ := p.Meta[serve.MetaChanged].([]any)
			if leaf == "" {
				return true, ""
			}
			if slices.ContainsFunc(changed, func(c any) bool { s, _ := c.(string); return strings.HasSuffix(s, leaf) }) {
				return true, ""
			}
		}
		return false, ""
	})
}

// startWatching serves the controller over the lab's fleet with polling
// off, so that every notification comes from a device's change stream,
// and connects a host that collects the notifications.
func startWatching(t *testing.T, l *labtest.Lab, gnmiURL map[string]string) (*mcp.ClientSession, *serve.Server, *updates) {
	t.Helper()
	return startWatchingPoll(t, l, gnmiURL, -1)
}

// startWatchingPoll is startWatching with polling every poll (negative:
// none).
func startWatchingPoll(t *testing.T, l *labtest.Lab, gnmiURL map[string]string, poll time.Duration) (*mcp.ClientSession, *serve.Server, *updates) {
	t.Helper()
	inv := l.Inventory()
	for i, d := range inv.Devices {
		if u, ok := gnmiURL[d.Name]; ok {
			inv.Devices[i].GNMI = u
		}
	}
	f := quietFleetOf(t, inv)
	srv := serve.New(&controller.Controller{Fleet: f}, controller.Store{}, "test")
	srv.SetWatch(serve.WatchOptions{PollInterval: poll})
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ups := &updates{}
	cs := inMemoryHost(t, ctx, srv, "host", &mcp.ClientOptions{ResourceUpdatedHandler: ups.add},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	return cs, srv, ups
}

// TestSubscriptionFedByChangeStream: with polling off, a host subscribed
// to r1's interface state and BGP sessions through the controller is told
// of a link_down in a lab served over gNMI (as `lab up --gnmi`) by the
// devices' ON_CHANGE stream: the link going down and the BGP session it
// carried dropping. A device without a gNMI URL cannot be subscribed to
// with polling off, and says why.
func TestSubscriptionFedByChangeStream(t *testing.T) {
	l := labtest.New(t, labtest.Options{GNMI: true})
	inv := l.Inventory()
	if !strings.HasPrefix(inv.Devices[0].GNMI, "gnmi://") {
		t.Fatalf("the lab's inventory gives r1 no gnmi:// URL: %+v", inv.Devices[0])
	}
	cs, _, ups := startWatching(t, l, map[string]string{"r3": ""})
	ctx := context.Background()
	for _, uri := range []string{operURI, bgpURI} {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
	}
	err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "mcp://r3/openconfig-interfaces:interfaces"})
	if err == nil || !strings.Contains(err.Error(), "no change stream") || !strings.Contains(err.Error(), "polling is off") {
		t.Errorf("subscribe to r3 without gNMI, polling off: %v; want an error saying it has no change stream and polling is off", err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: serve.ToolListDevices, Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	var out serve.ListDevicesOut
	remarshal(t, res.StructuredContent, &out)
	for _, d := range out.Devices {
		if want := map[string]string{"r1": serve.SourceOnChange}[d.Name]; d.Stream != want {
			t.Errorf("list_devices: %s stream %q, want %q", d.Name, d.Stream, want)
		}
	}

	if err := l.Sim().InjectFault(topology.Fault{Name: "link_down", Target: "r1:GigabitEthernet0/0/0"}); err != nil {
		t.Fatal(err)
	}
	ups.wait(t, operURI, "/oper-status")
	ups.wait(t, bgpURI, "/session-state")
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: operURI})
	if err != nil {
		t.Fatal(err)
	}
	if text := rr.Contents[0].Text; !strings.Contains(text, "DOWN") {
		t.Errorf("read %s after the notification: %s; want DOWN", operURI, text)
	}

	// Unsubscribed, the host hears no more of the interface.
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: operURI}); err != nil {
		t.Fatal(err)
	}
	ups.reset()
	if _, err := l.Sim().ClearFault("link_down r1:GigabitEthernet0/0/0"); err != nil {
		t.Fatal(err)
	}
	ups.wait(t, bgpURI, "/session-state") // the session comes back: the stream still runs
	ups.mu.Lock()
	defer ups.mu.Unlock()
	for _, p := range ups.got {
		if p.URI == operURI {
			t.Errorf("a notification of %s after unsubscribing: %+v", operURI, p)
		}
	}
}

// TestSubscriptionSurvivesGNMIRestart: the controller's change stream to
// a device whose gNMI server restarts reconnects by itself; the change
// made while the server was down reaches the host once it is back, and
// later changes as before.
func TestSubscriptionSurvivesGNMIRestart(t *testing.T) {
	l := labtest.New(t, labtest.Options{})
	drv, err := l.Sim().Device("r1")
	if err != nil {
		t.Fatal(err)
	}
	tg := gnmitest.Start(t, drv, gnmiserver.Options{})
	cs, _, ups := startWatching(t, l, map[string]string{"r1": tg.URL()})
	ctx := context.Background()
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: operURI}); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	fault := topology.Fault{Name: "link_down", Target: "r1:GigabitEthernet0/0/0"}
	if err := l.Sim().InjectFault(fault); err != nil {
		t.Fatal(err)
	}
	ups.wait(t, operURI, "/oper-status")

	tg.Stop()
	ups.reset()
	if _, err := l.Sim().ClearFault("link_down r1:GigabitEthernet0/0/0"); err != nil {
		t.Fatal(err)
	}
	tg.Restart(0)
	ups.wait(t, operURI, "/oper-status") // the link came back while the server was down

	ups.reset()
	if err := l.Sim().InjectFault(fault); err != nil {
		t.Fatal(err)
	}
	ups.wait(t, operURI, "/oper-status")
}

// TestSubscriptionPolledWithoutStream: a device without a gNMI URL is
// polled through its MCP server, and the change is notified as a poll's.
func TestSubscriptionPolledWithoutStream(t *testing.T) {
	l := labtest.New(t, labtest.Options{})
	cs, _, ups := startWatchingPoll(t, l, nil, 50*time.Millisecond)
	ctx := context.Background()
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: operURI}); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	if err := l.Sim().InjectFault(topology.Fault{Name: "link_down", Target: "r1:GigabitEthernet0/0/0"}); err != nil {
		t.Fatal(err)
	}
	ups.waitFrom(t, operURI, serve.SourcePoll, "")
}

// BenchmarkSubscriptionLatency measures the time from r1's link going
// down (or up again) in the lab to the host holding the notification of
// its oper-status through the controller, in ms/event: fed by the gNMI
// ON_CHANGE stream, and by polling every 100 ms (a change falls at a
// random phase of the period).
func BenchmarkSubscriptionLatency(b *testing.B) {
	for _, bc := range []struct {
		name string
		gnmi bool
		poll time.Duration
	}{{"on-change", true, -1}, {"poll-100ms", false, 100 * time.Millisecond}} {
		b.Run(bc.name, func(b *testing.B) {
			l := labtest.New(b, labtest.Options{GNMI: bc.gnmi})
			got := make(chan struct{}, 64)
			f := quietFleetOf(b, l.Inventory())
			srv := serve.New(&controller.Controller{Fleet: f}, controller.Store{}, "bench")
			srv.SetWatch(serve.WatchOptions{PollInterval: bc.poll})
			defer srv.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ct, st := mcp.NewInMemoryTransports()
			go srv.MCP().Run(ctx, st)
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "host"}, &mcp.ClientOptions{ResourceUpdatedHandler: func(context.Context, *mcp.ResourceUpdatedNotificationRequest) {
				got <- struct{}{}
			}}).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: operURI}); err != nil {
				b.Fatal(err)
			}
			id := ""
			var total time.Duration
			b.ResetTimer()
			b.StopTimer()
			for i := 0; i < b.N; i++ {
				time.Sleep(time.Duration(i%10) * 10 * time.Millisecond) // any phase of a poll
				for len(got) > 0 {
					<-got // a late duplicate is not this change's
				}
				start := time.Now()
				if id == "" {
					fa, err := l.Sim().Inject(topology.Fault{Name: "link_down", Target: "r1:GigabitEthernet0/0/0"})
					if err != nil {
						b.Fatal(err)
					}
					id = fa.ID
				} else {
					if _, err := l.Sim().ClearFault(id); err != nil {
						b.Fatal(err)
					}
					id = ""
				}
				select {
				case <-got:
				case <-time.After(30 * time.Second):
					b.Fatal("no notification within 30 s")
				}
				total += time.Since(start)
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/event")
		})
	}
}
