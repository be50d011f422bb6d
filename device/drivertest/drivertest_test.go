package drivertest_test

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/drivertest"
	_ "github.com/netmcp/netmcp/device/linux"
	_ "github.com/netmcp/netmcp/device/sim"
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
// namespace of its own (root only).
func TestLinux(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to create a network namespace (run the tests as root, as CI does)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI is set and we are root, but ip (iproute2) is missing")
		}
		t.Skip("needs ip (apt-get install iproute2)")
	}
	ns := "nmdrvt-" + randHex()
	if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
		t.Fatalf("ip netns add: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() })
	exec.Command("ip", "-n", ns, "link", "set", "lo", "up").Run()
	caps := drivertest.Capabilities{YANG: true, Configurer: false, Telemetry: false,
		InterfacesCommand: "ip -j link", Remote: true}
	drivertest.Run(t, caps, openURL("linux://"+ns, device.Options{}))
}
