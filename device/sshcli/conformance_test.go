package sshcli_test

import (
	"context"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/drivertest"
)

// sshCaps are the capabilities of the ssh:// driver: YANG (ietf and the
// openconfig-interfaces view parsed from show output), a Configurer whose
// round trip is the table's default edit (an openconfig description,
// translated into the dialect's CLI lines), every call reaching the
// device.
func sshCaps(interfacesCommand string) drivertest.Capabilities {
	return drivertest.Capabilities{YANG: true, Configurer: true, Remote: true, InterfacesCommand: interfacesCommand}
}

// TestConformanceSim runs the shared driver table against the simulator's
// CLIs served over real SSH (a fresh lab and server per behaviour).
func TestConformanceSim(t *testing.T) {
	tests := []struct{ device, dialect, interfacesCommand string }{
		{"r1", "huawei-vrp", "display interface brief"},
		{"r2", "cisco-iosxr", "show interfaces"},
	}
	for _, tc := range tests {
		t.Run(tc.dialect, func(t *testing.T) {
			drivertest.Run(t, sshCaps(tc.interfacesCommand), func(t *testing.T) device.Driver {
				_, _, drv := simOverSSH(t, tc.device)
				if got := drv.Info().CLIDialect; got != tc.dialect {
					t.Fatalf("%s speaks %s, want %s", tc.device, got, tc.dialect)
				}
				return drv
			})
		})
	}
}

// TestConformanceFRR runs the shared driver table against FRR's vtysh
// behind OpenSSH (root): one namespace and sshd, a fresh driver (a new
// login) per behaviour.
func TestConformanceFRR(t *testing.T) {
	l := newFRRLab(t)
	drivertest.Run(t, sshCaps("show interface brief"), func(t *testing.T) device.Driver {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		d, err := device.Open(ctx, l.url(""), device.Options{})
		if err != nil {
			t.Fatalf("open %s: %v", l.url(""), err)
		}
		return d
	})
}
