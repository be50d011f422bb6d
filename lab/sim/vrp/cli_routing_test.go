package vrp

import (
	"flag"
	"net/netip"
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
// testdata/routing_vrp_<command>.golden.
func TestRoutingCLIConstructed(t *testing.T) {
	s := dialecttest.Routing()
	cases := []struct {
		name   string
		render func(dialect.Routing, []string) (string, error)
		args   []string
	}{
		{"display_bgp_peer", bgpPeer, nil},
		{"display_bgp_peer_10.0.99.9_verbose", bgpPeer, []string{"10.0.99.9", "verbose"}},
		{"display_bgp_peer_10.0.12.1", bgpPeer, []string{"10.0.12.1"}},
		{"display_bgp_routing-table", bgpRoutingTable, nil},
		{"display_ospf_peer", ospfPeer, nil},
		{"display_ospf_peer_brief", ospfPeerBrief, nil},
		{"display_ospf_interface", ospfInterface, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := tc.render(s, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			dialecttest.Golden(t, filepath.Join("testdata", "routing_vrp_"+tc.name+".golden"), out, *update)
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
		{bgpPeer, []string{"10.0.99.9", "verbose"}, []string{"BGP current state: Idle", "Last error: OPEN Message Error/Bad Peer AS"}},
		{bgpPeer, nil, []string{"Established", "Idle(Admin)", "Active"}},
		{ospfPeer, nil, []string{"State: ExStart", "Reason: MTU mismatch"}},
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
	if _, err := bgpPeer(s, []string{"192.0.2.1"}); err == nil {
		t.Error("an unknown peer is not an error")
	} else if ne, ok := err.(*netproto.Error); !ok || ne.Code != netproto.CodeConfigIncompatible {
		t.Errorf("err = %v, want -32084", err)
	}
}

// TestProtoNames: VRP's routing table says EBGP or IBGP after the BGP
// table's best path.
func TestProtoNames(t *testing.T) {
	s := dialecttest.Routing()
	s.Routes = append(s.Routes, netsim.BGPRoute{Prefix: netip.MustParsePrefix("10.9.0.0/16"), Internal: true, Best: true, Valid: true})
	name := protoNames(s.Routes)
	for pfx, want := range map[string]string{"172.16.0.0/12": "EBGP", "10.9.0.0/16": "IBGP"} {
		if got := name(netsim.Route{Prefix: netip.MustParsePrefix(pfx), Protocol: netsim.ProtoBGP}); got != want {
			t.Errorf("%s: %s, want %s", pfx, got, want)
		}
	}
	if got := name(netsim.Route{Protocol: netsim.ProtoOSPF}); got != "OSPF" {
		t.Errorf("ospf route: %s", got)
	}
}
