package vrp_test

import (
	"fmt"
	"time"

	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/sim/vrp"
	"github.com/netmcp/netmcp/lab/topology"
)

// Example parses typed huawei-vrp lines into a configuration, through the
// dialect's parser, and prints it as VRP's current-configuration.
func Example() {
	c := dialect.Config{Dev: topology.Device{SoftwareVersion: "V800R021C10"}, Hostname: "r1"}
	s := dialect.NewSession(&c, vrp.Dialect.Parser())
	err := s.Apply([]string{
		"sysname edge-1",
		"interface LoopBack0",
		"ip address 10.255.0.1 32",
		"quit",
		"ip route-static 0.0.0.0 0 10.0.12.2 preference 20",
	})
	fmt.Println("error:", err)
	fmt.Print(vrp.Dialect.Render(c, time.Time{}, ""))
	// Output:
	// error: <nil>
	// !Software Version V800R021C10
	// #
	// sysname edge-1
	// #
	// interface LoopBack0
	//  ip address 10.255.0.1 255.255.255.255
	// #
	// ip route-static 0.0.0.0 0.0.0.0 10.0.12.2 preference 20
	// #
	// return
}
