package configstore

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestOnDiskFormat pins the state directory's format: a later version must
// still read what an earlier one wrote after a crash.
func TestOnDiskFormat(t *testing.T) {
	dir := t.TempDir()
	e := newEnv(t, dir)
	e.edit(alice, vlanEdit(100, "users"))
	id := e.commit(alice, device.CommitOptions{Comment: "add vlan 100"}).CommitID
	e.clk.Advance(time.Minute)
	e.edit(bob, hostnameEdit("r2"))
	e.commit(bob, device.CommitOptions{Confirmed: 120})
	for _, f := range []struct{ golden, file string }{
		{"state.golden.json", filepath.Join(dir, stateFile)},
		{"history.golden.json", filepath.Join(dir, historyDir, id+".json")},
	} {
		got, err := os.ReadFile(f.file)
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", f.golden)
		if *update {
			os.MkdirAll("testdata", 0o755)
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s:\n%s", f.file, golden, got)
		}
	}
	// The golden state reads back.
	e.reopen()
	if p, ok := e.s.Pending(); !ok || p.Owner != bob || e.hostname() != "r2" {
		t.Fatalf("reopened: pending %+v %v hostname %q", p, ok, e.hostname())
	}
}
