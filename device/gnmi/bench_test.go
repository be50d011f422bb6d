package gnmi_test

import (
	"context"
	"testing"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/gnmi/gnmiserver"
)

// BenchmarkGetInterfaces reads the operational interfaces tree (what
// network.yang.get of /openconfig-interfaces:interfaces does) from the
// simulator's driver directly and through the gnmi:// driver, netmcp's
// gNMI server and mutual TLS on loopback.
func BenchmarkGetInterfaces(b *testing.B) {
	l := startLab(b, gnmiserver.Options{})
	const path = "/openconfig-interfaces:interfaces"
	for _, bc := range []struct {
		name string
		drv  device.Driver
	}{
		{"sim", l.r1},
		{"gnmi", openURL(b, l.URL())},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.drv.Get(ctx, device.Operational, path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
