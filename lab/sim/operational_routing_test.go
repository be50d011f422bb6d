package sim

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/netmcp/netmcp/lab/sim/dialect/dialecttest"
	"github.com/netmcp/netmcp/yang"
)

// Paths of COMMON.md's contract, below the default network-instance.
const (
	pathDefaultNI = "/openconfig-network-instance:network-instances/network-instance[name=default]"
	pathBGP       = pathDefaultNI + "/protocols/protocol[identifier=openconfig-policy-types:BGP][name=bgp]/bgp"
	pathOSPF      = pathDefaultNI + "/protocols/protocol[identifier=openconfig-policy-types:OSPF][name=ospf]/ospfv2"
)

// TestRoutingStateTree adds a constructed OSPF and BGP state to a
// configuration tree, compares the default instance with
// testdata/yang_routing_state.golden.json, and reads the contract's
// leaves by their paths.
func TestRoutingStateTree(t *testing.T) {
	s := dialecttest.Routing()
	tree := DeviceToTree(fullRoutingDevice(t))
	var def map[string]any
	for _, ni := range yang.List(at(tree, memNetInst, "network-instance")) {
		if m := ni.(map[string]any); m["name"] == defaultNI {
			def = m
		}
	}
	for _, p := range yang.List(at(def, "protocols", "protocol")) {
		m := p.(map[string]any)
		switch m["name"] {
		case protoNameBGP:
			bgpState(m, s.BGP)
		case protoNameOSPF:
			ospfState(m, s.OSPF)
		}
	}
	got, _ := json.MarshalIndent(def, "", "  ")
	checkGolden(t, filepath.Join("testdata", "yang_routing_state.golden.json"), string(got)+"\n")
	for path, want := range map[string]any{
		pathBGP + "/global/state/as": float64(65000),
		pathBGP + "/neighbors/neighbor[neighbor-address=10.0.12.1]/state/session-state":                                                                             "ESTABLISHED",
		pathBGP + "/neighbors/neighbor[neighbor-address=10.0.12.1]/state/peer-type":                                                                                 "EXTERNAL",
		pathBGP + "/neighbors/neighbor[neighbor-address=10.0.12.1]/config/peer-as":                                                                                  float64(65001),
		pathBGP + "/neighbors/neighbor[neighbor-address=10.0.99.9]/state/session-state":                                                                             "IDLE",
		pathBGP + "/neighbors/neighbor[neighbor-address=10.0.99.9]/state/netmcp-last-error":                                                                         "OPEN Message Error/Bad Peer AS",
		pathBGP + "/neighbors/neighbor[neighbor-address=10.0.99.9]/state/messages/received/last-notification-error-code":                                            "openconfig-bgp-types:OPEN_MESSAGE_ERROR",
		pathBGP + "/neighbors/neighbor[neighbor-address=10.0.99.9]/state/messages/received/last-notification-error-subcode":                                         "openconfig-bgp-types:BAD_PEER_AS",
		pathBGP + "/neighbors/neighbor[neighbor-address=10.255.0.3]/state/peer-type":                                                                                "INTERNAL",
		pathBGP + "/neighbors/neighbor[neighbor-address=10.0.99.8]/state/enabled":                                                                                   false,
		pathBGP + "/neighbors/neighbor[neighbor-address=10.0.12.1]/afi-safis/afi-safi[afi-safi-name=openconfig-bgp-types:IPV4_UNICAST]/state/prefixes/received":     float64(1),
		pathOSPF + "/global/state/router-id":                                                                                                                        "10.255.0.2",
		pathOSPF + "/areas/area[identifier=0.0.0.0]/interfaces/interface[id=GigabitEthernet0/0/0/1]/neighbors/neighbor[router-id=10.255.0.3]/state/adjacency-state": "openconfig-ospf-types:EXSTART",
		pathOSPF + "/areas/area[identifier=0.0.0.0]/interfaces/interface[id=GigabitEthernet0/0/0/1]/neighbors/neighbor[router-id=10.255.0.3]/state/netmcp-reason":   "MTU mismatch (local 1500, neighbour 1400)",
		pathOSPF + "/areas/area[identifier=0.0.0.0]/interfaces/interface[id=GigabitEthernet0/0/0/0]/state/network-type":                                             "openconfig-ospf-types:POINT_TO_POINT_NETWORK",
		pathOSPF + "/areas/area[identifier=0.0.0.0]/interfaces/interface[id=GigabitEthernet0/0/0/0]/timers/state/dead-interval":                                     float64(40),
	} {
		v, err := yang.Get(tree, yang.MustParsePath(path))
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if v != want {
			t.Errorf("%s = %v, want %v", path, v, want)
		}
	}
}

// TestBGPErrorIdentities maps FRR's notification words to openconfig's.
func TestBGPErrorIdentities(t *testing.T) {
	for in, want := range map[string][2]string{
		"OPEN Message Error/Bad Peer AS":           {"openconfig-bgp-types:OPEN_MESSAGE_ERROR", "openconfig-bgp-types:BAD_PEER_AS"},
		"Hold Timer Expired":                       {"openconfig-bgp-types:HOLD_TIMER_EXPIRED", ""},
		"Cease/Maximum Number of Prefixes Reached": {"openconfig-bgp-types:CEASE", "openconfig-bgp-types:MAX_PRFX_REACHED"},
		"Waiting for NHT":                          {"", ""},
		"":                                         {"", ""},
	} {
		c, s := bgpErrorIdentities(in)
		if c != want[0] || s != want[1] {
			t.Errorf("%q -> %q %q, want %q %q", in, c, s, want[0], want[1])
		}
	}
}
