package netconf

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/drivertest"
)

// TestConformance runs the shared driver table against netconfd: YANG
// (with the openconfig-interfaces view), a Configurer, remote calls. The
// round trip edits ietf-interfaces (the view is read-only).
func TestConformance(t *testing.T) {
	l := startLab(t)
	caps := drivertest.Capabilities{YANG: true, Configurer: true, Remote: true,
		Edit: func(ifName string) device.Edit {
			return device.Edit{Operation: device.OpMerge,
				Path:  fmt.Sprintf("/ietf-interfaces:interfaces/interface[name='%s']/description", ifName),
				Value: "netmcp drivertest " + time.Now().UTC().Format("150405.000")}
		}}
	drivertest.Run(t, caps, func(t *testing.T) device.Driver {
		d, err := device.Open(context.Background(), l.url(), device.Options{})
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		return d
	})
}
