package sim

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/device"
)

// TestECMPRendering checks that every next hop of an equal-cost route
// shows, on the ring with chords of the twin check: in VRP's routing
// table (r1), IOS XR's show route (r2) and the ietf-routing RIB.
func TestECMPRendering(t *testing.T) {
	topo, err := LoadTopology("../twin/testdata/ecmp-ring.yaml")
	if err != nil {
		t.Fatal(err)
	}
	lab, err := NewLab(topo, LabOptions{Seed: 7, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer lab.Close()
	ctx := context.Background()
	tests := []struct {
		dev, cmd string
		want     []string
	}{
		{"r1", "display ip routing-table", []string{
			"     10.255.0.3/32  OSPF    110  12             RD  10.0.1.2        GigabitEthernet0/0/0\n" +
				"                    OSPF    110  12             RD  10.0.6.1        GigabitEthernet0/0/1\n" +
				"                    OSPF    110  12             RD  10.0.7.2        GigabitEthernet0/0/2\n"}},
		{"r2", "show route", []string{
			"O    10.255.0.4/32 [110/12] via 10.0.1.1, ",
			"\n                   [110/12] via 10.0.2.2, "}},
		{"r2", "show route 10.255.0.4", []string{
			"    10.0.1.1, from 10.0.1.1, via GigabitEthernet0/0/0/0\n    10.0.2.2, from 10.0.2.2, via GigabitEthernet0/0/0/1\n"}},
	}
	for _, tc := range tests {
		d, err := lab.Device(tc.dev)
		if err != nil {
			t.Fatal(err)
		}
		out, err := d.Exec(ctx, tc.cmd)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s %q lacks %q:\n%s", tc.dev, tc.cmd, w, out)
			}
		}
	}
	d, err := lab.Device("r2")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := d.Get(ctx, device.Operational, "/ietf-routing:routing")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(tree)
	want := `"next-hop":{"next-hop-list":{"next-hop":[{"index":"0","next-hop-address":"10.0.1.1","outgoing-interface":"GigabitEthernet0/0/0/0"},{"index":"1","next-hop-address":"10.0.2.2","outgoing-interface":"GigabitEthernet0/0/0/1"}]}}`
	if !strings.Contains(string(b), want) {
		t.Errorf("the RIB lacks r2's multipath route to r4 (%s)", want)
	}
}
