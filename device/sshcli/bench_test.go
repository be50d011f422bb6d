package sshcli_test

import (
	"context"
	"testing"

	"github.com/netmcp/netmcp/device"
)

// BenchmarkFRRGetInterfaces is network.yang.get of the interfaces tree
// through the driver against vtysh behind OpenSSH (one "show interface
// json" round trip plus parsing).
func BenchmarkFRRGetInterfaces(b *testing.B) {
	l := newFRRLab(b)
	drv := openFRR(b, l)
	ctx := context.Background()
	for b.Loop() {
		if _, err := drv.Get(ctx, device.Operational, "/ietf-interfaces:interfaces"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFRRExec is one show command over the open session.
func BenchmarkFRRExec(b *testing.B) {
	l := newFRRLab(b)
	drv := openFRR(b, l)
	ctx := context.Background()
	for b.Loop() {
		if _, err := drv.Exec(ctx, "show version"); err != nil {
			b.Fatal(err)
		}
	}
}
