package real

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// fault parses a catalog fault.
func fault(t *testing.T, s string) topology.Fault {
	t.Helper()
	f, err := topology.ParseFault(s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// testFaults injects faults on the converged lab (BGP timers 3/9) and
// checks what FRR and the kernel show through the linux driver.
func testFaults(ctx context.Context, t *testing.T, l *Lab) {
	r1, r2 := openDriver(t, l, "r1"), openDriver(t, l, "r2")
	// bgp_acl_block: r1 drops TCP 179 on its link to r2; the session
	// dies when the hold timer (9 s) expires; OSPF stays Full.
	acl := fault(t, "bgp_acl_block r1:GigabitEthernet0/0/0")
	if err := l.InjectFault(ctx, acl); err != nil {
		t.Fatal(err)
	}
	took := waitFor(t, 25*time.Second, "bgp_acl_block: r1's session to r2 down", func() (bool, string) {
		st, err := getString(ctx, r1, bgpNeighbors+"/neighbor[neighbor-address=10.0.12.2]/state/session-state")
		return err == nil && st != "ESTABLISHED", st
	})
	t.Logf("bgp_acl_block: session down after %.1f s", took.Seconds())
	if e, err := getString(ctx, r1, bgpNeighbors+"/neighbor[neighbor-address=10.0.12.2]/state/netmcp-last-error"); err != nil || !strings.Contains(strings.ToLower(e), "hold timer") {
		t.Errorf("bgp_acl_block: r1's last error = %q, %v; want the hold timer's expiry", e, err)
	}
	if st, err := getString(ctx, r1, ospfArea0+"/interfaces/interface[id=GigabitEthernet0/0/0]/neighbors/neighbor[router-id=10.255.0.2]/state/adjacency-state"); st != "openconfig-ospf-types:FULL" {
		t.Errorf("bgp_acl_block: OSPF r1-r2 = %q, %v; want FULL", st, err)
	}
	if err := l.ClearFault(ctx, acl); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "bgp_acl_block cleared: r1's session back", func() (bool, string) {
		st, _ := getString(ctx, r1, bgpNeighbors+"/neighbor[neighbor-address=10.0.12.2]/state/session-state")
		return st == "ESTABLISHED", st
	})

	// frr_service_down: r1's routing daemons stop; r2's session to it
	// leaves Established at once (the TCP connection closes).
	svc := fault(t, "frr_service_down r1")
	if err := l.InjectFault(ctx, svc); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 15*time.Second, "frr_service_down: r2's session to r1 down", func() (bool, string) {
		st, err := getString(ctx, r2, bgpNeighbors+"/neighbor[neighbor-address=10.0.12.1]/state/session-state")
		return err == nil && st != "ESTABLISHED", st
	})
	if err := l.ClearFault(ctx, svc); err != nil {
		t.Fatalf("clearing frr_service_down: %v", err)
	}
	waitFor(t, 40*time.Second, "frr_service_down cleared: r1's BGP back", func() (bool, string) {
		st, _ := getString(ctx, r2, bgpNeighbors+"/neighbor[neighbor-address=10.0.12.1]/state/session-state")
		return st == "ESTABLISHED", st
	})

	// mtu_mismatch: r1's side of the r1-r2 link at 1400; full-size
	// frames from r2 are dropped, and OSPF, reset, is no longer Full.
	mtu := fault(t, "mtu_mismatch r1:GigabitEthernet0/0/0 mtu=1400")
	if err := l.InjectFault(ctx, mtu); err != nil {
		t.Fatal(err)
	}
	if got, err := getString(ctx, r1, "/openconfig-interfaces:interfaces/interface[name=GigabitEthernet0/0/0]/state/mtu"); got != "1400" {
		t.Errorf("mtu_mismatch: r1 MTU = %q, %v", got, err)
	}
	if out, err := l.Exec(ctx, "r2", "ping", "-c", "1", "-W", "1", "-M", "do", "-s", "1472", "10.0.12.1"); err == nil {
		t.Errorf("mtu_mismatch: a 1500-byte ping crossed the 1400 MTU:\n%s", out)
	}
	if st, _ := getString(ctx, r1, ospfArea0+"/interfaces/interface[id=GigabitEthernet0/0/0]/neighbors/neighbor[router-id=10.255.0.2]/state/adjacency-state"); st == "openconfig-ospf-types:FULL" {
		t.Errorf("mtu_mismatch: OSPF r1-r2 still FULL after the OSPF reset")
	}
	if err := l.ClearFault(ctx, mtu); err != nil {
		t.Fatal(err)
	}

	// link_down: r2's interface to r3 goes down; r3's end loses carrier;
	// r2 loses its OSPF neighbour r3 and its route to the link.
	ld := fault(t, "link_down r2:GigabitEthernet0/0/0/1")
	if err := l.InjectFault(ctx, ld); err != nil {
		t.Fatal(err)
	}
	r3 := openDriver(t, l, "r3")
	waitFor(t, 10*time.Second, "link_down: both ends down, OSPF neighbour gone", func() (bool, string) {
		a, _ := getString(ctx, r2, "/openconfig-interfaces:interfaces/interface[name=GigabitEthernet0/0/0/1]/state/oper-status")
		b, _ := getString(ctx, r3, "/openconfig-interfaces:interfaces/interface[name=GigabitEthernet0/0/0]/state/oper-status")
		n, _ := l.OSPFFull(ctx, "r3")
		return a != "UP" && b != "UP" && n == 0, "r2 " + a + ", r3 " + b
	})
	if out, err := l.Exec(ctx, "r2", "ping", "-c", "1", "-W", "1", "10.0.23.2"); err == nil {
		t.Errorf("link_down: r2 still reaches r3 over the downed link:\n%s", out)
	}
	if err := l.ClearFault(ctx, ld); err != nil {
		t.Fatal(err)
	}
	if err := l.InjectFault(ctx, fault(t, "link_detach r1:GigabitEthernet0/0/0")); err == nil || !strings.Contains(err.Error(), "not built") {
		t.Errorf("an unbuilt fault = %v, want a refusal naming the built ones", err)
	}
}
