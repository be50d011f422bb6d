package yang

import (
	"errors"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/netproto"
)

func TestValidate(t *testing.T) {
	const gi0 = "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/0']"
	const vlan100 = "/openconfig-vlan:vlans/vlan[vlan-id='100']"
	tests := []struct {
		name   string
		op     string // edit applied (without schema) to testdata/running.json first
		path   string
		value  string
		code   int    // 0 = valid
		detail string // substring
		epath  string // exact error path
	}{
		{name: "data model example is valid", path: "/openconfig-system:system/config/hostname", value: `"r1"`},
		{name: "draft 8.4 loopback is valid", path: "/openconfig-interfaces:interfaces/interface[name='Loopback100']",
			value: `{"config":{"name":"Loopback100","type":"iana-if-type:softwareLoopback"},
				"subinterfaces":{"subinterface":[{"index":0,"config":{"index":0,"ipv4":{"addresses":{"address":[{"ip":"100.100.100.100","config":{"ip":"100.100.100.100","prefix-length":32}}]}}}}]}}`},
		{name: "openconfig-if-ip:ipv4 alias", path: gi0 + "/subinterfaces/subinterface[index='0']",
			value: `{"openconfig-if-ip:ipv4": {"addresses": {"address": [{"ip": "10.9.9.9", "config": {"ip": "10.9.9.9", "prefix-length": 24}}]}}}`},
		{name: "unknown top-level module", path: "/openconfig-bgp:bgp", value: `{"global": {}}`,
			code: netproto.CodeConfigIncompatible, detail: "node /openconfig-bgp:bgp is not supported on this platform", epath: "/openconfig-bgp:bgp"},
		{name: "unknown member", path: gi0 + "/config/speed", value: `"10G"`,
			code: netproto.CodeConfigIncompatible, detail: "not supported on this platform", epath: "/openconfig-interfaces:interfaces/interface/config/speed"},
		{name: "wrong JSON type string for uint16", path: gi0 + "/config/mtu", value: `"1500"`,
			code: netproto.CodeYangSyntaxError, detail: `value "1500" is a string, want a JSON number (type uint16`, epath: gi0 + "/config/mtu"},
		{name: "wrong JSON type bool", path: gi0 + "/config/enabled", value: `"yes"`,
			code: netproto.CodeYangSyntaxError, detail: "want a boolean"},
		{name: "container not an object", path: gi0 + "/config", value: `[1]`,
			code: netproto.CodeYangSyntaxError, detail: "config is a container: want a JSON object"},
		{name: "non-integral number", path: gi0 + "/config/mtu", value: `1500.5`,
			code: netproto.CodeYangSyntaxError, detail: "is not an integer"},
		{name: "uint range", path: gi0 + "/config/mtu", value: `70000`,
			code: netproto.CodeYangSyntaxError, detail: "value 70000 is out of range 0..65535 of type uint16"},
		{name: "negative uint", path: gi0 + "/config/mtu", value: `-1`,
			code: netproto.CodeYangSyntaxError, detail: "out of range 0..65535"},
		{name: "restricted range", path: gi0 + "/subinterfaces/subinterface[index='0']/ipv4/addresses/address[ip='10.0.12.1']/config/prefix-length", value: `33`,
			code: netproto.CodeYangSyntaxError, detail: "value 33 is out of range 0..32"},
		{name: "enum", path: vlan100 + "/config/status", value: `"ENABLED"`,
			code: netproto.CodeYangSyntaxError, detail: `value "ENABLED" is not one of the enumeration vlan-status: ACTIVE, SUSPENDED`},
		{name: "identity", path: gi0 + "/config/type", value: `"iana-if-type:fddi"`,
			code: netproto.CodeYangSyntaxError, detail: `value "iana-if-type:fddi" is not an identity of iana-if-type`},
		{name: "pattern", path: gi0 + "/subinterfaces/subinterface[index='0']/ipv4/addresses/address[ip='10.0.12.256']", value: `{"config": {"prefix-length": 24}}`,
			code: netproto.CodeYangSyntaxError, detail: "does not match the pattern of type inet:ipv4-address"},
		{name: "hostname pattern", path: "/openconfig-system:system/config/hostname", value: `"r1 core"`,
			code: netproto.CodeYangSyntaxError, detail: "does not match the pattern of type oc-inet:domain-name"},
		{name: "string length", path: vlan100 + "/config/name", value: `"abcdefghijabcdefghijabcdefghijabc"`,
			code: netproto.CodeYangSyntaxError, detail: "has length 33, outside 1..32", epath: vlan100 + "/config/name"},
		{name: "union", path: "/openconfig-acl:acl/acl-sets/acl-set[name='BLOCK-ICMP'][type='ACL_IPV4']/acl-entries/acl-entry[sequence-id='10']/ipv4/config/protocol", value: `"IP_FOO"`,
			code: netproto.CodeYangSyntaxError, detail: "matches no member of union ip-protocol-type"},
		{name: "union number member", path: "/openconfig-acl:acl/acl-sets/acl-set[name='BLOCK-ICMP'][type='ACL_IPV4']/acl-entries/acl-entry[sequence-id='10']/ipv4/config/protocol", value: `6`},
		{name: "missing list key", op: "replace", path: "/openconfig-vlan:vlans", value: `{"vlan": [{"config": {"name": "x"}}]}`,
			code: netproto.CodeYangSyntaxError, detail: "entry 0 of list vlan is missing its key vlan-id", epath: "/openconfig-vlan:vlans/vlan"},
		{name: "duplicate key", op: "replace", path: "/openconfig-vlan:vlans", value: `{"vlan": [{"vlan-id": 5}, {"vlan-id": 5}]}`,
			code: netproto.CodeYangSyntaxError, detail: "list vlan has two entries with the key vlan-id=5", epath: "/openconfig-vlan:vlans/vlan[vlan-id='5']"},
		{name: "key leaf differs from entry key", op: "replace", path: "/openconfig-vlan:vlans", value: `{"vlan": [{"vlan-id": 5, "config": {"vlan-id": 6}}]}`,
			code: netproto.CodeYangSyntaxError, detail: "key leaf config/vlan-id is 6 but the entry's key vlan-id is 5", epath: "/openconfig-vlan:vlans/vlan[vlan-id='5']/config/vlan-id"},
		{name: "list not an array", op: "replace", path: "/openconfig-vlan:vlans", value: `{"vlan": {"vlan-id": 5}}`,
			code: netproto.CodeYangSyntaxError, detail: "vlan is a list: want a JSON array"},
		{name: "mandatory missing", op: "remove", path: gi0 + "/config/type",
			code: netproto.CodeYangSyntaxError, detail: "mandatory leaf type is missing", epath: gi0 + "/config/type"},
		{name: "mandatory missing in absent container", path: "/openconfig-interfaces:interfaces/interface[name='Loopback1']", value: `{}`,
			code: netproto.CodeYangSyntaxError, detail: "mandatory leaf type is missing", epath: "/openconfig-interfaces:interfaces/interface[name='Loopback1']/config/type"},
		{name: "leaf-list duplicate", path: "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/2']/openconfig-vlan:switched-vlan/config/trunk-vlans", value: `[100, "100..200", 100]`,
			code: netproto.CodeYangSyntaxError, detail: "has the value 100 twice"},
		{name: "uint32 leaf", path: "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/2']/hold-time/config/up", value: `10`},
		{name: "acl interface leafref", path: "/openconfig-acl:acl/interfaces/interface[id='Ethernet9']", value: `{"config": {"id": "Ethernet9"}}`,
			code: netproto.CodeYangSyntaxError, detail: `leafref: interface "Ethernet9" does not exist`, epath: "/openconfig-acl:acl/interfaces/interface[id='Ethernet9']/id"},
		{name: "network-instance interface leafref", path: "/openconfig-network-instance:network-instances/network-instance[name='mgmt']/interfaces/interface[id='Vlan200']",
			value: `{"config": {"interface": "Vlan200"}}`,
			code:  netproto.CodeYangSyntaxError, detail: `leafref: interface "Vlan200" does not exist`,
			epath: "/openconfig-network-instance:network-instances/network-instance[name='mgmt']/interfaces/interface[id='Vlan200']/config/interface"},
		{name: "static route outgoing-interface leafref",
			path:  "/ietf-routing:routing/control-plane-protocols/control-plane-protocol[type='ietf-routing:static'][name='static']/static-routes/ietf-ipv4-unicast-routing:ipv4/route[destination-prefix='10.9.0.0/16']",
			value: `{"next-hop": {"outgoing-interface": "Tunnel7"}}`,
			code:  netproto.CodeYangSyntaxError, detail: `leafref: interface "Tunnel7" does not exist (outgoing-interface must name a configured interface)`},
		{name: "routed-vlan VLAN must exist", path: "/openconfig-interfaces:interfaces/interface[name='Vlan100']/openconfig-vlan:routed-vlan/config/vlan", value: `300`,
			code: netproto.CodeYangSyntaxError, detail: "leafref: VLAN 300 does not exist",
			epath: "/openconfig-interfaces:interfaces/interface[name='Vlan100']/openconfig-vlan:routed-vlan/config/vlan"},
		{name: "deleting a referenced interface", op: "delete", path: "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/1']",
			code: netproto.CodeYangSyntaxError, detail: `leafref: interface "GigabitEthernet0/0/0/1" does not exist`},
		{name: "subinterface leafref", path: "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/1']/subinterfaces/subinterface[index='5']", value: `{}`},
		{name: "ietf-interfaces", path: "/ietf-interfaces:interfaces/interface[name='eth0']",
			value: `{"type": "iana-if-type:ethernetCsmacd", "ietf-ip:ipv4": {"mtu": 1500, "address": [{"ip": "192.0.2.1", "prefix-length": 24}]}}`},
		{name: "ietf-ip prefix-length mandatory", path: "/ietf-interfaces:interfaces/interface[name='eth0']",
			value: `{"type": "iana-if-type:ethernetCsmacd", "ietf-ip:ipv4": {"address": [{"ip": "192.0.2.1"}]}}`,
			code:  netproto.CodeYangSyntaxError, detail: "mandatory leaf prefix-length is missing"},
		{name: "snmp community", path: "/openconfig-system:system/snmp/communities/community[name='ro']",
			value: `{"config": {"community-string": "s3cr3t", "access": "READ_ONLY"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree := loadTree(t, "running.json")
			var value any
			if tt.value != "" {
				value = mustJSON(t, tt.value)
			}
			tree, err := Apply(tree, tt.op, MustParsePath(tt.path), value, nil)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			err = DefaultSchema().Validate(tree)
			if tt.code == 0 {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			var ne *netproto.Error
			if !errors.As(err, &ne) {
				t.Fatalf("Validate = %v, want a *netproto.Error", err)
			}
			if ne.Code != tt.code || !strings.Contains(ne.Detail, tt.detail) || (tt.epath != "" && ne.Path != tt.epath) {
				t.Errorf("Validate = code %d detail %q path %q\nwant  code %d detail ~%q path %q", ne.Code, ne.Detail, ne.Path, tt.code, tt.detail, tt.epath)
			}
			if ne.Path == "" {
				t.Error("error has no path")
			}
		})
	}
}

// TestValidateVLANPlatformLimit checks the exact error of MCP-NET 7.2.
func TestValidateVLANPlatformLimit(t *testing.T) {
	for _, tc := range []struct {
		id     string
		detail string
	}{{"4095", "VLAN 4095 > maximum 4094"}, {"0", "VLAN 0 < minimum 1"}} {
		tree, err := Apply(loadTree(t, "running.json"), "merge",
			MustParsePath("/openconfig-vlan:vlans/vlan[vlan-id='"+tc.id+"']"), map[string]any{"config": map[string]any{"name": "x"}}, DefaultSchema())
		if err != nil {
			t.Fatal(err)
		}
		err = DefaultSchema().Validate(tree)
		want := &netproto.Error{Code: -32084, ErrorData: netproto.ErrorData{
			Detail: tc.detail, Path: "/openconfig-vlan:vlans/vlan/config/vlan-id", RetryPossible: false}}
		var ne *netproto.Error
		if !errors.As(err, &ne) || *ne != *want {
			t.Errorf("vlan %s: Validate = %#v, want %#v", tc.id, err, want)
		}
	}
	// Without the config container only the key leaf carries the id.
	tree, _ := Apply(loadTree(t, "running.json"), "replace", MustParsePath("/openconfig-vlan:vlans"),
		map[string]any{"vlan": []any{map[string]any{"vlan-id": 4095}}}, nil)
	var ne *netproto.Error
	if err := DefaultSchema().Validate(tree); !errors.As(err, &ne) || ne.Detail != "VLAN 4095 > maximum 4094" || ne.Code != netproto.CodeConfigIncompatible {
		t.Errorf("key-only vlan 4095: %v", err)
	}
}

func TestSchemaCheckAndListKeys(t *testing.T) {
	s := DefaultSchema()
	for _, p := range []string{
		"/openconfig-vlan:vlans/vlan/config/vlan-id",
		"/openconfig-interfaces:interfaces/interface[name='x']/subinterfaces/subinterface[index='0']/openconfig-if-ip:ipv4/addresses",
		"/openconfig-interfaces:interfaces/interface/openconfig-vlan:routed-vlan/config/vlan",
		"/ietf-interfaces:interfaces/interface=eth0/ietf-ip:ipv6/address",
		"/openconfig-system:system/aaa/authentication/users/user",
		"/",
	} {
		if err := s.Check(MustParsePath(p)); err != nil {
			t.Errorf("Check(%s) = %v", p, err)
		}
	}
	err := s.Check(MustParsePath("/openconfig-vlan:vlans/vlan[vlan-id='1']/config/tpid"))
	var ne *netproto.Error
	if !errors.As(err, &ne) || ne.Code != netproto.CodeConfigIncompatible ||
		ne.Detail != "node /openconfig-vlan:vlans/vlan/config/tpid is not supported on this platform" ||
		ne.Path != "/openconfig-vlan:vlans/vlan/config/tpid" {
		t.Errorf("Check(tpid) = %#v", err)
	}
	if err := s.Check(MustParsePath("/openconfig-interfaces:interfaces/interface/openconfig-acl:config")); err == nil {
		t.Error("Check accepted a node under the wrong module")
	}
	keys := map[string]string{
		"/openconfig-interfaces:interfaces/interface":                                                                             "name",
		"/openconfig-network-instance:network-instances/network-instance/interfaces/interface":                                    "id",
		"/openconfig-acl:acl/acl-sets/acl-set":                                                                                    "name,type",
		"/openconfig-acl:acl/interfaces/interface/ingress-acl-sets/ingress-acl-set":                                               "set-name,type",
		"/ietf-routing:routing/control-plane-protocols/control-plane-protocol":                                                    "type,name",
		"/ietf-routing:routing/control-plane-protocols/control-plane-protocol/static-routes/ietf-ipv6-unicast-routing:ipv6/route": "destination-prefix",
		"/openconfig-vlan:vlans/vlan/config":                                                                                      "",
		"/openconfig-bgp:bgp/neighbors/neighbor":                                                                                  "",
	}
	for p, want := range keys {
		if got := strings.Join(s.ListKeys(MustParsePath(p)), ","); got != want {
			t.Errorf("ListKeys(%s) = %q, want %q", p, got, want)
		}
	}
	mods := strings.Join(s.Modules(), " ")
	for _, m := range []string{"openconfig-interfaces", "openconfig-if-ip", "openconfig-vlan", "openconfig-network-instance",
		"ietf-routing", "ietf-ipv4-unicast-routing", "ietf-ipv6-unicast-routing", "openconfig-acl", "openconfig-system", "ietf-interfaces", "ietf-ip"} {
		if !strings.Contains(" "+mods+" ", " "+m+" ") {
			t.Errorf("Modules() = %s, missing %s", mods, m)
		}
	}
}
