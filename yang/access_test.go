package yang

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestMember(t *testing.T) {
	tree := map[string]any{
		"openconfig-acl:acl": map[string]any{"acl-sets": map[string]any{"acl-set": []any{"x"}}},
		"interfaces":         map[string]any{"interface": []any{"eth0"}},
		"a:dup":              1.0, "b:dup": 2.0,
		"leaf": "v",
	}
	tests := []struct {
		name  string
		names []string
		want  any
	}{
		{"exact", []string{"leaf"}, "v"},
		{"no names", nil, tree},
		{"unqualified finds qualified", []string{"acl", "acl-sets", "acl-set"}, []any{"x"}},
		{"qualified finds itself", []string{"openconfig-acl:acl", "acl-sets"}, map[string]any{"acl-set": []any{"x"}}},
		{"qualified finds unqualified", []string{"openconfig-interfaces:interfaces", "interface"}, []any{"eth0"}},
		{"ambiguous", []string{"dup"}, nil},
		{"exact wins over ambiguity", []string{"a:dup"}, 1.0},
		{"missing", []string{"acl", "nope"}, nil},
		{"through a leaf", []string{"leaf", "x"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Member(tree, tc.names...); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Member(%q) = %v, want %v", tc.names, got, tc.want)
			}
		})
	}
	if got := Member("not an object", "x"); got != nil {
		t.Errorf("Member of a string = %v", got)
	}
}

func TestLeafAccessors(t *testing.T) {
	tests := []struct {
		v      any
		str    string
		text   string
		n      int64
		isInt  bool
		object bool
		list   bool
	}{
		{v: "eth0", str: "eth0", text: "eth0"},
		{v: "18446744073709551615", str: "18446744073709551615", text: "18446744073709551615"},
		{v: "-42", str: "-42", text: "-42", n: -42, isInt: true},
		{v: 1500.0, text: "1500", n: 1500, isInt: true},
		{v: 0.5, text: "0.5"},
		{v: json.Number("7"), text: "7", n: 7, isInt: true},
		{v: true, text: "true"},
		{v: nil},
		{v: map[string]any{}, object: true},
		{v: []any{}, list: true},
	}
	for _, tc := range tests {
		if got := String(tc.v); got != tc.str {
			t.Errorf("String(%#v) = %q, want %q", tc.v, got, tc.str)
		}
		if got := Text(tc.v); got != tc.text {
			t.Errorf("Text(%#v) = %q, want %q", tc.v, got, tc.text)
		}
		if n, ok := Int(tc.v); n != tc.n || ok != tc.isInt {
			t.Errorf("Int(%#v) = %d, %v, want %d, %v", tc.v, n, ok, tc.n, tc.isInt)
		}
		if got := Object(tc.v) != nil; got != tc.object {
			t.Errorf("Object(%#v) != nil is %v", tc.v, got)
		}
		if got := List(tc.v) != nil; got != tc.list {
			t.Errorf("List(%#v) != nil is %v", tc.v, got)
		}
	}
}

func TestEntries(t *testing.T) {
	entries := []any{map[string]any{"name": "eth0"}}
	tests := []struct {
		name string
		v    any
		want []any
	}{
		{"the list", entries, entries},
		{"its parent", map[string]any{"interface": entries}, entries},
		{"its container", map[string]any{"interfaces": map[string]any{"interface": entries}}, entries},
		{"its qualified container", map[string]any{"openconfig-interfaces:interfaces": map[string]any{"interface": entries}}, entries},
		{"qualified list", map[string]any{"openconfig-interfaces:interface": entries}, entries},
		{"no list", map[string]any{"other": entries}, nil},
		{"a leaf", "eth0", nil},
		{"nil", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Entries(tc.v, "openconfig-interfaces:interfaces", "interface"); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Entries = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNumber(t *testing.T) {
	tests := []struct {
		v    any
		want float64
		ok   bool
	}{
		{1500.0, 1500, true},
		{0.5, 0.5, true},
		{"18446744073709551615", 18446744073709551615, true},
		{"33.3", 33.3, true},
		{"-42", -42, true},
		{json.Number("7.25"), 7.25, true},
		{"1024..65535", 0, false},
		{"eth0", 0, false},
		{true, 0, false},
		{nil, 0, false},
	}
	for _, tc := range tests {
		if f, ok := Number(tc.v); f != tc.want || ok != tc.ok {
			t.Errorf("Number(%#v) = %v, %v, want %v, %v", tc.v, f, ok, tc.want, tc.ok)
		}
	}
}

func TestIdentity(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{"openconfig-bgp-types:ESTABLISHED", "ESTABLISHED"},
		{"openconfig-policy-types:STATIC", "STATIC"},
		{"ianaift:ethernetCsmacd", "ethernetCsmacd"},
		{"ACCEPT", "ACCEPT"},
		{"", ""},
		{"2001:db8::1", "2001:db8::1"},
		{"fe80::1", "fe80::1"},
		{"::ffff:10.0.0.1", "::ffff:10.0.0.1"},
		{"a:b:c", "a:b:c"},
		{"mod:", "mod:"},
		{":name", ":name"},
		{"mod:1.2", "mod:1.2"},
		{7.0, "7"},
		{nil, ""},
	}
	for _, tc := range tests {
		if got := Identity(tc.v); got != tc.want {
			t.Errorf("Identity(%#v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestLeaf(t *testing.T) {
	node := map[string]any{
		"name":   "eth0",
		"state":  map[string]any{"mtu": 9000.0, "oper-status": "UP"},
		"config": map[string]any{"mtu": 1500.0, "description": "uplink", "openconfig-vlan:tpid": "TPID_0X8100"},
	}
	tests := []struct {
		name string
		want any
	}{
		{"mtu", 9000.0},
		{"oper-status", "UP"},
		{"description", "uplink"},
		{"tpid", "TPID_0X8100"},
		{"name", "eth0"},
		{"missing", nil},
	}
	for _, tc := range tests {
		if got := Leaf(node, tc.name); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Leaf(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := Leaf("eth0", "mtu"); got != nil {
		t.Errorf("Leaf of a string = %v", got)
	}
}
