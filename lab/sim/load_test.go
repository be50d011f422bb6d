package sim

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/lab/topology"
)

// TestDefaultTopology checks the facts of the embedded lab.
func TestDefaultTopology(t *testing.T) {
	topo := DefaultTopology()
	byName := map[string]topology.Device{}
	for _, d := range topo.Devices {
		byName[d.Name] = d
	}
	r1 := byName["r1"]
	if r1.Dialect != DialectVRP || byName["r2"].Dialect != DialectXR || byName["h1"].Kind != topology.KindHost || byName["h3"].Kind != topology.KindHost {
		t.Errorf("kinds and dialects wrong: %+v", topo.Devices)
	}
	if len(r1.Users) == 0 || len(r1.SNMPCommunities) == 0 || len(r1.Crashes) != 1 || len(r1.Slots) < 2 || len(r1.ACLs) != 1 {
		t.Errorf("r1 lacks users, communities, slots, crash or ACL")
	}
	for _, it := range r1.Interfaces {
		if it.IngressACL != "" || it.EgressACL != "" {
			t.Errorf("the ACL is applied on %s; it must be defined but not applied", it.Name)
		}
	}
	lab, err := NewLab(topo, LabOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer lab.Close()
	if got := lab.Routers(); !slices.Equal(got, []string{"r1", "r2", "r3"}) {
		t.Errorf("Routers = %v", got)
	}
	// Every router reaches every loopback, over IPv4 and IPv6.
	for _, from := range lab.Routers() {
		for _, to := range []string{"10.255.0.1", "10.255.0.2", "10.255.0.3", "2001:db8:255::1", "2001:db8:255::3"} {
			if out, code := ping(t, mustDevice(t, lab, from), to, "", 1); code != 0 {
				t.Errorf("%s cannot reach %s:\n%s", from, to, out)
			}
		}
	}
}

// TestParseTopologyStrict checks that unknown fields are errors with their line.
func TestParseTopologyStrict(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown field", "name: x\ndevices:\n  - name: r1\n    colour: red\n", "line 4"},
		{"no devices", "name: x\n", "no devices"},
		{"empty", "", "empty"},
		{"two documents", "devices: [{name: a}]\n---\ndevices: [{name: b}]\n", "more than one"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTopology([]byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
	path := filepath.Join(t.TempDir(), "t.yaml")
	os.WriteFile(path, []byte("devices:\n  - name: solo\n    interfaces: [{name: Loopback0, addresses: [10.9.9.9/32]}]\n"), 0o644)
	topo, err := LoadTopology(path)
	if err != nil || topo.Devices[0].Kind != topology.KindRouter {
		t.Errorf("LoadTopology = %+v, %v", topo, err)
	}
	if _, err := LoadTopology(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Error("missing file loaded")
	}
}
