package xr

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/sim/dialect/dialecttest"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/netproto"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestRoutingCLIConstructed renders a constructed control plane with
// every OSPF and BGP command and compares the output with
// testdata/routing_xr_<command>.golden.
func TestRoutingCLIConstructed(t *testing.T) {
	s := dialecttest.Routing()
	cases := []struct {
		name   string
		render func(dialect.Routing, []string) (string, error)
		args   []string
	}{
		{"show_bgp_summary", bgpSummary, nil},
		{"show_bgp_neighbor", bgpNeighbor, nil},
		{"show_bgp_neighbor_10.0.99.9", bgpNeighbor, []string{"10.0.99.9"}},
		{"show_bgp", bgpTable, nil},
		{"show_ospf_neighbor", ospfNeighbor, nil},
		{"show_ospf_interface_brief", ospfInterfaceBrief, nil},
		{"show_route_bgp", func(s dialect.Routing, a []string) (string, error) { return routeProto(s, a, netsim.ProtoBGP) }, nil},
		{"show_route_ospf", func(s dialect.Routing, a []string) (string, error) { return routeProto(s, a, netsim.ProtoOSPF) }, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := tc.render(s, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			dialecttest.Golden(t, filepath.Join("testdata", "routing_xr_"+tc.name+".golden"), out, *update)
		})
	}
}

// TestRoutingCLIStates checks that the renderings say what the states are:
// the last error and the reason of a stuck adjacency reach the operator.
func TestRoutingCLIStates(t *testing.T) {
	s := dialecttest.Routing()
	for _, tc := range []struct {
		render func(dialect.Routing, []string) (string, error)
		args   []string
		want   []string
	}{
		{bgpNeighbor, []string{"10.0.99.9"}, []string{"BGP state = Idle", "due to OPEN Message Error/Bad Peer AS"}},
		{bgpSummary, nil, []string{"Idle (Admin)", "Active"}},
		{ospfNeighbor, nil, []string{"FULL/  -", "EXSTART/  -", "FULL/BDR"}},
	} {
		out, err := tc.render(s, tc.args)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("output lacks %q:\n%s", w, out)
			}
		}
	}
	if _, err := bgpNeighbor(s, []string{"192.0.2.1"}); err == nil {
		t.Error("an unknown neighbour is not an error")
	} else if ne, ok := err.(*netproto.Error); !ok || ne.Code != netproto.CodeConfigIncompatible {
		t.Errorf("err = %v, want -32084", err)
	}
}
