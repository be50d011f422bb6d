package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/netmcp/netmcp/lab/sim"
)

// TestLabGen: `lab gen` writes a healthy network that the lab's topology
// loader reads, the same bytes for the same options, another network for
// another seed; bad options exit 2 and write nothing.
func TestLabGen(t *testing.T) {
	dir := t.TempDir()
	gen := func(name string, args ...string) []byte {
		t.Helper()
		file := filepath.Join(dir, name)
		if _, err := runRootSplit(t, append([]string{"lab", "gen", "-o", file}, args...)...); err != nil {
			t.Fatalf("lab gen %v: %v", args, err)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a := gen("a.yaml", "--shape", "multi-as", "--routers", "6", "--seed", "7")
	b := gen("b.yaml", "--shape", "multi-as", "--routers", "6", "--seed", "7")
	c := gen("c.yaml", "--shape", "multi-as", "--routers", "6", "--seed", "8")
	if string(a) != string(b) {
		t.Error("the same options gave two different networks")
	}
	if string(a) == string(c) {
		t.Error("another seed gave the same network")
	}
	topo, err := sim.ParseTopology(a)
	if err != nil {
		t.Fatalf("the lab cannot read the generated network: %v", err)
	}
	if len(topo.Devices) < 6 {
		t.Fatalf("%d devices, want at least the 6 routers", len(topo.Devices))
	}
	for _, bad := range [][]string{{"--shape", "blob"}, {"--routers", "2"}, {"--routers", "61"}} {
		_, err := runRootSplit(t, append([]string{"lab", "gen", "-o", filepath.Join(dir, "bad.yaml")}, bad...)...)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != 2 {
			t.Errorf("lab gen %v: %v, want exit 2", bad, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.yaml")); err == nil {
		t.Error("a refused lab gen wrote its output file")
	}
}
