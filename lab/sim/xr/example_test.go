package xr_test

import (
	"fmt"
	"time"

	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/sim/xr"
	"github.com/netmcp/netmcp/lab/topology"
)

// Example parses typed cisco-iosxr lines into a configuration, through the
// dialect's parser, and prints it as XR's running-config.
func Example() {
	c := dialect.Config{Dev: topology.Device{SoftwareVersion: "7.9.2"}, Hostname: "r2"}
	s := dialect.NewSession(&c, xr.Dialect.Parser())
	err := s.Apply([]string{
		"interface Loopback0",
		"ipv4 address 10.255.0.2/32",
		"exit",
		"router static",
		"address-family ipv4 unicast",
		"0.0.0.0/0 10.0.12.1 20",
	})
	fmt.Println("error:", err)
	fmt.Print(xr.Dialect.Render(c, time.Time{}, ""))
	// Output:
	// error: <nil>
	// Building configuration...
	// !! IOS XR Configuration 7.9.2
	// !
	// hostname r2
	// interface Loopback0
	//  ipv4 address 10.255.0.2 255.255.255.255
	// !
	// router static
	//  address-family ipv4 unicast
	//   0.0.0.0/0 10.0.12.1 20
	//  !
	// !
	// end
}
