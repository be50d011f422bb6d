package drivertest_test

import (
	"context"
	"testing"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/drivertest"
	_ "github.com/netmcp/netmcp/lab/sim"
)

// openURL opens a device by URL for one behaviour of the table.
func openURL(url string, opts device.Options) drivertest.Open {
	return func(t *testing.T) device.Driver {
		t.Helper()
		d, err := device.Open(context.Background(), url, opts)
		if err != nil {
			t.Fatalf("open %s: %v", url, err)
		}
		return d
	}
}

// TestSim runs the table against simulated devices of both dialects.
func TestSim(t *testing.T) {
	// r1 speaks huawei-vrp, r2 cisco-iosxr in the default topology; XR's
	// "brief" abbreviates names, so its full listing is used.
	for name, cmd := range map[string]string{"r1": "display interface brief", "r2": "show interfaces"} {
		caps := drivertest.Capabilities{YANG: true, Configurer: true, Telemetry: true, InterfacesCommand: cmd}
		t.Run(name, func(t *testing.T) {
			drivertest.Run(t, caps, func(t *testing.T) device.Driver {
				return openURL("sim://"+name, device.Options{StateDir: t.TempDir()})(t)
			})
		})
	}
}
