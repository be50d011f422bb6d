package sim

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/netproto"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestCLIGolden renders each dialect's commands from the default lab and
// compares them with testdata/cli_<device>_<n>.golden.
func TestCLIGolden(t *testing.T) {
	cases := []struct {
		dev  string
		cmds []string
	}{
		{"r1", []string{ // huawei-vrp
			"display interface brief", "display ip interface brief", "display interface GE0/0/0",
			"display ip routing-table", "display ip routing-table vpn-instance mgmt", "display ipv6 routing-table",
			"display arp", "display arp vpn-instance mgmt", "display vlan", "ping -c 3 10.3.0.10",
			"tracert 10.3.0.10", "display current-configuration", "display version", "display memory-usage",
			"show ip arp vrf mgmt 10.0.0.5", "dis ip int br | include up",
		}},
		{"r2", []string{ // cisco-iosxr
			"show interfaces brief", "show ipv4 interface brief", "show interfaces GigabitEthernet0/0/0/0",
			"show route", "show route ipv6", "show route 10.3.0.10", "show arp", "show arp 10.0.12.1",
			"ping 10.3.0.10 count 3", "traceroute 10.255.0.3", "show running-config", "show version",
			"show memory summary", "sh ipv4 int br",
		}},
	}
	lab, _ := newTestLab(t)
	for _, tc := range cases {
		dev := tc.dev
		d := mustDevice(t, lab, dev)
		for _, cmd := range tc.cmds {
			t.Run(dev+"/"+cmd, func(t *testing.T) {
				out, err := d.Exec(context.Background(), cmd)
				if err != nil {
					t.Fatal(err)
				}
				name := strings.NewReplacer(" ", "_", "/", "-", "|", "pipe").Replace(cmd)
				golden := filepath.Join("testdata", "cli_"+dev+"_"+name+".golden")
				if *update {
					if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test -update)", err)
				}
				if out != string(want) {
					t.Errorf("output differs from %s\n--- got:\n%s\n--- want:\n%s", golden, out, want)
				}
			})
		}
	}
}

// TestExecErrors checks the -32084 errors of unknown and configuration commands.
func TestExecErrors(t *testing.T) {
	lab, _ := newTestLab(t)
	tests := []struct {
		dev, cmd string
		detail   []string
	}{
		{"r1", "show tech-support", []string{`"show tech-support"`, "huawei-vrp"}},
		{"r2", "display version", []string{`"display version"`, "cisco-iosxr"}},
		{"r1", "interface GigabitEthernet0/0/0", []string{"network.cli.configure"}},
		{"r2", "hostname x", []string{"network.cli.configure"}},
		{"r2", "configure terminal", []string{"network.cli.configure"}},
		{"r1", "display interface Nope9", []string{"Nope9", "huawei-vrp"}},
		{"r2", "show interfaces Nope9", []string{"Nope9", "cisco-iosxr"}},
		{"r1", "ping 10.0.0.5; reboot", []string{"one command"}},
		{"r2", "show route vrf nope", []string{"nope"}},
	}
	for _, tc := range tests {
		t.Run(tc.dev+"/"+tc.cmd, func(t *testing.T) {
			_, err := mustDevice(t, lab, tc.dev).Exec(context.Background(), tc.cmd)
			if codeOf(err) != netproto.CodeConfigIncompatible {
				t.Fatalf("err = %v, want -32084", err)
			}
			for _, p := range tc.detail {
				if !strings.Contains(err.Error(), p) {
					t.Errorf("error %q lacks %q", err, p)
				}
			}
		})
	}
}
