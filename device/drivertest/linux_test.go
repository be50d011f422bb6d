//go:build linux

package drivertest_test

import (
	"fmt"
	"os/exec"
	"testing"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/drivertest"
	_ "github.com/netmcp/netmcp/device/linux"
	"github.com/netmcp/netmcp/device/linux/frrtest"
)

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
