package sim

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestRoutingCLIGolden runs the OSPF and BGP commands on the default lab
// (r1 huawei-vrp, r2 cisco-iosxr) and compares them with
// testdata/cli_<device>_<command>.golden.
// The default lab's sessions are Established and its adjacencies Full
// (TestRoutingCLIHealthy asserts it without the goldens).
func TestRoutingCLIGolden(t *testing.T) {
	cases := map[string][]string{
		"r1": {"display bgp peer", "display bgp peer 10.0.12.2 verbose", "display bgp routing-table", "display ospf peer",
			"display ospf peer brief", "display ospf interface"},
		"r2": {"show bgp summary", "show bgp neighbor", "show bgp neighbor 10.0.12.1", "show bgp", "show ospf neighbor",
			"show ospf interface brief", "show route bgp", "show route ospf"},
	}
	lab, _ := newTestLab(t)
	for dev, cmds := range cases {
		d := mustDevice(t, lab, dev)
		for _, cmd := range cmds {
			t.Run(dev+"/"+cmd, func(t *testing.T) {
				out, err := d.Exec(context.Background(), cmd)
				if err != nil {
					t.Fatal(err)
				}
				name := strings.NewReplacer(" ", "_", "/", "-", "|", "pipe").Replace(cmd)
				checkGolden(t, filepath.Join("testdata", "cli_"+dev+"_"+name+".golden"), out)
			})
		}
	}
}

// TestRoutingCLIHealthy: on the default lab, the show commands of both
// dialects report every BGP session Established and every OSPF adjacency
// Full, as the model computes them.
func TestRoutingCLIHealthy(t *testing.T) {
	lab, _ := newTestLab(t)
	ctx := context.Background()
	for _, c := range []struct {
		dev, cmd string
		want     []string
	}{
		{"r1", "display bgp peer", []string{"10.0.12.2", "Established"}},
		{"r1", "display ospf peer brief", []string{"10.255.0.2", "Full"}},
		{"r2", "show bgp summary", []string{"10.0.12.1", "10.255.0.3"}},
		{"r2", "show ospf neighbor", []string{"10.255.0.1", "10.255.0.3", "FULL"}},
	} {
		out, err := mustDevice(t, lab, c.dev).Exec(ctx, c.cmd)
		if err != nil {
			t.Fatalf("%s %q: %v", c.dev, c.cmd, err)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s %q lacks %q:\n%s", c.dev, c.cmd, w, out)
			}
		}
	}
	for _, dev := range []string{"r1", "r2", "r3"} {
		bgp, _ := lab.Network().BGP(dev)
		for _, n := range bgp.Neighbors {
			if n.State != "Established" {
				t.Errorf("%s: BGP neighbour %s is %s (%s)", dev, n.Address, n.State, n.LastError)
			}
		}
	}
}
