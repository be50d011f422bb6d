package sim_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/lab/topology"
)

// TestFaultYANGGolden keeps the OSPF and BGP YANG (operational, through
// network.yang.get) of routers in a faulted state as golden files under
// testdata/fault_symptoms (rewrite with -update, and read the diff).
func TestFaultYANGGolden(t *testing.T) {
	for _, tc := range []struct {
		fault string
		reads []string // "device bgp|ospf"
	}{
		{"bgp_acl_block r2:GigabitEthernet0/0/0/0", []string{"r1 bgp", "r2 bgp"}},
		{"bgp_asn_misconfig r2 neighbor=10.0.12.1", []string{"r1 bgp", "r2 bgp"}}, // r2 sends Bad Peer AS, r1 receives it
		{"mtu_mismatch r2:GigabitEthernet0/0/0/1 mtu=1400", []string{"r2 ospf"}},
		{"ospf_area_misconfiguration r3:GigabitEthernet0/0/0", []string{"r2 ospf"}},
		{"frr_service_down r2", []string{"r1 ospf", "r1 bgp"}},
	} {
		name := strings.Fields(tc.fault)[0]
		t.Run(name, func(t *testing.T) {
			o := newOpsLab(t)
			f, err := topology.ParseFault(tc.fault)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := o.lab.Inject(f); err != nil {
				t.Fatal(err)
			}
			for _, r := range tc.reads {
				dev, proto, _ := strings.Cut(r, " ")
				path := bgpNbrs
				if proto == "ospf" {
					path = ospfAreas
				}
				var buf bytes.Buffer
				if err := json.Indent(&buf, []byte(o.yang(dev, path)), "", "  "); err != nil {
					t.Fatalf("%s %s: %v", dev, proto, err)
				}
				buf.WriteByte('\n')
				goldenCompare(t, filepath.Join("testdata", "fault_symptoms", name+"_"+dev+"_"+proto+".json"), buf.Bytes())
			}
		})
	}
}

// goldenCompare compares got with a golden file, or rewrites it under
// the package's -update flag.
func goldenCompare(t *testing.T, file string, got []byte) {
	t.Helper()
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run with -update and read the diff):\n%s", file, got)
	}
}
