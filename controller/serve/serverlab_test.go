package serve_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/labtest"
)

// auditMarks are the lengths of every router's audit log at one moment.
type auditMarks map[string]int

// marks are the lengths of the lab's routers' audit logs now.
func marks(l *labtest.Lab) auditMarks {
	m := auditMarks{}
	for _, name := range l.Routers() {
		m[name] = len(l.Audit(name))
	}
	return m
}

// since returns the device's audit records written after the marks.
func since(l *labtest.Lab, m auditMarks, name string) []audit.Record {
	return l.Audit(name)[m[name]:]
}

// quietFleet connects a fleet that sends nothing of its own accord (no
// keep-alive pings), so that every audit record of a run is the run's.
func quietFleet(t testing.TB, l *labtest.Lab) *client.Fleet {
	t.Helper()
	return quietFleetOf(t, l.Inventory())
}

// quietFleetOf is quietFleet of an inventory.
func quietFleetOf(t testing.TB, inv *inventory.Inventory) *client.Fleet {
	t.Helper()
	f, err := client.New(inv, client.Options{KeepAlive: -1, CallTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	return f
}

// cpuUpdates counts a device's notifications/resources/updated.
type cpuUpdates struct {
	mu sync.Mutex
	n  map[string]int
}

func (u *cpuUpdates) add(d *client.Device, p *mcp.ResourceUpdatedNotificationParams) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.n == nil {
		u.n = map[string]int{}
	}
	u.n[d.Name()+" "+p.URI]++
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(within); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, within)
		}
	}
}

// reconnectFleet connects a fleet with a quick supervisor: keep-alive
// every 200 ms, reconnection backoff from 50 to 300 ms.
func reconnectFleet(t testing.TB, l *labtest.Lab, ups *cpuUpdates) *client.Fleet {
	t.Helper()
	f, err := client.New(l.Inventory(), client.Options{
		KeepAlive: 200 * time.Millisecond, BackoffInitial: 50 * time.Millisecond, BackoffMax: 300 * time.Millisecond,
		CallTimeout: 10 * time.Second, ConnectTimeout: 5 * time.Second, OnResourceUpdated: ups.add,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	return f
}
