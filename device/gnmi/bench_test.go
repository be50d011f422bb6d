package gnmi_test

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/gnmi"
	"github.com/netmcp/netmcp/device/gnmi/gnmiserver"
)

// BenchmarkGetInterfaces reads the operational interfaces tree (what
// network.yang.get of /openconfig-interfaces:interfaces does) from the
// simulator's driver directly and through the gnmi:// driver, netmcp's
// gNMI server and mutual TLS on loopback.
func BenchmarkGetInterfaces(b *testing.B) {
	l := startLab(b, gnmiserver.Options{})
	const path = "/openconfig-interfaces:interfaces"
	for _, bc := range []struct {
		name string
		drv  device.Driver
	}{
		{"sim", l.r1},
		{"gnmi", openURL(b, l.URL())},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.drv.Get(ctx, device.Operational, path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSubscriptions1000 holds 1,000 ON_CHANGE subscriptions to the
// interfaces' oper-status on one connection, and measures per operation
// the time from a link going down (or up again) to all 1,000 having seen
// it; it reports the heap the subscriptions hold (client and server are
// in this process).
func BenchmarkSubscriptions1000(b *testing.B) {
	const n = 1000
	l := startLab(b, gnmiserver.Options{})
	d := openURL(b, l.URL())
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	var synced sync.WaitGroup
	seen := make(chan string, 4*n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		synced.Add(1)
		go func() {
			defer wg.Done()
			once := sync.Once{}
			d.Watch(ctx, gnmi.Subscription{Mode: gnmi.ModeOnChange, Paths: []string{operPath}}, func(bt gnmi.Batch) {
				if bt.Sync {
					once.Do(synced.Done)
				}
				for _, u := range bt.Updates {
					if s, ok := u.Value.(string); ok {
						seen <- s
					}
				}
			})
		}()
	}
	synced.Wait()
	for len(seen) > 0 {
		<-seen
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ResetTimer()
	var fault string
	for i := 0; b.Loop(); i++ {
		want := "DOWN"
		if fault == "" {
			f, err := l.lab.Inject(linkDown())
			if err != nil {
				b.Fatal(err)
			}
			fault = f.ID
		} else {
			if _, err := l.lab.ClearFault(fault); err != nil {
				b.Fatal(err)
			}
			fault, want = "", "UP"
		}
		for got := 0; got < n; {
			if <-seen == want {
				got++
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/(1<<20), "MB-heap")
	cancel()
	wg.Wait()
}
