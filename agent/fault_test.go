package agent

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/agent/report"
	"github.com/netmcp/netmcp/device/sim"
	"github.com/netmcp/netmcp/device/sim/topology"
	"github.com/netmcp/netmcp/netproto"
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

// TestAskLinkLoss: 30% loss on the r2-r3 link. Today's netsim loses in
// both directions; the report blames the r2-r3 link, both ways, and
// nothing on r1-r2.
func TestAskLinkLoss(t *testing.T) {
	topo := sim.DefaultTopology()
	topo.Faults = append(topo.Faults, topology.Fault{Kind: topology.FaultLoss, Link: "r2:GigabitEthernet0/0/0/1", Percent: 30})
	d := newDomain(t, domainOpts{topo: &topo})
	r := askVerified(t, d, "r1")
	dirs := map[string]bool{}
	for _, f := range r.Findings {
		if f.Cause != "link-loss" {
			t.Errorf("finding %+v, want link-loss only", f)
		}
		dirs[f.Direction] = true
	}
	if !dirs["r2->r3"] || !dirs["r3->r2"] || dirs["r1->r2"] || dirs["r2->r1"] {
		t.Fatalf("directions %v; findings %s", dirs, findingsJSON(r))
	}
	t.Log(r.Hypothesis.Statement)
}

// TestAskUnidirectionalLoss: loss on the r2-r3 link leaving r2 only (the
// fault catalog's direction=out). It needs the simulator's directional
// loss; until the fault engineer's change lands the fault is refused and
// the test says so.
func TestAskUnidirectionalLoss(t *testing.T) {
	f, err := topology.ParseFault("link_high_packet_corruption r2:GigabitEthernet0/0/0/1 percent=30 direction=out")
	if err != nil {
		t.Skipf("fault not parsed: %v", err)
	}
	d := newDomain(t, domainOpts{})
	if err := d.lab.InjectFault(f); err != nil {
		t.Skipf("the simulator has no directional loss yet: %v", err)
	}
	// A simulator may accept the fault before it acts on it.
	res, err := d.agents["r2"].cfg.Local.CallTool(context.Background(), &mcp.CallToolParams{Name: netproto.ToolPing,
		Arguments: map[string]any{"destination": "10.0.23.2", "count": Probes, "intervalMs": ProbeIntervalMs}})
	if err != nil {
		t.Fatal(err)
	}
	var ping struct {
		Loss float64 `json:"loss"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &ping)
	if ping.Loss == 0 {
		t.Skip("the simulator accepts the fault but does not act on it yet: r2's ping to r3 loses nothing")
	}
	r := askVerified(t, d, "r1")
	h := r.Hypothesis
	if h == nil || h.Device != "r2" || h.Direction != "r2->r3" || (h.Cause != "link-loss" && h.Cause != "link-corruption") {
		t.Fatalf("hypothesis %+v; findings %s", h, findingsJSON(r))
	}
	for _, f := range r.Findings {
		if f.Direction != "r2->r3" {
			t.Errorf("a clean direction blamed: %+v", f)
		}
	}
	t.Log(h.Statement)
}
