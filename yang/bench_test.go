package yang

import (
	"fmt"
	"testing"
)

// bigTree returns a configuration of n interfaces, each with an address.
func bigTree(n int) map[string]any {
	ifs := make([]any, n)
	for i := range ifs {
		name := fmt.Sprintf("GigabitEthernet0/0/%d/%d", i/48, i%48)
		ip := fmt.Sprintf("10.%d.%d.1", i/256, i%256)
		ifs[i] = map[string]any{
			"name": name,
			"config": map[string]any{"name": name, "type": "iana-if-type:ethernetCsmacd",
				"mtu": 1500.0, "description": "port " + name, "enabled": true},
			"subinterfaces": map[string]any{"subinterface": []any{map[string]any{
				"index": 0.0, "config": map[string]any{"index": 0.0},
				"ipv4": map[string]any{"addresses": map[string]any{"address": []any{map[string]any{
					"ip": ip, "config": map[string]any{"ip": ip, "prefix-length": 24.0}}}}},
			}}},
		}
	}
	return map[string]any{"openconfig-interfaces:interfaces": map[string]any{"interface": ifs}}
}

func BenchmarkApply(b *testing.B) {
	tree := bigTree(1000)
	p := MustParsePath("/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/20/39']/config/mtu")
	s := DefaultSchema()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Apply(tree, "merge", p, 9000, s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDiff(b *testing.B) {
	a := bigTree(1000)
	c, err := Apply(a, "merge", MustParsePath("/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/20/39']/config/mtu"), 9000, nil)
	if err != nil {
		b.Fatal(err)
	}
	s := DefaultSchema()
	b.ReportAllocs()
	for b.Loop() {
		if n := len(Diff(a, c, s)); n != 1 {
			b.Fatalf("%d changes", n)
		}
	}
}

func BenchmarkUnifiedDiff(b *testing.B) {
	a := bigTree(1000)
	c, _ := Apply(a, "merge", MustParsePath("/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/20/39']/config/mtu"), 9000, nil)
	b.ReportAllocs()
	for b.Loop() {
		if UnifiedDiff(a, c, "a", "b") == "" {
			b.Fatal("no diff")
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	tree := bigTree(1000)
	s := DefaultSchema()
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Validate(tree); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParsePath(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParsePath("/openconfig-acl:acl/acl-sets/acl-set[name='BLOCK-ICMP'][type='ACL_IPV4']/acl-entries/acl-entry[sequence-id='10']/actions/config"); err != nil {
			b.Fatal(err)
		}
	}
}
