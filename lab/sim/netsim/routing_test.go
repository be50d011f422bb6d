package netsim

import (
	"fmt"
	"testing"

	"github.com/netmcp/netmcp/lab/topology"
)

// findRoute returns the active route of a prefix, or the first one.
func findRoute(rs []Route, prefix string) (Route, bool) {
	var found *Route
	for i := range rs {
		if rs[i].Prefix.String() == prefix {
			if rs[i].Active {
				return rs[i], true
			}
			if found == nil {
				found = &rs[i]
			}
		}
	}
	if found != nil {
		return *found, true
	}
	return Route{}, false
}

func TestRoutes(t *testing.T) {
	n := newLab(t, lineLab())
	tests := []struct {
		dev, vrf string
		family   int
		prefix   string
		proto    string
		nh       string
		ifn      string
		metric   int
		active   bool
		discard  bool
	}{
		{"r1", "", 4, "10.0.12.0/30", "direct", "invalid IP", g0, 0, true, false},
		{"r1", "", 4, "3.3.3.3/32", "igp", "10.0.12.2", g0, 20, true, false},
		{"r1", "", 4, "10.0.3.0/24", "igp", "10.0.12.2", g0, 20, true, false}, // passive interfaces are advertised
		{"r3", "", 4, "10.0.1.0/24", "igp", "10.0.23.1", g0, 20, true, false},
		{"r1", "", 6, "2001:db8::3/128", "igp", "2001:db8:12::2", g0, 20, true, false},
		{"r3", "", 4, "10.99.0.0/16", "static", "2.2.2.2", g0, 0, true, false},     // resolved through the IGP route to 2.2.2.2
		{"r3", "", 4, "10.98.0.0/16", "static", "10.200.0.1", "", 0, false, false}, // next hop unreachable
		{"r2", "", 4, "10.99.0.0/16", "static", "invalid IP", "", 0, true, true},
		{"h1", "", 4, "0.0.0.0/0", "static", "10.0.1.1", "eth0", 0, true, false},
		{"r3", "cust", 4, "192.168.0.0/24", "direct", "invalid IP", g2, 0, true, false},
	}
	for _, tc := range tests {
		rs, err := n.Routes(tc.dev, tc.vrf, tc.family)
		if err != nil {
			t.Fatal(err)
		}
		r, ok := findRoute(rs, tc.prefix)
		if !ok {
			t.Errorf("%s vrf %q: no route %s in %+v", tc.dev, tc.vrf, tc.prefix, rs)
			continue
		}
		if r.Protocol != tc.proto || r.NextHop.String() != tc.nh || r.Interface != tc.ifn || r.Metric != tc.metric ||
			r.Active != tc.active || r.Discard != tc.discard {
			t.Errorf("%s %s = %+v, want %s via %s %s metric %d active %v discard %v", tc.dev, tc.prefix, r,
				tc.proto, tc.nh, tc.ifn, tc.metric, tc.active, tc.discard)
		}
	}
	// VRFs stay apart and the IGP does not carry them.
	glob, _ := n.Routes("r1", "", 4)
	if _, ok := findRoute(glob, "192.168.0.0/24"); ok {
		t.Error("VRF prefix leaked into r1's global table")
	}
	cust, _ := n.Routes("r3", "cust", 4)
	if _, ok := findRoute(cust, "10.0.23.0/30"); ok {
		t.Error("global prefix leaked into VRF cust")
	}
	if _, err := n.Routes("r3", "nope", 4); err == nil {
		t.Error("unknown VRF accepted")
	}
	if _, err := n.Routes("r3", "", 5); err == nil {
		t.Error("family 5 accepted")
	}
}

func TestStaticBeatsIGP(t *testing.T) {
	topo := lineLab()
	for i := range topo.Devices {
		if topo.Devices[i].Name == "r1" {
			topo.Devices[i].Routes = []topology.StaticRoute{{Prefix: "3.3.3.3/32", Interface: g2},
				{Prefix: "3.3.3.3/32", NextHop: "10.0.12.2", Distance: 5}}
		}
	}
	n := newLab(t, topo)
	rs, _ := n.Routes("r1", "", 4)
	var got []string
	for _, r := range rs {
		if r.Prefix.String() == "3.3.3.3/32" {
			got = append(got, fmt.Sprintf("%s/%d/%v", r.Protocol, r.Preference, r.Active))
		}
	}
	// The interface static's interface is down (no link): inactive; the
	// distance-5 static beats the IGP's 110.
	want := "[static/1/false static/5/true igp/110/false]"
	if fmt.Sprint(got) != want {
		t.Errorf("3.3.3.3/32 candidates = %v, want %s", got, want)
	}
}

// squareLab is four routers in a square r1-r2-r4-r3-r1 with costs making
// r1 -> r4 go through r2.
func squareLab() topology.Topology {
	rt := func(name, loop string, ifs ...topology.Interface) topology.Device {
		ifs = append(ifs, topology.Interface{Name: lo, Addresses: []string{loop}})
		return topology.Device{Name: name, Interfaces: ifs}
	}
	ifc := func(name, a string, cost int) topology.Interface {
		return topology.Interface{Name: name, Addresses: []string{a}, IGPCost: cost}
	}
	return topology.Topology{Name: "square",
		Devices: []topology.Device{
			rt("r1", "1.1.1.1/32", ifc(g0, "10.1.2.1/30", 10), ifc(g1, "10.1.3.1/30", 10)),
			rt("r2", "2.2.2.2/32", ifc(g0, "10.1.2.2/30", 10), ifc(g1, "10.2.4.1/30", 10)),
			rt("r3", "3.3.3.3/32", ifc(g0, "10.1.3.2/30", 10), ifc(g1, "10.3.4.1/30", 15)),
			rt("r4", "4.4.4.4/32", ifc(g0, "10.2.4.2/30", 10), ifc(g1, "10.3.4.2/30", 15)),
		},
		Links: []topology.Link{{A: "r1:" + g0, B: "r2:" + g0}, {A: "r1:" + g1, B: "r3:" + g0},
			{A: "r2:" + g1, B: "r4:" + g0}, {A: "r3:" + g1, B: "r4:" + g1}},
	}
}

func TestIGPReroute(t *testing.T) {
	n := newLab(t, squareLab())
	path := func() []string {
		o, err := n.Traceroute(ProbeRequest{From: "r1", Destination: addr("4.4.4.4"), Count: 1})
		if err != nil {
			t.Fatal(err)
		}
		var p []string
		for _, h := range o.Hops {
			p = append(p, h.Probes[0].From.String())
		}
		return p
	}
	rs, _ := n.Routes("r1", "", 4)
	if r, _ := findRoute(rs, "4.4.4.4/32"); r.NextHop.String() != "10.1.2.2" || r.Metric != 20 {
		t.Fatalf("r1 -> 4.4.4.4 = %+v, want via r2 metric 20", r)
	}
	if got := fmt.Sprint(path()); got != "[10.1.2.2 4.4.4.4]" {
		t.Errorf("path = %s, want via r2", got)
	}
	if err := n.SetFaults([]topology.Fault{{Kind: topology.FaultLinkDown, Link: "r2:" + g1}}); err != nil {
		t.Fatal(err)
	}
	rs, _ = n.Routes("r1", "", 4)
	if r, _ := findRoute(rs, "4.4.4.4/32"); r.NextHop.String() != "10.1.3.2" || r.Metric != 25 {
		t.Fatalf("after link-down r1 -> 4.4.4.4 = %+v, want via r3 metric 25", r)
	}
	if got := fmt.Sprint(path()); got != "[10.1.3.2 4.4.4.4]" {
		t.Errorf("rerouted path = %s, want via r3", got)
	}
	if _, ok := findRoute(rs, "10.2.4.0/30"); ok {
		t.Error("the downed link's prefix is still routed")
	}
	// Clearing the fault restores the short path.
	n.SetFaults(nil)
	if got := fmt.Sprint(path()); got != "[10.1.2.2 4.4.4.4]" {
		t.Errorf("restored path = %s", got)
	}
}

func TestAsymmetricReturn(t *testing.T) {
	// r1 -> r4 goes via r2, but r4's expensive r2 side sends the replies
	// via r3: a drop entering r1 from r3 kills the ping although nothing
	// is wrong on the forward path.
	topo := squareLab()
	topo.Devices[3].Interfaces[0].IGPCost = 100
	n := newLab(t, topo, topology.Fault{Kind: topology.FaultACLDrop, Interface: "r1:" + g1})
	r4, _ := n.Routes("r4", "", 4)
	if r, _ := findRoute(r4, "10.1.2.0/30"); r.NextHop.String() != "10.3.4.1" {
		t.Fatalf("r4 -> r1's link = %+v, want via r3", r)
	}
	o, _ := n.Ping(ProbeRequest{From: "r1", Destination: addr("4.4.4.4"), Count: 3})
	if o.Received() != 0 {
		t.Errorf("replies came back over the faulty return path:\n%s", o.Render())
	}
	tr, _ := n.Traceroute(ProbeRequest{From: "r1", Destination: addr("4.4.4.4"), Count: 1, MaxHops: 3})
	if got := tr.Hops[0].Probes[0].From.String(); got != "10.1.2.2" {
		t.Errorf("hop 1 = %s, want r2 answering over the symmetric first link", got)
	}
	if tr.Hops[1].Probes[0].Kind != ResultLost {
		t.Errorf("hop 2 answered: %+v", tr.Hops[1].Probes[0])
	}
	ok, _ := n.Ping(ProbeRequest{From: "r1", Destination: addr("2.2.2.2"), Count: 1})
	if ok.Received() != 1 {
		t.Errorf("r2 unreachable:\n%s", ok.Render())
	}
}
