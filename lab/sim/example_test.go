package sim_test

import (
	"context"
	"fmt"

	"github.com/netmcp/netmcp/lab/sim"
)

// Example starts the default lab and asks r1 the MCP-NET draft's ARP question.
func Example() {
	lab, err := sim.NewLab(sim.DefaultTopology(), sim.LabOptions{Seed: 1})
	if err != nil {
		panic(err)
	}
	defer lab.Close()
	r1, err := lab.Device("r1")
	if err != nil {
		panic(err)
	}
	out, err := r1.Exec(context.Background(), "show ip arp vrf mgmt 10.0.0.5")
	if err != nil {
		panic(err)
	}
	fmt.Println(r1.Info().CLIDialect, lab.Routers())
	fmt.Println(out)
	// Output:
	// huawei-vrp [r1 r2 r3]
	// 10.0.0.5  00:50:56:ab:cd:ef  Vlan100
}
