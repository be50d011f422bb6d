package gen_test

import (
	"fmt"
	"log"

	"github.com/netmcp/netmcp/lab/gen"
)

// A seeded hub-and-spoke network of eight routers, checked healthy in
// the simulator before use.
func Example() {
	topo, err := gen.Generate(gen.Options{Shape: gen.ShapeHubSpoke, Routers: 8, Seed: 5, Dialect: gen.DialectVRP})
	if err != nil {
		log.Fatal(err)
	}
	if err := gen.Verify(topo); err != nil {
		log.Fatal(err)
	}
	fmt.Println(topo.Name)
	fmt.Println(gen.Summarize(topo))
	// Output:
	// hub-spoke-8-s5-huawei-vrp
	// 8 routers (8 huawei-vrp) and 1 provider(s); 16 hosts on 8 LANs (5 behind a VLAN interface), 1 DNS and 1 web server(s); 28 links; 7 OSPF areas; AS 65001; 7 iBGP and 1 eBGP sessions
}
