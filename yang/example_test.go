package yang_test

import (
	"fmt"

	"github.com/netmcp/netmcp/yang"
)

// Example parses a path of the MCP-NET draft, adds a loopback interface to
// a running configuration, validates the result and lists the changes.
func Example() {
	running := map[string]any{
		"openconfig-system:system": map[string]any{"config": map[string]any{"hostname": "r1"}},
	}
	p, err := yang.ParsePath("/openconfig-interfaces:interfaces/interface[name='Loopback100']")
	if err != nil {
		fmt.Println(err)
		return
	}
	s := yang.DefaultSchema()
	candidate, err := yang.Apply(running, "merge", p, map[string]any{
		"config": map[string]any{"type": "iana-if-type:softwareLoopback", "mtu": 1500},
	}, s)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("valid:", s.Validate(candidate) == nil)
	for _, c := range yang.Diff(running, candidate, s) {
		fmt.Println(c.Op, c.Path)
	}
	mtu, _ := yang.Get(candidate, append(p, yang.PathElem{Name: "config"}, yang.PathElem{Name: "mtu"}))
	fmt.Println("mtu:", mtu)

	// A VLAN beyond the platform's limit is the error of MCP-NET 7.2.
	bad, _ := yang.Apply(candidate, "merge", yang.MustParsePath("/openconfig-vlan:vlans/vlan=4095"), map[string]any{}, s)
	fmt.Println(s.Validate(bad))
	// Output:
	// valid: true
	// add /openconfig-interfaces:interfaces
	// mtu: 1500
	// Network.ConfigIncompatible: VLAN 4095 > maximum 4094 (path /openconfig-vlan:vlans/vlan/config/vlan-id)
}

// ExampleParsePath shows the accepted forms and the canonical one.
func ExampleParsePath() {
	for _, s := range []string{
		"/ietf-interfaces:interfaces/interface=eth0",
		`/openconfig-interfaces:interfaces/interface[name="TenGigE0/0/0/0"]/config/mtu`,
		"/openconfig-vlan:vlans/vlan/config/vlan-id",
	} {
		p, _ := yang.ParsePath(s)
		fmt.Println(p, "|", p.SchemaString())
	}
	_, err := yang.ParsePath("/openconfig-interfaces:interfaces/interface[name='Lo")
	fmt.Println(err)
	// Output:
	// /ietf-interfaces:interfaces/interface[name='eth0'] | /ietf-interfaces:interfaces/interface
	// /openconfig-interfaces:interfaces/interface[name='TenGigE0/0/0/0']/config/mtu | /openconfig-interfaces:interfaces/interface/config/mtu
	// /openconfig-vlan:vlans/vlan/config/vlan-id | /openconfig-vlan:vlans/vlan/config/vlan-id
	// yang: path "/openconfig-interfaces:interfaces/interface[name='Lo": unterminated quoted value at offset 43
}

// ExampleUnifiedDiff shows a configuration change as a unified diff.
func ExampleUnifiedDiff() {
	a := map[string]any{"openconfig-system:system": map[string]any{"config": map[string]any{"hostname": "r1"}}}
	b, _ := yang.Apply(a, "merge", yang.MustParsePath("/openconfig-system:system/config/hostname"), "core-1", nil)
	fmt.Print(yang.UnifiedDiff(a, b, "running", "candidate"))
	// Output:
	// --- running
	// +++ candidate
	// @@ -1,7 +1,7 @@
	//  {
	//    "openconfig-system:system": {
	//      "config": {
	// -      "hostname": "r1"
	// +      "hostname": "core-1"
	//      }
	//    }
	//  }
}
