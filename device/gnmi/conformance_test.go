package gnmi_test

import (
	"testing"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/drivertest"
	"github.com/netmcp/netmcp/device/gnmi/gnmiserver"
)

// TestConformance runs the shared driver table against the simulator's r1
// served by netmcp's gNMI server over mutual TLS on loopback.
func TestConformance(t *testing.T) {
	l := startLab(t, gnmiserver.Options{})
	caps := drivertest.Capabilities{YANG: true, Configurer: true, Telemetry: true, Remote: true}
	drivertest.Run(t, caps, func(t *testing.T) device.Driver {
		return openURL(t, l.URL())
	})
}
