package suite_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/netmcp/netmcp/lab/gen"
	"github.com/netmcp/netmcp/lab/gen/suite"
)

// A suite of three fault names, a pair and a healthy case on one
// generated ring; each case carries its ground truth.
func Example() {
	s, err := suite.Generate(suite.Options{
		Networks: []gen.Options{{Shape: gen.ShapeRing, Routers: 6, Seed: 2}},
		Seed:     1,
		Names:    []string{"link_down", "mac_address_conflict", "ospf_area_misconfiguration"},
		Pairs:    1,
		Healthy:  1,
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range s.Cases {
		fmt.Printf("%s %q: %v %v\n", c.ID, strings.Join(c.Faults, " + "), c.Truth.FaultyDevices, c.Truth.RootCauseName)
	}
	// Output:
	// ring-6-s2/01 "link_down r1:GigabitEthernet0/0/1": [r1 r5] [link_down]
	// ring-6-s2/02 "mac_address_conflict h2 with=h4": [h2] [mac_address_conflict]
	// ring-6-s2/03 "ospf_area_misconfiguration r4:GigabitEthernet0/0/1": [r4] [ospf_area_misconfiguration]
	// ring-6-s2/04 "ospf_area_misconfiguration r4:GigabitEthernet0/0/1 + mac_address_conflict h2 with=h4": [h2 r4] [mac_address_conflict ospf_area_misconfiguration]
	// ring-6-s2/05 "": [] []
}
