package configstore

import (
	"fmt"
	"testing"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/yang"
)

// BenchmarkEditCommit measures one edit plus commit, in memory and with a
// state directory (fsyncs included).
func BenchmarkEditCommit(b *testing.B) {
	for _, mode := range []string{"memory", "disk"} {
		b.Run(mode, func(b *testing.B) {
			dir := ""
			if mode == "disk" {
				dir = b.TempDir()
			}
			s, err := Open(initialConfig(), Options{Dir: dir, Schema: yang.DefaultSchema()})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			for i := 0; b.Loop(); i++ {
				if err := s.Edit(ctx, alice, []device.Edit{hostnameEdit(fmt.Sprint("h", i))}); err != nil {
					b.Fatal(err)
				}
				if _, err := s.Commit(ctx, alice, device.CommitOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRunningView measures a read of running, in memory and with a
// state directory (which another process may change: the read checks the
// directory's generation counter first).
func BenchmarkRunningView(b *testing.B) {
	for _, mode := range []string{"memory", "disk"} {
		b.Run(mode, func(b *testing.B) {
			dir := ""
			if mode == "disk" {
				dir = b.TempDir()
			}
			s, err := Open(initialConfig(), Options{Dir: dir, Schema: yang.DefaultSchema()})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			for b.Loop() {
				if s.RunningView() == nil {
					b.Fatal("no running configuration")
				}
			}
		})
	}
}
