//go:build linux

package linux_test

import (
	"context"
	"fmt"

	"github.com/netmcp/netmcp/device"
	_ "github.com/netmcp/netmcp/device/linux" // registers linux://
)

// Opening this host by URL; only fixed read-only commands are accepted.
func Example() {
	drv, err := device.Open(context.Background(), "linux://", device.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(drv.Info().CLIDialect)
	_, err = drv.Exec(context.Background(), "ip link set eth0 down")
	fmt.Println(err)
	// Output:
	// linux
	// Network.ConfigIncompatible: command "ip link set eth0 down" is not supported by the linux driver (read-only commands: cat /etc/resolv.conf, ip -j -6 route, ip -j addr, ip -j link, ip -j neigh, ip -j route)
}
