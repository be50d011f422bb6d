package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/d2d/report"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
)

const pathIntent = "verify packet loss on the path from r1 to r3 via r2"

// askVerified runs the path intent on device from and checks the report's
// signatures.
func askVerified(t *testing.T, d *testDomain, from string) report.Report {
	t.Helper()
	r, err := d.agents[from].Ask(context.Background(), pathIntent)
	if err != nil {
		t.Fatal(err)
	}
	verifyReport(t, d, r)
	return r
}

func findingsJSON(r report.Report) string {
	b, _ := json.MarshalIndent(r.Findings, "", " ")
	return string(b)
}

// withEgressACL returns the default lab with an ACL denying ICMP applied
// outbound on dev's interface ifName.
func withEgressACL(dev, ifName string) topology.Topology {
	topo := sim.DefaultTopology()
	for i := range topo.Devices {
		dv := &topo.Devices[i]
		if dv.Name != dev {
			continue
		}
		dv.ACLs = append(dv.ACLs, topology.ACL{Name: "NO-ICMP-OUT", Rules: []topology.ACLEntry{
			{Seq: 10, Action: "deny", Protocol: "icmp"}, {Seq: 20, Action: "permit", Protocol: "ip"}}})
		for j := range dv.Interfaces {
			if dv.Interfaces[j].Name == ifName {
				dv.Interfaces[j].EgressACL = "NO-ICMP-OUT"
			}
		}
	}
	return topo
}

// TestAskOneWayEgressACL: r2 filters ICMP leaving toward r3 (an egress ACL
// on GigabitEthernet0/0/0/1). Asked on any device, the report blames r2's
// egress on that interface, in the r2->r3 direction, with r3->r2 clean.
func TestAskOneWayEgressACL(t *testing.T) {
	topo := withEgressACL("r2", "GigabitEthernet0/0/0/1")
	d := newDomain(t, domainOpts{topo: &topo})
	for _, from := range []string{"r1", "r3"} {
		r := askVerified(t, d, from)
		h := r.Hypothesis
		if h == nil || h.Device != "r2" || h.Interface != "GigabitEthernet0/0/0/1" || h.Direction != "r2->r3" || h.Cause != "egress-filter" {
			t.Fatalf("asked on %s: hypothesis %+v; findings %s", from, h, findingsJSON(r))
		}
		for _, f := range r.Findings {
			if f.Direction == "r3->r2" || f.Direction == "r1->r2" || f.Direction == "r2->r1" {
				t.Errorf("asked on %s: a clean direction blamed: %+v", from, f)
			}
		}
		t.Logf("asked on %s: %s", from, h.Statement)
	}
}

// TestAskLinkLoss: 30% loss on the r2-r3 link (the older fault kind,
// corrupting both ways). The report blames the r2-r3 link, both ways,
// and nothing on r1-r2.
func TestAskLinkLoss(t *testing.T) {
	topo := sim.DefaultTopology()
	topo.Faults = append(topo.Faults, topology.Fault{Kind: topology.FaultLoss, Link: "r2:GigabitEthernet0/0/0/1", Percent: 30})
	d := newDomain(t, domainOpts{topo: &topo})
	r := askVerified(t, d, "r1")
	dirs := map[string]bool{}
	for _, f := range r.Findings {
		if f.Cause != "link-loss" && f.Cause != "link-corruption" && f.Cause != "drop-before" {
			t.Errorf("finding %+v, want the link's loss only", f)
		}
		dirs[f.Direction] = true
	}
	if !dirs["r2->r3"] || !dirs["r3->r2"] || dirs["r1->r2"] || dirs["r2->r1"] {
		t.Fatalf("directions %v; findings %s", dirs, findingsJSON(r))
	}
	t.Log(r.Hypothesis.Statement)
}

// TestAskUnidirectionalLoss: the named fault corrupts 30% of what r2
// sends on its link to r3 (direction=out), injected at run time through
// the lab. The report blames r2->r3, as corruption (r3's in-errors), the
// captures agree (fewer of r2's echo requests arrive at r3 than left r2),
// and r3->r2 is clean.
func TestAskUnidirectionalLoss(t *testing.T) {
	f, err := topology.ParseFault("link_high_packet_corruption r2:GigabitEthernet0/0/0/1 percent=30 direction=out")
	if err != nil {
		t.Fatal(err)
	}
	d := newDomain(t, domainOpts{})
	if _, err := d.lab.Inject(f); err != nil {
		t.Fatal(err)
	}
	for _, from := range []string{"r1", "r3"} {
		r := askVerified(t, d, from)
		h := r.Hypothesis
		if h == nil || h.Device != "r2" || h.Direction != "r2->r3" || h.Cause != "link-corruption" {
			t.Fatalf("asked on %s: hypothesis %+v; findings %s", from, h, findingsJSON(r))
		}
		if !strings.Contains(h.Statement, "the reverse direction clean") {
			t.Errorf("asked on %s: %s", from, h.Statement)
		}
		rules := map[string]bool{}
		for _, f := range r.Findings {
			rules[f.Rule] = true
			if f.Direction != "r2->r3" {
				t.Errorf("asked on %s: a clean direction blamed: %+v", from, f)
			}
		}
		if !rules["capture-gap"] {
			t.Errorf("asked on %s: no capture finding; findings %s", from, findingsJSON(r))
		}
		t.Logf("asked on %s: %s", from, h.Statement)
	}
}
