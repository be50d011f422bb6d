package netconf

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/gnmi"
	"github.com/netmcp/netmcp/device/gnmi/gnmiserver"
	"github.com/netmcp/netmcp/device/gnmi/gnmitest"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
)

// pollEvery is the period of the pollers the change streams are compared
// with.
const pollEvery = 100 * time.Millisecond

// ocInterfaces is the tree both drivers read: netconfd's ietf-interfaces
// through the netconf driver's OpenConfig view, and the simulator's own.
const ocInterfaces = "/openconfig-interfaces:interfaces"

// staticDriver serves one fixed tree at one path: the tree netconfd gave,
// so that gNMI carries exactly what NETCONF carried.
type staticDriver struct {
	path string
	tree any
}

func (s *staticDriver) Info() device.Info {
	return device.Info{Name: "static", YangModules: []string{"openconfig-interfaces"},
		Datastores: []device.Datastore{device.Running, device.Operational}}
}

func (s *staticDriver) Get(_ context.Context, _ device.Datastore, path string) (any, error) {
	if path == "/" {
		return map[string]any{s.path[1:]: s.tree}, nil
	}
	if path != s.path {
		return nil, device.ErrNotFound
	}
	return s.tree, nil
}

func (s *staticDriver) Exec(context.Context, string) (string, error) {
	return "", fmt.Errorf("no CLI")
}

func (s *staticDriver) Close() error { return nil }

// countLeaves counts the scalar leaves of an RFC 7951 tree.
func countLeaves(v any) int {
	switch x := v.(type) {
	case map[string]any:
		n := 0
		for _, c := range x {
			n += countLeaves(c)
		}
		return n
	case []any:
		n := 0
		for _, c := range x {
			n += countLeaves(c)
		}
		return n
	}
	return 1
}

// openDriver opens a device URL, closed with the benchmark.
func openDriver(b *testing.B, u string) device.Driver {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := device.Open(ctx, u, device.Options{})
	if err != nil {
		b.Fatalf("open %s: %v", u, err)
	}
	b.Cleanup(func() { d.Close() })
	return d
}

// poller reads a leaf every interval and tells each new value on seen.
func poller(ctx context.Context, d device.Driver, ds device.Datastore, path string, interval time.Duration, seen chan<- any) {
	var last any
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if v, err := d.Get(ctx, ds, path); err == nil && v != last {
			last = v
			select {
			case seen <- v:
			case <-ctx.Done():
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// waitFor waits for want on seen.
func waitFor(b *testing.B, seen <-chan any, want any) {
	b.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case v := <-seen:
			if v == want {
				return
			}
		case <-deadline:
			b.Fatalf("%v not seen within 30 s", want)
		}
	}
}

// BenchmarkNETCONFvsGNMI compares, on loopback, the netconf:// driver
// against netconfd behind OpenSSH with the gnmi:// driver against
// netmcp's gNMI server (mutual TLS):
//
//   - Get: the operational /openconfig-interfaces:interfaces tree, from
//     netconfd; the very same tree served over gNMI; and the simulator's
//     router r1 over gNMI (a full router's tree). Metric leaves: its size.
//   - Commit: an interface description edited in the candidate and
//     committed (netconfd's candidate and commit; a gNMI Set to r1).
//   - Event: from a change on the device to a reader seeing it, in
//     ms/event: r1's link going down or up seen by an ON_CHANGE
//     subscription, or by a Get every 100 ms over gNMI; a description
//     committed on netconfd by another session seen by a Get every 100 ms
//     over NETCONF (the netconf driver has no change stream).
func BenchmarkNETCONFvsGNMI(b *testing.B) {
	l := startLab(b)
	nc := l.open(b)
	ctx := context.Background()
	tree, err := nc.Get(ctx, device.Operational, ocInterfaces)
	if err != nil {
		b.Fatal(err)
	}
	static := gnmitest.Start(b, &staticDriver{path: ocInterfaces, tree: tree}, gnmiserver.Options{})
	gStatic := openDriver(b, static.URL("commit-confirmed", "snapshot"))

	simLab, err := sim.NewLab(sim.DefaultTopology(), sim.LabOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { simLab.Close() })
	r1, err := simLab.Device("r1")
	if err != nil {
		b.Fatal(err)
	}
	gSim := openDriver(b, gnmitest.Start(b, r1, gnmiserver.Options{}).URL())

	for _, bc := range []struct {
		name string
		drv  device.Driver
	}{{"Get/netconf", nc}, {"Get/gnmi-same-tree", gStatic}, {"Get/gnmi-sim-r1", gSim}} {
		b.Run(bc.name, func(b *testing.B) {
			v, err := bc.drv.Get(ctx, device.Operational, ocInterfaces)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.drv.Get(ctx, device.Operational, ocInterfaces); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(countLeaves(v)), "leaves")
		})
	}

	owner := device.Owner{Session: "bench", User: "bench"}
	for _, bc := range []struct {
		name, path string
		drv        device.Driver
	}{
		{"Commit/netconf", descPath, nc},
		{"Commit/gnmi-sim-r1", "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0']/config/description", gSim},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c := bc.drv.(device.Configurer)
			i := 0
			for b.Loop() {
				i++
				if err := c.Edit(ctx, owner, []device.Edit{{Operation: device.OpMerge, Path: bc.path, Value: fmt.Sprintf("bench %d", i)}}); err != nil {
					b.Fatal(err)
				}
				if _, err := c.Commit(ctx, owner, device.CommitOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}

	const oper = "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0']/state/oper-status"
	link := topology.Fault{Name: "link_down", Target: "r1:GigabitEthernet0/0/0"}
	injected := "" // the id of the link_down in place, if any
	toggle := func(b *testing.B) (want any, at time.Time) {
		b.Helper()
		at = time.Now()
		if injected == "" {
			f, err := simLab.Inject(link)
			if err != nil {
				b.Fatal(err)
			}
			injected = f.ID
			return "DOWN", at
		}
		if _, err := simLab.ClearFault(injected); err != nil {
			b.Fatal(err)
		}
		injected = ""
		return "UP", at
	}
	b.Run("Event/gnmi-on-change", func(b *testing.B) {
		wctx, cancel := context.WithCancel(ctx)
		defer cancel()
		seen := make(chan any, 16)
		synced := make(chan struct{})
		var once sync.Once
		go gSim.(*gnmi.Driver).Watch(wctx, gnmi.Subscription{Mode: gnmi.ModeOnChange, Paths: []string{oper}}, func(bt gnmi.Batch) {
			if bt.Sync {
				once.Do(func() { close(synced) })
			}
			for _, u := range bt.Updates {
				seen <- u.Value
			}
		})
		<-synced
		measureEvents(b, func(int) (any, time.Time) { return toggle(b) }, seen)
	})
	b.Run("Event/gnmi-poll-100ms", func(b *testing.B) {
		pctx, cancel := context.WithCancel(ctx)
		defer cancel()
		seen := make(chan any, 16)
		go poller(pctx, gSim, device.Operational, oper, pollEvery, seen)
		now := "UP"
		if injected != "" {
			now = "DOWN"
		}
		waitFor(b, seen, now)
		measureEvents(b, func(int) (any, time.Time) { return toggle(b) }, seen)
	})
	b.Run("Event/netconf-poll-100ms", func(b *testing.B) {
		other := l.open(b)
		pctx, cancel := context.WithCancel(ctx)
		defer cancel()
		seen := make(chan any, 16)
		b.StopTimer()
		commit := func(v string) {
			c := other
			if err := c.Edit(ctx, device.Owner{Session: "other"}, []device.Edit{{Operation: device.OpMerge, Path: descPath, Value: v}}); err != nil {
				b.Fatal(err)
			}
			if _, err := c.Commit(ctx, device.Owner{Session: "other"}, device.CommitOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		commit("event 0")
		go poller(pctx, nc, device.Running, descPath, pollEvery, seen)
		waitFor(b, seen, "event 0")
		measureEvents(b, func(i int) (any, time.Time) {
			v := fmt.Sprintf("event %d", i+1)
			commit(v)
			return v, time.Now() // committed: from now on a read shows it
		}, seen)
	})
}

// measureEvents makes b.N changes (change makes one and returns the
// value the reader must see and when the change was made) and reports
// the mean time from each change to the reader seeing it, in ms/event.
// Each change waits a random part of pollEvery first, so that it falls
// at any phase of a poller's period, not just after its last read.
func measureEvents(b *testing.B, change func(i int) (any, time.Time), seen <-chan any) {
	b.Helper()
	var total time.Duration
	b.ResetTimer()
	b.StopTimer()
	for i := 0; i < b.N; i++ {
		time.Sleep(rand.N(pollEvery))
		want, at := change(i)
		waitFor(b, seen, want)
		total += time.Since(at)
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/event")
}
