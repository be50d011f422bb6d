package drivertest_test

import (
	"context"
	"fmt"
	"os/exec"
	"testing"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/drivertest"
	_ "github.com/netmcp/netmcp/device/linux"
	"github.com/netmcp/netmcp/device/linux/frrtest"
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

// TestLinux runs the table against the linux driver in a network
// namespace of its own, with a veth pair and FRR running there (root
// only): a configurable linux:// device, whose round trip edits an
// interface's MTU through netlink.
func TestLinux(t *testing.T) {
	frrtest.Need(t)
	ns := "nmdrvt-" + randHex()
	if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
		t.Fatalf("ip netns add: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() })
	for _, args := range [][]string{
		{"link", "set", "lo", "up"},
		{"link", "add", "dt0", "type", "veth", "peer", "name", "dt1"},
		{"addr", "add", "198.51.100.1/30", "dev", "dt0"},
		{"link", "set", "dt0", "up"},
	} {
		if out, err := exec.Command("ip", append([]string{"-n", ns}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v: %s", args, err, out)
		}
	}
	frrtest.Start(t, ns, "ip route 192.0.2.0/26 Null0")
	caps := drivertest.Capabilities{YANG: true, Configurer: true, Telemetry: true,
		InterfacesCommand: "ip -j link", Remote: true,
		Edit: func(ifName string) device.Edit {
			return device.Edit{Operation: device.OpMerge,
				Path: fmt.Sprintf("/openconfig-interfaces:interfaces/interface[name='%s']/config/mtu", ifName), Value: 1400}
		}}
	drivertest.Run(t, caps, openURL("linux://"+ns, device.Options{}))
}
