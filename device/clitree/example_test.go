package clitree_test

import (
	"fmt"

	"github.com/netmcp/netmcp/device/clitree"
)

func ExampleParse() {
	conf := []string{
		"interface eth0",
		" description uplink",
		"router ospf",
		" ospf router-id 10.255.0.1",
	}
	for _, n := range clitree.Parse(conf) {
		fmt.Println(n.Line)
		for _, k := range n.Kids {
			fmt.Println("  ->", k.Line)
		}
	}
	// Output:
	// interface eth0
	//   -> description uplink
	// router ospf
	//   -> ospf router-id 10.255.0.1
}
