package eval_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/eval"
	"github.com/netmcp/netmcp/lab/gen/suite"
)

// gnmiFaults are the faults the suite over gNMI draws: what the routers'
// YANG data shows (links, routing protocols, ACLs, MTUs).
var gnmiFaults = []string{
	"link_down", "link_detach", "mtu_mismatch",
	"bgp_asn_misconfig", "ospf_area_misconfiguration", "ospf_neighbor_missing",
	"icmp_acl_block", "bgp_acl_block", "ospf_acl_block", "http_acl_block",
}

// TestControllerOverGNMI runs the controller on a suite of those faults
// twice, the routers reached through their MCP servers over the
// simulator (the default) and through gnmi:// (as against `lab up
// --gnmi`), and checks that every case gets the same answer.
func TestControllerOverGNMI(t *testing.T) {
	if testing.Short() {
		t.Skip("the fault suite over gNMI: two runs of the controller")
	}
	s, err := suite.Generate(suite.Options{Networks: suite.Networks(11, 1, 4, 5), Seed: 11, Names: gnmiFaults, Healthy: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var out [2]*eval.Report
	for i, gnmi := range []bool{false, true} {
		var progress strings.Builder
		out[i], err = eval.Run(ctx, s, eval.Options{Timeout: 2 * time.Minute, Progress: &progress, GNMI: gnmi})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("gnmi=%v:\n%s", gnmi, progress.String())
	}
	for k, c := range out[0].Cases {
		g := out[1].Cases[k]
		if c.Error != "" || g.Error != "" || c.Answer.IsAnomaly != g.Answer.IsAnomaly ||
			strings.Join(c.Answer.RootCauseName, ",") != strings.Join(g.Answer.RootCauseName, ",") ||
			strings.Join(c.Answer.FaultyDevices, ",") != strings.Join(g.Answer.FaultyDevices, ",") {
			t.Errorf("case %s (%v): default transport %+v (error %q), gNMI %+v (error %q)", c.ID, c.Faults, c.Answer, c.Error, g.Answer, g.Error)
		}
	}
	if out[0].Overall != out[1].Overall {
		t.Errorf("overall: default transport %+v, gNMI %+v", out[0].Overall, out[1].Overall)
	}
	t.Logf("default: %+v; gNMI: %+v", out[0].Overall, out[1].Overall)
}
