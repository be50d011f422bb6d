package yang

import (
	"errors"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/netproto"
)

const (
	testDefaultNI = "/openconfig-network-instance:network-instances/network-instance[name='default']"
	testBGP       = testDefaultNI + "/protocols/protocol[identifier='openconfig-policy-types:BGP'][name='bgp']/bgp"
	testOSPF      = testDefaultNI + "/protocols/protocol[identifier='openconfig-policy-types:OSPF'][name='ospf']/ospfv2"
)

// TestRoutingSchemaPaths checks that the OSPF and BGP paths of the shared
// contract (COMMON.md), config and state, are nodes of the schema.
func TestRoutingSchemaPaths(t *testing.T) {
	nbr := testBGP + "/neighbors/neighbor[neighbor-address='10.0.12.1']"
	oif := testOSPF + "/areas/area[identifier='0.0.0.0']/interfaces/interface[id='Gi0']"
	for _, p := range []string{
		testBGP + "/global/config/as", testBGP + "/global/config/router-id", testBGP + "/global/state/as", testBGP + "/global/state/router-id",
		nbr + "/config/neighbor-address", nbr + "/config/peer-as", nbr + "/config/description", nbr + "/config/enabled", nbr + "/config/auth-password",
		nbr + "/state/neighbor-address", nbr + "/state/peer-as", nbr + "/state/local-as", nbr + "/state/peer-type",
		nbr + "/state/session-state", nbr + "/state/last-established", nbr + "/state/netmcp-last-error",
		nbr + "/state/messages/received/last-notification-error-code", nbr + "/state/messages/received/last-notification-error-subcode",
		nbr + "/afi-safis/afi-safi[afi-safi-name='openconfig-bgp-types:IPV4_UNICAST']/state/prefixes/received",
		nbr + "/afi-safis/afi-safi[afi-safi-name='openconfig-bgp-types:IPV4_UNICAST']/state/prefixes/sent",
		nbr + "/afi-safis/afi-safi[afi-safi-name='openconfig-bgp-types:IPV4_UNICAST']/state/prefixes/installed",
		testOSPF + "/global/config/router-id",
		oif + "/config/id", oif + "/config/network-type", oif + "/config/metric", oif + "/config/passive",
		oif + "/state/id", oif + "/state/network-type", oif + "/state/metric", oif + "/state/passive",
		oif + "/timers/config/hello-interval", oif + "/timers/config/dead-interval",
		oif + "/neighbors/neighbor[router-id='10.255.0.2']/state/router-id",
		oif + "/neighbors/neighbor[router-id='10.255.0.2']/state/priority",
		oif + "/neighbors/neighbor[router-id='10.255.0.2']/state/adjacency-state",
		oif + "/neighbors/neighbor[router-id='10.255.0.2']/state/netmcp-reason",
		testDefaultNI + "/table-connections/table-connection[src-protocol='openconfig-policy-types:DIRECTLY_CONNECTED'][dst-protocol='openconfig-policy-types:BGP'][address-family='openconfig-types:IPV4']/config/src-protocol",
	} {
		if err := DefaultSchema().Check(MustParsePath(p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if !IsSecret("auth-password") {
		t.Error("the BGP neighbour's auth-password is not a secret leaf")
	}
}

// TestRoutingValidate checks values of the OSPF and BGP configuration.
func TestRoutingValidate(t *testing.T) {
	const gi0 = "GigabitEthernet0/0/0/0"
	tests := []struct {
		name, path, value string
		detail            string // "" = valid
	}{
		{"bgp global", testBGP + "/global/config", `{"as": 65000, "router-id": "10.255.0.2"}`, ""},
		{"bgp neighbor", testBGP + "/neighbors/neighbor[neighbor-address='10.0.12.1']",
			`{"config": {"neighbor-address": "10.0.12.1", "peer-as": 65001, "enabled": false, "auth-password": "k"},
			  "transport": {"config": {"local-address": "Loopback0"}},
			  "afi-safis": {"afi-safi": [{"afi-safi-name": "openconfig-bgp-types:IPV4_UNICAST", "config": {"afi-safi-name": "openconfig-bgp-types:IPV4_UNICAST", "enabled": true},
			    "ipv4-unicast": {"prefix-limit": {"config": {"max-prefixes": 100}}}}]}}`, ""},
		{"bgp network statements", testBGP + "/global/afi-safis/afi-safi[afi-safi-name='openconfig-bgp-types:IPV4_UNICAST']/config",
			`{"afi-safi-name": "openconfig-bgp-types:IPV4_UNICAST", "netmcp-networks": ["10.3.0.0/24"]}`, ""},
		{"peer-as out of range", testBGP + "/neighbors/neighbor[neighbor-address='10.0.12.1']/config/peer-as", `4294967296`, "out of range"},
		{"bad neighbor address", testBGP + "/neighbors/neighbor[neighbor-address='10.0.12.300']/config/peer-as", `1`, "matches no member of union"},
		{"bad family", testBGP + "/global/afi-safis/afi-safi[afi-safi-name='openconfig-bgp-types:L2VPN_EVPN']/config/enabled", `true`, "not an identity"},
		{"ospf interface", testOSPF + "/areas/area[identifier='0.0.0.0']/interfaces/interface[id='" + gi0 + "']",
			`{"config": {"id": "` + gi0 + `", "network-type": "openconfig-ospf-types:POINT_TO_POINT_NETWORK", "metric": 10, "passive": false},
			  "timers": {"config": {"hello-interval": 10, "dead-interval": 40}}}`, ""},
		{"ospf second area", testOSPF + "/areas/area[identifier='0.0.0.1']/config/identifier", `"0.0.0.1"`, ""},
		{"ospf bad network type", testOSPF + "/areas/area[identifier='0.0.0.0']/interfaces/interface[id='" + gi0 + "']/config/network-type",
			`"openconfig-ospf-types:LOOPBACK"`, "not an identity"},
		{"ospf interface must exist", testOSPF + "/areas/area[identifier='0.0.0.0']/interfaces/interface[id='Tunnel9']/config/metric", `1`,
			`leafref: interface "Tunnel9" does not exist`},
		{"ospf metric range", testOSPF + "/areas/area[identifier='0.0.0.0']/interfaces/interface[id='" + gi0 + "']/config/metric", `70000`, "out of range"},
		{"redistribution", testDefaultNI + "/table-connections/table-connection[src-protocol='openconfig-policy-types:STATIC'][dst-protocol='openconfig-policy-types:OSPF'][address-family='openconfig-types:IPV4']",
			`{"config": {"src-protocol": "openconfig-policy-types:STATIC", "dst-protocol": "openconfig-policy-types:OSPF", "address-family": "openconfig-types:IPV4"}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree, err := Apply(loadTree(t, "running.json"), "merge", MustParsePath(tt.path), mustJSON(t, tt.value), nil)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			err = DefaultSchema().Validate(tree)
			if tt.detail == "" {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			var ne *netproto.Error
			if !errors.As(err, &ne) || ne.Code != netproto.CodeYangSyntaxError || !strings.Contains(ne.Detail, tt.detail) {
				t.Errorf("Validate = %v, want -32082 with %q", err, tt.detail)
			}
		})
	}
}
