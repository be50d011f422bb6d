//go:build linux

package real

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vishvananda/netlink"
)

// TestRealLabHostCrash builds the default topology (as root), crashes h3
// (the DNS host on r3's LAN) and checks what a dead machine shows: r3's
// port toward it admin up and operationally down (netlink), h3's address
// silent to r3's ping, its unbound and lldpd gone, the subscribers told;
// then boots it again and checks the same addresses and routes as Up set,
// the pings and DNS back, and the lab converged. A router is refused, and
// Close while h3 is down still tears everything down.
func TestRealLabHostCrash(t *testing.T) {
	ctx, l, exec := upFaultLab(t, "c", 3*time.Minute)
	var mu sync.Mutex
	var events []string
	failDown := false // the subscriber fails to take the device down
	l.OnDeviceState(func(_ context.Context, dev string, down bool) error {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, fmt.Sprintf("%s down=%v", dev, down))
		if down && failDown {
			return fmt.Errorf("cannot stop %s's server", dev)
		}
		return nil
	})
	seen := func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(events) }
	// h3's own state as Up built it: addresses, IPv4 and IPv6 routes.
	h3State := func() string {
		return exec("h3", "ip", "-br", "addr", "show", "dev", "eth0") + exec("h3", "ip", "-4", "route") + exec("h3", "ip", "-6", "route", "show", "default")
	}
	before := h3State()
	if !strings.Contains(before, "default via 10.3.0.1") || !strings.Contains(before, "10.3.0.10/24") {
		t.Fatalf("h3 before the crash: %s", before)
	}
	r3d, _ := l.plan.Device("r3")
	r3lan, _ := l.LinuxName("r3", "GigabitEthernet0/0/1")
	port := func() (adminUp bool, oper netlink.LinkOperState, err error) {
		err = l.inNetlink(r3d, func(nl *netlink.Handle) error {
			link, err := nl.LinkByName(r3lan)
			if err != nil {
				return err
			}
			adminUp, oper = link.Attrs().Flags&net.FlagUp != 0, link.Attrs().OperState
			return nil
		})
		return
	}
	ping := func() error {
		_, err := l.Exec(ctx, "r3", "ping", "-n", "-c", "1", "-W", "1", "10.3.0.10")
		return err
	}
	alive := func(name string) bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		p := l.byName[name]
		return p != nil && p.alive()
	}
	for _, d := range []string{"h3/unbound", "h3/lldpd"} {
		if !alive(d) {
			t.Fatalf("%s is not running before the crash", d)
		}
	}

	for _, tc := range []struct{ fault, want string }{
		{"host_crash r1", "r1 is a router, not a host"},
		{"host_crash nosuch", "no device nosuch"},
	} {
		if err := l.InjectFault(ctx, parseFault(t, tc.fault)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.fault, err, tc.want)
		}
	}
	if len(seen()) != 0 {
		t.Fatalf("a refused fault told the subscribers: %v", seen())
	}
	crash := parseFault(t, "host_crash h3")
	if err := l.ClearFault(ctx, crash); err == nil || !strings.Contains(err.Error(), "h3 is not down") {
		t.Errorf("clearing a host that is up: %v", err)
	}
	if err := l.InjectFault(ctx, crash); err != nil {
		t.Fatal(err)
	}
	if got := seen(); !slices.Equal(got, []string{"h3 down=true"}) {
		t.Errorf("subscribers told %v, want h3 down", got)
	}
	if !l.DeviceDown("h3") || l.DeviceDown("h1") {
		t.Errorf("DeviceDown h3 %v h1 %v, want true false", l.DeviceDown("h3"), l.DeviceDown("h1"))
	}
	if err := l.InjectFault(ctx, crash); err == nil || !strings.Contains(err.Error(), "down already") {
		t.Errorf("crashing h3 twice: %v", err)
	}
	waitFor(t, 5*time.Second, "r3's port toward h3 admin up, oper down", func() (bool, string) {
		up, oper, err := port()
		return err == nil && up && oper != netlink.OperUp, fmt.Sprintf("admin up %v, oper %s, %v", up, oper, err)
	})
	if err := ping(); err == nil {
		t.Error("r3 still pings h3 after the crash")
	}
	for _, d := range []string{"h3/unbound", "h3/lldpd"} {
		if alive(d) {
			t.Errorf("%s still runs on the crashed host", d)
		}
	}

	if err := l.ClearFault(ctx, crash); err != nil {
		t.Fatalf("clearing host_crash: %v", err)
	}
	if got := seen(); !slices.Equal(got, []string{"h3 down=true", "h3 down=false"}) {
		t.Errorf("subscribers told %v, want h3 down then up", got)
	}
	if l.DeviceDown("h3") {
		t.Error("h3 still down after clearing")
	}
	if up, oper, err := port(); err != nil || !up || oper != netlink.OperUp {
		t.Errorf("r3's port toward h3 after clearing: admin up %v, oper %s, %v", up, oper, err)
	}
	if err := ping(); err != nil {
		t.Errorf("r3 cannot ping h3 after clearing: %v", err)
	}
	if after := h3State(); after != before {
		t.Errorf("h3 after the reboot:\n%s\nwant as Up built it:\n%s", after, before)
	}
	for _, d := range []string{"h3/unbound", "h3/lldpd"} {
		if !alive(d) {
			t.Errorf("%s did not start again", d)
		}
	}
	// From r1, once r3 advertises h3's LAN again (BGP withdrew it with the
	// connected route when the port went down).
	waitFor(t, 15*time.Second, "h3's DNS answers r1 after the reboot", func() (bool, string) {
		s := exec("r1", "dig", "+short", "+time=1", "+tries=1", "@10.3.0.10", "r1.lab.example")
		return strings.TrimSpace(s) == "10.255.0.1", s
	})
	if err := l.WaitConverged(ctx, 60*time.Second); err != nil {
		t.Errorf("after clearing: %v", err)
	}

	// A subscriber that fails the crash: the injection fails and h3 is
	// booted again, not left half down.
	mu.Lock()
	failDown, events = true, nil
	mu.Unlock()
	if err := l.InjectFault(ctx, crash); err == nil || !strings.Contains(err.Error(), "cannot stop h3's server") {
		t.Errorf("a failing subscriber: %v", err)
	}
	mu.Lock()
	failDown = false
	mu.Unlock()
	if got := seen(); !slices.Equal(got, []string{"h3 down=true", "h3 down=false"}) || l.DeviceDown("h3") {
		t.Errorf("after a failed crash: subscribers told %v, DeviceDown %v; want h3 back up", got, l.DeviceDown("h3"))
	}
	if err := ping(); err != nil {
		t.Errorf("r3 cannot ping h3 after a failed crash: %v", err)
	}
	for _, d := range []string{"h3/unbound", "h3/lldpd"} {
		if !alive(d) {
			t.Errorf("%s did not start again after a failed crash", d)
		}
	}

	// Close while h3 is down: the namespaces go all the same.
	if err := l.InjectFault(ctx, crash); err != nil {
		t.Fatal(err)
	}
	ns := l.Namespace("h3")
	if err := l.Close(); err != nil {
		t.Errorf("closing the lab with h3 down: %v", err)
	}
	if _, err := os.Stat(filepath.Join(netnsDir, ns)); !os.IsNotExist(err) {
		t.Errorf("namespace %s outlived the lab: %v", ns, err)
	}
	if err := l.ClearFault(ctx, crash); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("clearing on a closed lab: %v", err)
	}
}
