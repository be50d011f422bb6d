package yang

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

// loadTree reads a JSON tree from testdata.
func loadTree(t testing.TB, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

func mustJSON(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return v
}

func TestGet(t *testing.T) {
	tree := loadTree(t, "running.json")
	tests := []struct {
		path string
		want string // JSON; "" = ErrNotFound
	}{
		{"/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/0']/config/mtu", `1500`},
		{"/openconfig-interfaces:interfaces/interface=GigabitEthernet0%2F0%2F0%2F0/config/description", `"to r2"`},
		{"/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/0']/subinterfaces/subinterface[index='0']/openconfig-if-ip:ipv4/addresses/address[ip='10.0.12.1']/config/prefix-length", `30`},
		{"/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/0']/subinterfaces/subinterface[index=0]/ipv6/addresses/address[ip='2001:db8:12::1']/config/prefix-length", `64`},
		{"/openconfig-interfaces:interfaces/interface[name='Vlan100']/openconfig-vlan:routed-vlan/config/vlan", `100`},
		{"/openconfig-interfaces:interfaces/interface[name='Vlan100']/routed-vlan/config/vlan", `100`},
		{"/openconfig-vlan:vlans/vlan[vlan-id='100']/config/name", `"users"`},
		{"/openconfig-vlan:vlans/vlan", `[{"vlan-id": 100, "config": {"vlan-id": 100, "name": "users", "status": "ACTIVE"}}]`},
		{"/openconfig-vlan:vlans/vlan/config/name", `[{"vlan-id": 100, "config": {"name": "users"}}]`},
		{"/openconfig-acl:acl/acl-sets/acl-set[name='BLOCK-ICMP'][type='ACL_IPV4']/acl-entries/acl-entry[sequence-id='10']/actions/config/forwarding-action", `"DROP"`},
		{"/ietf-routing:routing/control-plane-protocols/control-plane-protocol[type='ietf-routing:static'][name='static']/static-routes/ietf-ipv6-unicast-routing:ipv6/route[destination-prefix='::/0']/next-hop/outgoing-interface", `"GigabitEthernet0/0/0/0"`},
		{"/openconfig-system:system/config/hostname", `"r1"`},
		{"/openconfig-system:system/config", `{"hostname": "r1"}`},
		{"/openconfig-interfaces:interfaces/interface[name='Loopback0']", ""},
		{"/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/1']/config/mtu", ""},
		{"/openconfig-vlan:vlans/vlan/config/tpid", ""},
		{"/openconfig-bgp:bgp", ""},
		{"/ietf-interfaces:interfaces", ""},
		{"/openconfig-system:system/config/hostname/x", ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, err := Get(tree, MustParsePath(tt.path))
			if tt.want == "" {
				if !errors.Is(err, ErrNotFound) {
					t.Fatalf("Get = %v, %v; want ErrNotFound", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := mustJSON(t, tt.want); !reflect.DeepEqual(got, want) {
				t.Errorf("Get = %s, want %s", jsonText(got), jsonText(want))
			}
		})
	}
	if got, err := Get(tree, nil); err != nil || !reflect.DeepEqual(got, tree) {
		t.Errorf("Get(root) = %v, %v", got, err)
	}
}

func TestApply(t *testing.T) {
	const lo = "/openconfig-interfaces:interfaces/interface[name='Loopback100']"
	tests := []struct {
		name  string
		op    string
		path  string
		value string
		s     *Schema
		check string // path to Get after the edit
		want  string // JSON at check; "" = ErrNotFound
		err   string // error substring; the edit must fail
	}{
		{name: "merge leaf", op: "", path: "/openconfig-system:system/config/hostname", value: `"r2"`,
			check: "/openconfig-system:system/config", want: `{"hostname": "r2"}`},
		{name: "merge container keeps others", op: "merge",
			path:  "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/0']/config",
			value: `{"mtu": 9000}`,
			check: "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/0']/config",
			want:  `{"name": "GigabitEthernet0/0/0/0", "type": "iana-if-type:ethernetCsmacd", "mtu": 9000, "description": "to r2", "enabled": true}`},
		{name: "replace container drops others", op: "replace",
			path:  "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/0']/config",
			value: `{"name": "GigabitEthernet0/0/0/0", "type": "iana-if-type:ethernetCsmacd"}`,
			check: "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/0']/config",
			want:  `{"name": "GigabitEthernet0/0/0/0", "type": "iana-if-type:ethernetCsmacd"}`},
		{name: "create list entry fills keys (MCP-NET 8.4)", op: "merge", path: lo,
			value: `{"config": {"type": "iana-if-type:softwareLoopback"}, "subinterfaces": {"subinterface": [{"index": 0,
				"ipv4": {"addresses": {"address": [{"ip": "100.100.100.100", "config": {"ip": "100.100.100.100", "prefix-length": 32}}]}}}]}}`,
			check: lo + "/config", want: `{"name": "Loopback100", "type": "iana-if-type:softwareLoopback"}`},
		{name: "create entry then name member", op: "create", path: lo, value: `{}`,
			check: lo + "/name", want: `"Loopback100"`},
		{name: "create existing entry", op: "create",
			path: "/openconfig-interfaces:interfaces/interface[name='Vlan100']", value: `{}`, err: "data already exists"},
		{name: "create existing leaf", op: "create", path: "/openconfig-system:system/config/hostname", value: `"x"`, err: "data already exists"},
		{name: "create intermediate entry", op: "merge", path: lo + "/config/description", value: `"new"`,
			check: lo, want: `{"name": "Loopback100", "config": {"description": "new"}}`},
		{name: "numeric key typed", op: "merge", path: "/openconfig-vlan:vlans/vlan[vlan-id='200']", value: `{"config": {"name": "v200"}}`,
			check: "/openconfig-vlan:vlans/vlan[vlan-id='200']", want: `{"vlan-id": 200, "config": {"vlan-id": 200, "name": "v200"}}`},
		{name: "numeric key typed by schema", op: "merge", s: DefaultSchema(),
			path: "/openconfig-acl:acl/acl-sets/acl-set[name='BLOCK-ICMP'][type='ACL_IPV4']/acl-entries/acl-entry[sequence-id='20']", value: `{"config": {}}`,
			check: "/openconfig-acl:acl/acl-sets/acl-set[name='BLOCK-ICMP'][type='ACL_IPV4']/acl-entries/acl-entry[sequence-id='20']", want: `{"sequence-id": 20, "config": {"sequence-id": 20}}`},
		{name: "key contradicts path", op: "merge", path: lo, value: `{"name": "Loopback200"}`, err: `key name is "Loopback200" in the value but "Loopback100" in the path`},
		{name: "config key contradicts path", op: "merge", path: lo, value: `{"config": {"name": "Lo2"}}`, err: "key name is"},
		{name: "entry not an object", op: "merge", path: lo, value: `"x"`, err: "must be an object"},
		{name: "merge list by keys", op: "merge", path: "/openconfig-vlan:vlans",
			value: `{"vlan": [{"vlan-id": 100, "config": {"name": "staff"}}, {"vlan-id": 300, "config": {"vlan-id": 300}}]}`,
			check: "/openconfig-vlan:vlans/vlan",
			want:  `[{"vlan-id": 100, "config": {"vlan-id": 100, "name": "staff", "status": "ACTIVE"}}, {"vlan-id": 300, "config": {"vlan-id": 300}}]`},
		{name: "merge root", op: "merge", path: "/",
			value: `{"openconfig-vlan:vlans": {"vlan": [{"vlan-id": 100, "config": {"status": "SUSPENDED"}}]}}`,
			check: "/openconfig-vlan:vlans/vlan[vlan-id='100']/config/status", want: `"SUSPENDED"`},
		{name: "replace root", op: "replace", path: "/", value: `{"openconfig-system:system": {"config": {"hostname": "x"}}}`,
			check: "/openconfig-vlan:vlans", want: ""},
		{name: "delete entry", op: "delete", path: "/openconfig-interfaces:interfaces/interface[name='Vlan100']",
			check: "/openconfig-interfaces:interfaces/interface[name='Vlan100']", want: ""},
		{name: "delete leaf", op: "delete", path: "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/0']/config/mtu",
			check: "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/0']/config/mtu", want: ""},
		{name: "delete last entry prunes list", op: "delete", path: "/openconfig-vlan:vlans/vlan[vlan-id='100']",
			check: "/openconfig-vlan:vlans", want: ""},
		{name: "delete missing entry", op: "delete", path: lo, err: "no data at path"},
		{name: "delete missing leaf", op: "delete", path: "/openconfig-system:system/config/domain-name", err: "no data at path"},
		{name: "delete under missing container", op: "delete", path: "/openconfig-bgp:bgp/global", err: "no data at path"},
		{name: "remove missing", op: "remove", path: lo + "/config",
			check: "/openconfig-system:system/config/hostname", want: `"r1"`},
		{name: "remove present", op: "remove", path: "/openconfig-system:system/config/hostname",
			check: "/openconfig-system:system/config/hostname", want: ""},
		{name: "delete root", op: "delete", path: "/", check: "/openconfig-system:system", want: ""},
		{name: "bad op", op: "upsert", path: lo, err: `unknown edit operation "upsert"`},
		{name: "through keyless list", op: "merge", path: "/openconfig-vlan:vlans/vlan/config/name", value: `"x"`, err: "without keys"},
		{name: "below a leaf", op: "merge", path: "/openconfig-system:system/config/hostname/x", value: `"x"`, err: "is a leaf"},
		{name: "augment qualified", op: "merge",
			path:  "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/1']/openconfig-vlan:switched-vlan/config/access-vlan",
			value: `100`,
			check: "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/1']",
			want:  `{"name": "GigabitEthernet0/0/0/1", "config": {"name": "GigabitEthernet0/0/0/1", "type": "iana-if-type:ethernetCsmacd", "enabled": true}, "openconfig-vlan:switched-vlan": {"config": {"access-vlan": 100}}}`},
		{name: "if-ip written bare", op: "merge",
			path:  "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/1']/subinterfaces/subinterface[index='0']/openconfig-if-ip:ipv4/addresses/address[ip='10.1.1.1']/config",
			value: `{"prefix-length": 24}`,
			check: "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/1']/subinterfaces",
			want:  `{"subinterface": [{"index": 0, "ipv4": {"addresses": {"address": [{"ip": "10.1.1.1", "config": {"prefix-length": 24}}]}}}]}`},
		{name: "restconf key with schema", op: "merge", s: DefaultSchema(),
			path: "/ietf-interfaces:interfaces/interface=eth0/description", value: `"uplink"`,
			check: "/ietf-interfaces:interfaces/interface[name='eth0']", want: `{"name": "eth0", "description": "uplink"}`},
		{name: "unknown list keys cannot create", op: "merge", path: "/openconfig-bgp:bgp/neighbors/neighbor=1.1.1.1/config", value: `{}`,
			err: "key names are unknown"},
		{name: "replace entry drops members", op: "replace", path: "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/0']",
			value: `{"config": {"type": "iana-if-type:ethernetCsmacd"}}`,
			check: "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/0']",
			want:  `{"name": "GigabitEthernet0/0/0/0", "config": {"name": "GigabitEthernet0/0/0/0", "type": "iana-if-type:ethernetCsmacd"}}`},
		{name: "leaf-list instance create typed by schema", op: "create", s: DefaultSchema(),
			path:  "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/2']/openconfig-vlan:switched-vlan/config/trunk-vlans[.='300']",
			check: "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/2']/openconfig-vlan:switched-vlan/config/trunk-vlans", want: `[300]`},
		{name: "leaf-list value contradicts path", op: "merge", value: `"400"`,
			path: "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/2']/openconfig-vlan:switched-vlan/config/trunk-vlans[.='300']",
			err:  "differs from the path"},
		{name: "leaf-list merge unites", op: "merge",
			path:  "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/2']/openconfig-vlan:switched-vlan/config/trunk-vlans",
			value: `[100, 200]`,
			check: "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/2']/openconfig-vlan:switched-vlan/config/trunk-vlans", want: `[100, 200]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree := loadTree(t, "running.json")
			before := Clone(tree)
			var value any
			if tt.value != "" {
				value = mustJSON(t, tt.value)
			}
			valueBefore := Clone(value)
			out, err := Apply(tree, tt.op, MustParsePath(tt.path), value, tt.s)
			if !reflect.DeepEqual(tree, before) {
				t.Fatal("Apply modified its input tree")
			}
			if !reflect.DeepEqual(value, valueBefore) {
				t.Fatal("Apply modified its input value")
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Apply error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := Get(out, MustParsePath(tt.check))
			if tt.want == "" {
				if !errors.Is(err, ErrNotFound) {
					t.Fatalf("after Apply, Get(%s) = %s, %v; want ErrNotFound", tt.check, jsonText(got), err)
				}
				return
			}
			if err != nil {
				t.Fatalf("after Apply, Get(%s): %v", tt.check, err)
			}
			if want := mustJSON(t, tt.want); !reflect.DeepEqual(got, want) {
				t.Errorf("after Apply, Get(%s) =\n%s\nwant\n%s", tt.check, jsonText(got), jsonText(want))
			}
			// A second, independent edit of the output must not show in the input.
			if _, err := Apply(out, "merge", MustParsePath("/openconfig-system:system/config/hostname"), "zz", nil); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tree, before) {
				t.Fatal("editing Apply's output changed its input")
			}
		})
	}
}

func TestApplyErrorsAreTyped(t *testing.T) {
	tree := loadTree(t, "running.json")
	_, err := Apply(tree, "delete", MustParsePath("/openconfig-vlan:vlans/vlan[vlan-id='999']"), nil, nil)
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("delete missing: %v, want ErrNotFound", err)
	}
	_, err = Apply(tree, "create", MustParsePath("/openconfig-vlan:vlans/vlan[vlan-id='100']"), map[string]any{}, nil)
	if !errors.Is(err, ErrExists) {
		t.Errorf("create existing: %v, want ErrExists", err)
	}
}

func TestNormalizeAndClone(t *testing.T) {
	type cfg struct {
		Name string `json:"name"`
		MTU  int    `json:"mtu"`
	}
	got, err := Normalize(map[string]any{"a": []any{1, int64(2), cfg{"x", 9000}}, "b": true, "c": nil})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": []any{1.0, 2.0, map[string]any{"name": "x", "mtu": 9000.0}}, "b": true, "c": nil}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Normalize = %#v", got)
	}
	if _, err := Normalize(map[string]any{"f": func() {}}); err == nil {
		t.Error("Normalize(func) succeeded")
	}
	orig := map[string]any{"l": []any{map[string]any{"k": "v"}}}
	c := Clone(orig).(map[string]any)
	c["l"].([]any)[0].(map[string]any)["k"] = "changed"
	if orig["l"].([]any)[0].(map[string]any)["k"] != "v" {
		t.Error("Clone shares nested maps")
	}
}

// FuzzApply checks that Apply never panics nor changes its input, whatever
// the path, operation and value, and that a successful result validates or
// fails with a *netproto.Error.
func FuzzApply(f *testing.F) {
	f.Add("/openconfig-interfaces:interfaces/interface[name='Loopback100']", uint8(0), `{"config": {"mtu": 1500}}`)
	f.Add("/openconfig-vlan:vlans/vlan=100/config", uint8(1), `{"name": "x"}`)
	f.Add("/openconfig-vlan:vlans", uint8(2), `{"vlan": [{"vlan-id": 1}]}`)
	f.Add("/openconfig-acl:acl/acl-sets/acl-set[name='BLOCK-ICMP'][type='ACL_IPV4']", uint8(3), ``)
	f.Add("/", uint8(4), `{}`)
	f.Add("/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/2']/openconfig-vlan:switched-vlan/config/trunk-vlans[.='7']", uint8(0), ``)
	ops := []string{"merge", "replace", "create", "delete", "remove", ""}
	base := loadTree(f, "running.json")
	f.Fuzz(func(t *testing.T, path string, op uint8, value string) {
		p, err := ParsePath(path)
		if err != nil {
			return
		}
		var v any
		if value != "" {
			if json.Unmarshal([]byte(value), &v) != nil {
				return
			}
		}
		tree := Clone(base).(map[string]any)
		out, err := Apply(tree, ops[int(op)%len(ops)], p, v, DefaultSchema())
		if !reflect.DeepEqual(tree, base) {
			t.Fatal("Apply changed its input")
		}
		if err != nil {
			return
		}
		_ = DefaultSchema().Validate(out)
		_ = Diff(base, out, DefaultSchema())
		_, _ = Get(out, p)
	})
}
