package controller_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/score"
	"github.com/netmcp/netmcp/lab/topology"
)

// suite is the fault suite on the default lab: one row per fault of
// topology.Catalog with a sensible target (both directions where it
// matters), the healthy lab, and the targeted intents.
var suite = []struct {
	fault string
	// intent defaults to the sweep.
	intent string
	// phases: a timed fault (link_flap) is asked about once its logs hold
	// repeated cycles, once in each phase (flap_test.go).
	phases bool
}{
	{fault: ""},
	{fault: "arp_acl_block r3:GigabitEthernet0/0/1"},
	{fault: "bgp_acl_block r2:GigabitEthernet0/0/0/0"},
	{fault: "bgp_acl_block r2:GigabitEthernet0/0/0/0 direction=out"},
	{fault: "bgp_asn_misconfig r1"},
	{fault: "bgp_asn_misconfig r3"},
	{fault: "bgp_missing_route_advertisement r3"},
	{fault: "dns_port_blocked h3"},
	{fault: "dns_port_blocked r3:GigabitEthernet0/0/1 direction=out"},
	{fault: "dns_record_error h3"},
	{fault: "dns_record_error h3 name=ns"},
	{fault: "dns_service_down h3"},
	{fault: "frr_service_down r2"},
	{fault: "frr_service_down r3"},
	{fault: "host_crash h3"},
	{fault: "host_incorrect_dns h3"},
	{fault: "host_incorrect_gateway h3"},
	{fault: "host_incorrect_gateway h1"},
	{fault: "host_incorrect_ip h3"},
	{fault: "host_incorrect_netmask h3"},
	{fault: "host_ip_conflict h3"},
	{fault: "host_missing_ip h3"},
	{fault: "host_static_blackhole h3"},
	{fault: "http_acl_block r3:GigabitEthernet0/0/1"},
	{fault: "icmp_acl_block r3:GigabitEthernet0/0/0"},
	{fault: "icmp_acl_block r2:GigabitEthernet0/0/0/0 direction=out"},
	{fault: "link_bandwidth_throttling r2:GigabitEthernet0/0/0/1"},
	{fault: "link_detach r3:GigabitEthernet0/0/0"},
	{fault: "link_down r1:GigabitEthernet0/0/0"},
	{fault: "link_down r2:GigabitEthernet0/0/0/1"},
	{fault: "link_down r3:GigabitEthernet0/0/1"},
	{fault: "link_flap r2:GigabitEthernet0/0/0/1 period=2 down=1", phases: true},
	{fault: "link_fragmentation_disabled r2:GigabitEthernet0/0/0/1"},
	{fault: "link_high_latency r2:GigabitEthernet0/0/0/1"},
	{fault: "link_high_packet_corruption r2:GigabitEthernet0/0/0/1"},
	{fault: "link_high_packet_corruption r1:GigabitEthernet0/0/0 percent=50 direction=in"},
	{fault: "mac_address_conflict h3"},
	{fault: "mtu_mismatch r2:GigabitEthernet0/0/0/1"},
	{fault: "mtu_mismatch r1:GigabitEthernet0/0/0 mtu=1300"},
	{fault: "ospf_acl_block r2:GigabitEthernet0/0/0/1"},
	{fault: "ospf_area_misconfiguration r3:GigabitEthernet0/0/0"},
	{fault: "ospf_neighbor_missing r3:GigabitEthernet0/0/0"},
	{fault: "link_down r2:GigabitEthernet0/0/0/1", intent: "verify reachability between r1 and h3"},
	{fault: "mtu_mismatch r2:GigabitEthernet0/0/0/1", intent: "verify reachability between r1 and h3"},
	{fault: "icmp_acl_block r3:GigabitEthernet0/0/0", intent: "can r1 reach h3?"},
	{fault: "link_high_packet_corruption r2:GigabitEthernet0/0/0/1", intent: "is there loss on the path from r1 to 10.3.0.10"},
	{fault: "bgp_acl_block r2:GigabitEthernet0/0/0/0", intent: "why is BGP neighbor 10.0.12.2 down on r1"},
	{fault: "bgp_acl_block r2:GigabitEthernet0/0/0/0 direction=out", intent: "why is BGP neighbor 10.0.12.1 down on r2"},
	{fault: "bgp_asn_misconfig r1", intent: "why is BGP neighbor 10.0.12.2 down on r1"},
	{fault: "mtu_mismatch r3:GigabitEthernet0/0/0", intent: "why is the OSPF adjacency between r2 and r3 down"},
	{fault: "ospf_area_misconfiguration r3:GigabitEthernet0/0/0", intent: "why is the OSPF adjacency between r2 and r3 down"},
	{fault: "link_down r2:GigabitEthernet0/0/0/1", intent: "why is the OSPF adjacency between r2 and r3 down"},
}

// TestFaultSuite injects each fault into its own lab, asks the intent
// (the sweep by default) through real MCP sessions, scores the report in
// NIKA's measures and prints the table.
func TestFaultSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a lab per fault")
	}
	var rows []score.Row
	for _, c := range suite {
		name := c.fault
		if name == "" {
			name = "healthy"
		}
		if c.intent != "" {
			name += " / " + c.intent
		}
		t.Run(name, func(t *testing.T) {
			var faults []string
			truth := score.Truth{}
			l := (*testLab)(nil)
			if c.fault != "" {
				faults = append(faults, c.fault)
			}
			l = newTestLab(t, faults...)
			if c.fault != "" {
				f, _ := topology.ParseFault(c.fault)
				truth = score.Truth{Devices: score.FaultDevices(l.topo, f), Names: []string{f.Name}}
			}
			intent := c.intent
			if intent == "" {
				intent = "what is wrong with the network?"
			}
			if c.phases {
				rows = append(rows, askEachPhase(t, l, c.fault, truth)...)
				return
			}
			rep := l.ask(t, intent)
			s := score.Of(nikaAnswer(rep), truth)
			rows = append(rows, scoreRow(name, s, rep))
			if !s.Detection || s.Localization != 1 || s.RootCause != 1 {
				var b bytes.Buffer
				rep.WriteText(&b)
				t.Errorf("score %+v against %+v\n%s", s, truth, b.String())
			}
		})
	}
	var b bytes.Buffer
	score.WriteTable(&b, rows)
	t.Logf("NIKA scores on the default lab:\n%s", b.String())
}

// nikaAnswer is a report's NIKA fields.
func nikaAnswer(rep *controller.Report) score.Answer {
	return score.Answer{IsAnomaly: rep.IsAnomaly, FaultyDevices: rep.FaultyDevices, RootCauseName: rep.RootCauseName}
}

// scoreRow is a report's line of the scoring table.
func scoreRow(fault string, s score.Score, rep *controller.Report) score.Row {
	return score.Row{Fault: fault, Score: s, Answer: nikaAnswer(rep), ElapsedMS: rep.ElapsedMS, Calls: len(rep.Calls)}
}

// TestReachabilityMTURecommendation is the draft's 4.4.1: an MTU
// mismatch on the path is found and a fix recommended. On r1—r2 the path
// still carries traffic (eBGP and static routes do not need the OSPF
// adjacency the mismatch breaks), so the path MTU intent measures 1300
// and confirms it with DF pings; on r2—r3 the mismatch takes OSPF, the
// iBGP session and the route down, and the reachability intent names the
// mismatch alone, with the change that fixes it.
func TestReachabilityMTURecommendation(t *testing.T) {
	l := newTestLab(t, "mtu_mismatch r1:GigabitEthernet0/0/0 mtu=1300")
	rep := l.ask(t, "path MTU from r1 to 10.3.0.10")
	if got := rep.Facts["path_mtu"]; got != 1300 {
		t.Errorf("path_mtu = %v, want 1300", got)
	}
	if rep.Facts["path_mtu_confirmed"] != true {
		t.Errorf("path MTU not confirmed by DF pings: %v", rep.Facts)
	}
	if !slices.Equal(rep.RootCauseName, []string{"mtu_mismatch"}) || len(rep.ProposedChanges) != 1 || rep.ProposedChanges[0].Device != "r1" {
		t.Fatalf("causes %v, changes %+v", rep.RootCauseName, rep.ProposedChanges)
	}
	l = newTestLab(t, "mtu_mismatch r2:GigabitEthernet0/0/0/1")
	rep = l.ask(t, "verify reachability between r1 and h3")
	if !slices.Equal(rep.RootCauseName, []string{"mtu_mismatch"}) || len(rep.ProposedChanges) != 1 || rep.ProposedChanges[0].Device != "r2" ||
		!strings.Contains(rep.ProposedChanges[0].Diff, "+  mtu 1500") {
		t.Fatalf("causes %v, changes %+v", rep.RootCauseName, rep.ProposedChanges)
	}
}

// TestRemediationConfirmed: an ACL dropping ICMP is found, its entry
// removed as a confirmed commit, reachability verified, commit confirmed.
func TestRemediationConfirmed(t *testing.T) {
	l := newTestLab(t, "icmp_acl_block r3:GigabitEthernet0/0/0")
	rep := l.ask(t, "verify reachability between r1 and h3")
	if rep.Verified == nil || *rep.Verified || len(rep.ProposedChanges) != 1 {
		t.Fatalf("verified %v, changes %+v", rep.Verified, rep.ProposedChanges)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := l.ctl.Remediate(ctx, rep, "policy"); err != nil {
		t.Fatal(err)
	}
	ch := rep.ProposedChanges[0]
	if rep.Remediation == nil || !rep.Remediation.Verified || ch.Applied == nil || !ch.Applied.Confirmed {
		t.Fatalf("remediation %+v, change %+v", rep.Remediation, ch.Applied)
	}
	again := l.ask(t, "verify reachability between r1 and h3")
	if again.Verified == nil || !*again.Verified {
		t.Fatalf("after the fix: %s", again.Diagnosis)
	}
}

// TestRemediationRolledBack: the fix of one cause does not restore the
// intent (a second, hidden drop on the path), so the confirmed commit is
// cancelled and the ACL entry is back.
func TestRemediationRolledBack(t *testing.T) {
	l := newTestLab(t, "icmp_acl_block r3:GigabitEthernet0/0/0")
	if err := l.lab.InjectFault(topology.Fault{Kind: topology.FaultACLDrop, Interface: "r3:GigabitEthernet0/0/0", Destination: "10.3.0.10/32"}); err != nil {
		t.Fatal(err)
	}
	rep := l.ask(t, "verify reachability between r1 and h3")
	if len(rep.ProposedChanges) != 1 {
		t.Fatalf("changes %+v (%s)", rep.ProposedChanges, rep.Diagnosis)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := l.ctl.Remediate(ctx, rep, "policy"); err != nil {
		t.Fatal(err)
	}
	ch := rep.ProposedChanges[0]
	if rep.Remediation.Verified || ch.Applied == nil || !ch.Applied.Committed || !ch.Applied.Rolled {
		t.Fatalf("remediation %+v, change %+v", rep.Remediation, ch.Applied)
	}
	again := l.ask(t, "verify reachability between r1 and h3")
	if !slices.Contains(again.RootCauseName, "icmp_acl_block") {
		t.Fatalf("the ACL entry is not back after the rollback: %s", again.Diagnosis)
	}
}

// TestDeadDevice: a device of the inventory that does not answer is
// reported, and the sweep of the others still finishes.
func TestDeadDevice(t *testing.T) {
	l := newTestLab(t)
	inv := *l.inv
	inv.Devices = append(slices.Clone(inv.Devices), inventory.Device{Name: "r9", URL: "http://127.0.0.1:1/mcp"})
	f, err := client.New(&inv, client.Options{ConnectTimeout: 2 * time.Second, CallTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := f.Connect(ctx); err == nil {
		t.Fatal("r9 connected")
	}
	ctl := &controller.Controller{Fleet: f, Hosts: l.ctl.Hosts}
	rep, err := ctl.Ask(ctx, controller.Intent{Kind: controller.KindSweep})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Unreachable["r9"] == "" || rep.IsAnomaly && !slices.Equal(rep.FaultyDevices, []string{"r9"}) {
		t.Fatalf("unreachable %v, faulty %v", rep.Unreachable, rep.FaultyDevices)
	}
}

// TestSiteIntent: "between Site-A and Site-B" names the inventory's sites.
func TestSiteIntent(t *testing.T) {
	l := newTestLab(t)
	inv := *l.inv
	inv.Devices = slices.Clone(inv.Devices)
	inv.Devices[0].Site, inv.Devices[2].Site = "site-a", "site-b"
	f, err := client.New(&inv, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := f.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	in, err := controller.ParseIntent("Verify reachability between Site-A and Site-B")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := (&controller.Controller{Fleet: f}).Ask(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verified == nil || !*rep.Verified || rep.Facts["source"] != "r1" || rep.Facts["destination_address"] != "10.255.0.3" {
		t.Fatalf("verified %v, facts %v: %s", rep.Verified, rep.Facts, rep.Diagnosis)
	}
}
