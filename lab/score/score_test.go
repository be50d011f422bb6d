package score

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/lab/topology"
)

func TestOf(t *testing.T) {
	ans := func(devs, names []string) Answer {
		return Answer{IsAnomaly: len(names) > 0, FaultyDevices: devs, RootCauseName: names}
	}
	cases := []struct {
		ans     Answer
		truth   Truth
		det     bool
		loc, rc float64
	}{
		{ans(nil, nil), Truth{}, true, 1, 1},
		{ans([]string{"r1"}, []string{"link_down"}), Truth{}, false, 0, 0},
		{ans([]string{"r1", "r2"}, []string{"link_down"}), Truth{Devices: []string{"r1", "r2"}, Names: []string{"link_down"}}, true, 1, 1},
		{ans([]string{"r1"}, []string{"link_down"}), Truth{Devices: []string{"r1", "r2"}, Names: []string{"link_down"}}, true, 2.0 / 3, 1},
		{ans([]string{"r3"}, []string{"mtu_mismatch"}), Truth{Devices: []string{"r2"}, Names: []string{"link_down"}}, true, 0, 0},
		{ans(nil, nil), Truth{Devices: []string{"r2"}, Names: []string{"link_down"}}, false, 0, 0},
	}
	for i, c := range cases {
		s := Of(c.ans, c.truth)
		if s.Detection != c.det || math.Abs(s.Localization-c.loc) > 1e-9 || math.Abs(s.RootCause-c.rc) > 1e-9 {
			t.Errorf("case %d: %+v, want %v %v %v", i, s, c.det, c.loc, c.rc)
		}
	}
}

func TestFaultDevices(t *testing.T) {
	topo := topology.Topology{Links: []topology.Link{
		{A: "r1:eth0", B: "r2:eth0"},
		{A: "r2:eth1", B: "r3:eth0"},
	}}
	cases := []struct {
		fault string
		want  []string
	}{
		{"link_down r2:eth1", []string{"r2", "r3"}},
		{"link_down r1:eth0", []string{"r1", "r2"}},
		{"mtu_mismatch r3:eth0", []string{"r3"}},
		{"host_crash h3", []string{"h3"}},
	}
	for _, c := range cases {
		f, err := topology.ParseFault(c.fault)
		if err != nil {
			t.Fatal(err)
		}
		if got := FaultDevices(topo, f); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.fault, got, c.want)
		}
	}
}

func TestWriteTable(t *testing.T) {
	var b strings.Builder
	WriteTable(&b, []Row{
		{Fault: "healthy", Score: Score{Detection: true, Localization: 1, RootCause: 1}, Answer: Answer{}, ElapsedMS: 20, Calls: 30},
		{Fault: "link_down r1:eth0", Score: Score{Detection: true, Localization: 1, RootCause: 1},
			Answer: Answer{IsAnomaly: true, FaultyDevices: []string{"r1", "r2"}, RootCauseName: []string{"link_down"}}, ElapsedMS: 40, Calls: 34},
	})
	for _, want := range []string{"link_down @ r1,r2", "mean", "median 30 ms, max 40 ms; MCP calls: median 32, max 34"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table has no %q:\n%s", want, b.String())
		}
	}
}
