package client_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/labtest"
	"github.com/netmcp/netmcp/netproto"
)

// TestUpdate: a running fleet takes a new inventory: an added device
// answers, a removed one's session is closed and its calls fail with
// ErrRemoved, a changed one gets a session to its new entry, the others
// keep theirs; an invalid inventory changes nothing.
func TestUpdate(t *testing.T) {
	l := labtest.New(t, labtest.Options{})
	full := l.Inventory()
	if len(full.Devices) < 3 {
		t.Fatalf("lab inventory has %d devices, want 3", len(full.Devices))
	}
	first := &inventory.Inventory{Name: full.Name, Devices: full.Devices[:2]}
	f, err := client.New(first, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := f.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	a, b, c := full.Devices[0].Name, full.Devices[1].Name, full.Devices[2].Name
	args := map[string]any{"path": hostnamePath}
	call := func(name string) error {
		d := f.Device(name)
		if d == nil {
			return errors.New("not in the fleet")
		}
		_, err := d.CallTool(ctx, netproto.ToolYangGet, args)
		return err
	}

	// Invalid: a duplicate name. Nothing changes.
	bad := &inventory.Inventory{Devices: []inventory.Device{full.Devices[0], full.Devices[0], full.Devices[2]}}
	if _, err := f.Update(bad); err == nil {
		t.Fatal("an inventory with a duplicate device was taken")
	}
	if f.Device(c) != nil || len(f.Devices()) != 2 {
		t.Fatalf("a refused inventory changed the fleet: %d devices", len(f.Devices()))
	}

	// Add c, drop a, keep b.
	oldA := f.Device(a)
	ch, err := f.Update(&inventory.Inventory{Devices: []inventory.Device{full.Devices[1], full.Devices[2]}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ch.Added, []string{c}) || !slices.Equal(ch.Removed, []string{a}) || len(ch.Changed) != 0 {
		t.Fatalf("changes %+v, want %s added and %s removed", ch, c, a)
	}
	if err := call(c); err != nil {
		t.Fatalf("added %s: %v", c, err)
	}
	if err := call(b); err != nil {
		t.Fatalf("kept %s: %v", b, err)
	}
	if n := f.Device(b).Sessions(); n != 1 {
		t.Errorf("kept %s had %d sessions, want its first one", b, n)
	}
	if f.Device(a) != nil {
		t.Errorf("removed %s still in the fleet", a)
	}
	if _, err := oldA.CallTool(ctx, netproto.ToolYangGet, args); !errors.Is(err, client.ErrRemoved) {
		t.Errorf("call on removed %s: %v, want ErrRemoved", a, err)
	}
	if st, _ := oldA.State(); st != client.StateClosed {
		t.Errorf("removed %s is %s, want closed", a, st)
	}

	// Change b's URL to a dead port: its session goes, a new device
	// tries the new URL.
	moved := full.Devices[1]
	moved.URL = "http://" + deadPort(t) + "/mcp"
	ch, err = f.Update(&inventory.Inventory{Devices: []inventory.Device{moved, full.Devices[2]}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ch.Changed, []string{b}) || len(ch.Added)+len(ch.Removed) != 0 {
		t.Fatalf("changes %+v, want %s changed", ch, b)
	}
	if got := f.Device(b).Inventory().URL; got != moved.URL {
		t.Errorf("%s has URL %s, want %s", b, got, moved.URL)
	}
	if err := call(b); !errors.Is(err, client.ErrNotConnected) {
		t.Errorf("%s at a dead URL: %v, want not connected", b, err)
	}
	if err := call(c); err != nil {
		t.Errorf("unchanged %s: %v", c, err)
	}
	if ch, err := f.Update(&inventory.Inventory{Devices: []inventory.Device{moved, full.Devices[2]}}); err != nil || !ch.Empty() {
		t.Errorf("same inventory again: %+v, %v; want no change", ch, err)
	}
}

// TestUpdateReleasedFleet: a fleet that was not started (a controller
// replica's) adds devices released, so their calls go to Options.Remote
// until Hold.
func TestUpdateReleasedFleet(t *testing.T) {
	l := labtest.New(t, labtest.Options{})
	full := l.Inventory()
	f, err := client.New(&inventory.Inventory{Devices: full.Devices[:1]}, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if _, err := f.Update(full); err != nil {
		t.Fatal(err)
	}
	added := full.Devices[1].Name
	if st, _ := f.Device(added).State(); st != client.StateReleased {
		t.Fatalf("added %s is %s, want released", added, st)
	}
	if err := f.Hold(added); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := f.Device(added).CallTool(ctx, netproto.ToolYangGet, map[string]any{"path": hostnamePath}); err != nil {
		t.Fatalf("held %s: %v", added, err)
	}
}
