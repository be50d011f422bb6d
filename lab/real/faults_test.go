//go:build linux

package real

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// parseFault parses a catalog fault.
func parseFault(t *testing.T, s string) topology.Fault {
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
	acl := parseFault(t, "bgp_acl_block r1:GigabitEthernet0/0/0")
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
	svc := parseFault(t, "frr_service_down r1")
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
	mtu := parseFault(t, "mtu_mismatch r1:GigabitEthernet0/0/0 mtu=1400")
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
	ld := parseFault(t, "link_down r2:GigabitEthernet0/0/0/1")
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
	if err := l.InjectFault(ctx, parseFault(t, "ospf_neighbor_missing r1:GigabitEthernet0/0/0")); err == nil || !strings.Contains(err.Error(), "not built") {
		t.Errorf("an unbuilt fault = %v, want a refusal naming the built ones", err)
	}
}

// TestRealLabFaultKinds builds the default topology once (as root) and,
// kind after kind (the rows of faults_<kind>_test.go), injects each
// fault, waits for its symptom as FRR or the kernel shows it, clears it
// and waits for the symptom to go.
func TestRealLabFaultKinds(t *testing.T) {
	ctx, l, exec := upFaultLab(t, "k", 6*time.Minute)
	for _, kind := range []struct {
		name string
		rows func(ctx context.Context, t *testing.T, l *Lab, exec func(dev string, argv ...string) string) []faultRow
	}{
		{"routing", routingFaultRows},
		{"acl", aclFaultRows},
		{"link", linkFaultRows},
		{"host", hostFaultRows},
		{"dns", dnsFaultRows},
	} {
		t.Run(kind.name, func(t *testing.T) {
			runFaultRows(ctx, t, l, exec, kind.rows(ctx, t, l, exec))
		})
	}
}

// faultRow is one fault of a kind: injected, its symptom awaited,
// cleared, the symptom's end awaited.
type faultRow struct {
	fault string
	// wait and clearWait bound the waits for the symptom and for its end.
	wait, clearWait time.Duration
	faulty          func() (bool, string) // the symptom shows
	healthy         func() (bool, string) // the symptom is gone
}

// runFaultRows runs rows one after the other on lab l. When a symptom
// outlives its clearing's wait, it logs what the next rows would meet.
func runFaultRows(ctx context.Context, t *testing.T, l *Lab, exec func(dev string, argv ...string) string, rows []faultRow) {
	t.Helper()
	for _, tc := range rows {
		f := parseFault(t, tc.fault)
		if err := l.InjectFault(ctx, f); err != nil {
			t.Errorf("%s: %v", tc.fault, err)
			continue
		}
		waitFor(t, tc.wait, tc.fault+": symptom", tc.faulty)
		if err := l.ClearFault(ctx, f); err != nil {
			t.Fatalf("clearing %s: %v", tc.fault, err)
		}
		if waitFor(t, tc.clearWait, tc.fault+" cleared", tc.healthy) >= tc.clearWait {
			logLabState(ctx, t, l, exec, tc.fault)
		}
	}
}

// logLabState logs what the rows after fault would meet: the path from h1
// to h3 and back, h3's DNS service and nftables, r3's routing.
func logLabState(ctx context.Context, t *testing.T, l *Lab, exec func(dev string, argv ...string) string, fault string) {
	t.Helper()
	t.Logf("after %s: h1 -> h3 ping:\n%s\nh3 UDP sockets:\n%s\nroutes to h3: r1 %s r2 %s r3 %s\nroutes back to h1: r3 %s r2 %s\nh3's routes:\n%s\nh3 nftables:\n%s\nr2 nftables:\n%s\nr3 nftables:\n%s",
		fault, exec("h1", "ping", "-c", "1", "-W", "1", "10.3.0.10"), exec("h3", "ss", "-lnup"),
		exec("r1", "ip", "route", "get", "10.3.0.10"), exec("r2", "ip", "route", "get", "10.3.0.10"), exec("r3", "ip", "route", "get", "10.3.0.10"),
		exec("r3", "ip", "route", "get", "10.0.0.10"), exec("r2", "ip", "route", "get", "10.0.0.10"),
		exec("h3", "ip", "route"), exec("h3", "nft", "list", "ruleset"), exec("r2", "nft", "list", "ruleset"), exec("r3", "nft", "list", "ruleset"))
	for _, c := range []string{"show ip route", "show ip ospf neighbor", "show ip ospf interface", "show interface brief"} {
		out, err := l.Vtysh(ctx, "r3", c)
		t.Logf("r3: %s: %v\n%s", c, err, out)
	}
	t.Logf("r3 links:\n%s", exec("r3", "ip", "-br", "link"))
}

// upFaultLab builds the default topology with fast BGP timers (as root;
// the test skips otherwise) for a fault test of at most timeout, closed
// when the test ends, and returns its context, the lab and exec, which
// runs a command on a device and returns its output, or the output and
// the error.
func upFaultLab(t *testing.T, prefix string, timeout time.Duration) (context.Context, *Lab, func(dev string, argv ...string) string) {
	t.Helper()
	needRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	l, err := Up(ctx, fastBGP(), Options{Prefix: testPrefix(prefix), ConvergeTimeout: 60 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	exec := func(dev string, argv ...string) string {
		out, err := l.Exec(ctx, dev, argv...)
		if err != nil {
			return fmt.Sprintf("%s error %v", out, err)
		}
		return string(out)
	}
	return ctx, l, exec
}

// TestRealFaultBindings pins what the registry's bindings say of each
// catalog name on the real lab: built or not (RealFaults), and made as a
// configuration change or a runtime condition (ConfigFault).
func TestRealFaultBindings(t *testing.T) {
	tests := []struct {
		name   string
		built  bool
		config bool
	}{
		{"arp_acl_block", false, false},
		{"bgp_acl_block", true, false},
		{"bgp_asn_misconfig", true, true},
		{"bgp_missing_route_advertisement", true, true},
		{"dns_port_blocked", true, false},
		{"dns_record_error", true, true},
		{"dns_service_down", true, false},
		{"frr_service_down", true, false},
		{"host_crash", true, false},
		{"host_incorrect_dns", true, true},
		{"host_incorrect_gateway", true, true},
		{"host_incorrect_ip", true, true},
		{"host_incorrect_netmask", true, true},
		{"host_ip_conflict", true, true},
		{"host_missing_ip", true, true},
		{"host_static_blackhole", true, true},
		{"http_acl_block", true, false},
		{"icmp_acl_block", true, false},
		{"link_bandwidth_throttling", true, false},
		{"link_detach", true, false},
		{"link_down", true, false},
		{"link_flap", true, false},
		{"link_fragmentation_disabled", true, false},
		{"link_high_latency", true, false},
		{"link_high_packet_corruption", true, false},
		{"mac_address_conflict", true, true},
		{"mtu_mismatch", true, false},
		{"ospf_acl_block", true, false},
		{"ospf_area_misconfiguration", true, true},
		{"ospf_neighbor_missing", false, false},
		{"no_such_fault", false, false},
	}
	var built []string
	for _, tc := range tests {
		if got := slices.Contains(RealFaults, tc.name); got != tc.built {
			t.Errorf("%s in RealFaults = %v, want %v", tc.name, got, tc.built)
		}
		if got := ConfigFault(tc.name); got != tc.config {
			t.Errorf("ConfigFault(%s) = %v, want %v", tc.name, got, tc.config)
		}
		if tc.built {
			built = append(built, tc.name)
		}
	}
	if !slices.Equal(RealFaults, built) {
		t.Errorf("RealFaults = %v, want %v", RealFaults, built)
	}
}

// TestRealFaultRefusals: InjectFault and ClearFault refuse, before
// touching any lab, an unknown name (listing the catalog's names) and a
// name the real lab does not build (saying why, listing those it builds).
func TestRealFaultRefusals(t *testing.T) {
	l := &Lab{} // never reached: the refusals come first
	tests := []struct {
		fault topology.Fault
		want  []string
	}{
		{topology.Fault{Name: "no_such_fault", Target: "r1"}, []string{`fault "no_such_fault": unknown name (known: arp_acl_block, bgp_acl_block, `}},
		{topology.Fault{Name: "ospf_neighbor_missing", Target: "r1:GigabitEthernet0/0/0"}, []string{"fault ospf_neighbor_missing is not built on the real lab: not written yet", "(it builds bgp_acl_block, "}},
		{topology.Fault{Name: "arp_acl_block", Target: "r1:GigabitEthernet0/0/0"}, []string{"not built on the real lab: not written yet"}},
	}
	for _, tc := range tests {
		for op, fn := range map[string]func(context.Context, topology.Fault) error{"inject": l.InjectFault, "clear": l.ClearFault} {
			err := fn(context.Background(), tc.fault)
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("%s %s = %v, want %q", op, tc.fault.Name, err, w)
				}
			}
		}
	}
}
