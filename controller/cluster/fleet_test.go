package cluster

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/lab/labtest"
	"github.com/netmcp/netmcp/netproto"
)

// fleetNode is a replica driving a real client.Fleet.
type fleetNode struct {
	*Replica
	fleet *client.Fleet
}

// joinFleet starts a replica whose sessions are a fleet over l.
func joinFleet(t testing.TB, url, name string, l *labtest.Lab) *fleetNode {
	t.Helper()
	s := &FleetSessions{}
	f, err := client.New(l.Inventory(), client.Options{Remote: s.Remote})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	s.Fleet = f
	var inv []string
	for _, d := range f.Devices() {
		_ = f.Release(d.Name())
		inv = append(inv, d.Name())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := Join(ctx, Config{Name: name, Conn: connect(t, url), LeaseTTL: testTTL, PolicyDigest: "sha256:test", Sessions: s}, inv)
	if err != nil {
		t.Fatal(err)
	}
	s.Bind(r)
	t.Cleanup(r.Halt)
	return &fleetNode{Replica: r, fleet: f}
}

// TestFleetSessions: two replicas over a simulated lab hold MCP sessions
// only to the devices they own; a device owned by the other answers
// through the replica's fleet as if it were local (its tool errors too),
// and ReadStatus lists both replicas with every lease once.
func TestFleetSessions(t *testing.T) {
	url := startNATS(t, 1)[0]
	l := labtest.New(t, labtest.Options{})
	a, b := joinFleet(t, url, "a", l), joinFleet(t, url, "b", l)
	var inv []string
	for _, d := range a.fleet.Devices() {
		inv = append(inv, d.Name())
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		dup, missing := 0, 0
		for _, d := range inv {
			n := 0
			for _, r := range []*fleetNode{a, b} {
				if st, _ := r.fleet.Device(d).State(); st == client.StateConnected {
					n++
				}
			}
			switch {
			case n == 0:
				missing++
			case n > 1:
				dup++
			}
		}
		if dup == 0 && missing == 0 && len(a.Owned())+len(b.Owned()) == len(inv) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sessions: %d devices held twice, %d by none (a owns %v, b owns %v)", dup, missing, a.Owned(), b.Owned())
		}
		time.Sleep(20 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Every device through the replica that does not own it (hashing
	// may give one replica every device of a small lab).
	for _, name := range inv {
		via := a
		if a.Serves(name) {
			via = b
		}
		d := via.fleet.Device(name)
		if st, _ := d.State(); st != client.StateReleased {
			t.Fatalf("%s, owned by the other replica, is %s on %s", name, st, via.Instance())
		}
		res, err := d.CallTool(ctx, netproto.ToolYangGet, map[string]any{"path": "/openconfig-system:system/config/hostname"})
		if err != nil {
			t.Fatalf("%s through %s: %v", name, via.Instance(), err)
		}
		out, _ := json.Marshal(res.StructuredContent)
		if !strings.Contains(string(out), name) {
			t.Fatalf("%s through %s answered %s", name, via.Instance(), out)
		}
		_, err = d.CallTool(ctx, netproto.ToolYangGet, map[string]any{"path": "/no-such-module:x"})
		if err == nil {
			t.Fatalf("%s through %s: a bad path succeeded", name, via.Instance())
		}
	}
	st, err := ReadStatus(ctx, connect(t, url), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Replicas) != 2 || st.Devices != len(inv) || st.PolicyDigest != "sha256:test" {
		t.Fatalf("status: %d replicas, %d devices, digest %q; want 2, %d, sha256:test", len(st.Replicas), st.Devices, st.PolicyDigest, len(inv))
	}
	for _, r := range st.Replicas {
		var want *fleetNode
		for _, n := range []*fleetNode{a, b} {
			if n.Instance() == r.Instance {
				want = n
			}
		}
		if want == nil || !r.Present || len(r.Leases) != len(want.Owned()) {
			t.Fatalf("status of %s: %+v", r.Instance, r)
		}
		for _, l := range r.Leases {
			if !want.Serves(l.Device) || l.Age > testTTL {
				t.Fatalf("status of %s: lease %+v", r.Instance, l)
			}
		}
	}
}
