package controller

import (
	"net/netip"
	"reflect"
	"testing"
)

// testNetwork is a network of devices with the given interfaces (name,
// address pairs), in order, with its links inferred.
func testNetwork(devs map[string][][2]string, order ...string) *network {
	n := &network{Devices: map[string]*deviceView{}, Order: order}
	for _, name := range order {
		d := &deviceView{Name: name, Calls: map[string]int{}}
		for _, ia := range devs[name] {
			it := &ifaceView{Name: ia[0], AdminUp: true, OperUp: true}
			if ia[1] != "" {
				it.Addrs = []netip.Prefix{netip.MustParsePrefix(ia[1])}
				it.Loopback = it.Addrs[0].Bits() == 32
			}
			d.Ifaces = append(d.Ifaces, it)
		}
		n.Devices[name] = d
	}
	n.infer(nil)
	return n
}

// scanLinks pairs every address with every other, as links were found
// before they were grouped by subnet.
func scanLinks(n *network) []link {
	type addrIf struct {
		dev, ifn string
		p        netip.Prefix
	}
	var all []addrIf
	for _, name := range n.Order {
		for _, it := range n.Devices[name].Ifaces {
			if it.Loopback || it.VRF != "" {
				continue
			}
			for _, p := range it.Addrs {
				if p.Addr().Is4() && p.Bits() < 32 {
					all = append(all, addrIf{name, it.Name, p})
				}
			}
		}
	}
	var out []link
	for i := range all {
		for j := i + 1; j < len(all); j++ {
			a, b := all[i], all[j]
			if a.dev != b.dev && a.p.Masked() == b.p.Masked() {
				out = append(out, link{A: end{a.dev, a.ifn, a.p.Addr()}, B: end{b.dev, b.ifn, b.p.Addr()}, Prefix: a.p.Masked()})
			}
		}
	}
	return out
}

// lanNetwork has point-to-point links, a LAN shared by three routers, a
// loopback each, an interface with no address and two interfaces of one
// router on one subnet.
func lanNetwork() *network {
	return testNetwork(map[string][][2]string{
		"r1": {{"lo", "10.255.0.1/32"}, {"p1", "10.0.0.1/30"}, {"lan", "192.168.1.1/24"}, {"p2", "10.0.0.5/30"}},
		"r2": {{"lo", "10.255.0.2/32"}, {"p1", "10.0.0.2/30"}, {"lan", "192.168.1.2/24"}, {"none", ""}},
		"r3": {{"lo", "10.255.0.3/32"}, {"lan", "192.168.1.3/24"}, {"p2", "10.0.0.6/30"}, {"lan2", "192.168.1.4/24"}},
	}, "r1", "r2", "r3")
}

func TestLinksInferredBySubnet(t *testing.T) {
	n := lanNetwork()
	want := scanLinks(n)
	if len(want) != 7 {
		t.Fatalf("the reference found %d links, want 7", len(want))
	}
	if !reflect.DeepEqual(n.Links, want) {
		t.Errorf("links:\n got %v\nwant %v", n.Links, want)
	}
}

func TestIndexAnswersAsAScan(t *testing.T) {
	n := lanNetwork()
	for _, tc := range []struct {
		dev, iface string
		ok         bool
		peer       string
	}{
		{"r1", "p1", true, "r2"},
		{"r2", "p1", true, "r1"},
		{"r3", "p2", true, "r1"},
		{"r3", "lan", true, "r1"}, // the first link of the LAN that has it
		{"r2", "none", false, ""},
		{"r9", "p1", false, ""},
	} {
		l, ok := n.LinkOf(tc.dev, tc.iface)
		if ok != tc.ok || ok && (l.A.Device != tc.dev || l.A.Iface != tc.iface || l.B.Device != tc.peer) {
			t.Errorf("LinkOf(%s, %s) = %v, %v; want an end at it towards %s (%v)", tc.dev, tc.iface, l, ok, tc.peer, tc.ok)
		}
	}
	for _, tc := range []struct {
		a, b string
		want int
	}{{"r1", "r3", 3}, {"r3", "r1", 3}, {"r1", "r2", 2}, {"r2", "r2", 0}, {"r1", "r9", 0}} {
		ls := n.LinksBetween(tc.a, tc.b)
		if len(ls) != tc.want {
			t.Errorf("LinksBetween(%s, %s): %d links, want %d", tc.a, tc.b, len(ls), tc.want)
		}
		for _, l := range ls {
			if l.A.Device != tc.a || l.B.Device != tc.b {
				t.Errorf("LinksBetween(%s, %s) gave %v, not oriented from %s", tc.a, tc.b, l, tc.a)
			}
		}
	}
	for _, tc := range []struct{ addr, dev, iface string }{
		{"10.255.0.2", "r2", "lo"}, {"192.168.1.4", "r3", "lan2"}, {"10.0.0.5", "r1", "p2"}, {"10.9.9.9", "", ""},
	} {
		d, it := n.Owner(netip.MustParseAddr(tc.addr))
		switch {
		case tc.dev == "" && (d != nil || it != nil):
			t.Errorf("Owner(%s) = %v, want none", tc.addr, d.Name)
		case tc.dev != "" && (d == nil || d.Name != tc.dev || it.Name != tc.iface):
			t.Errorf("Owner(%s) = %v %v, want %s %s", tc.addr, d, it, tc.dev, tc.iface)
		}
	}
}

func TestRoutesReadOnFirstLookup(t *testing.T) {
	reads := 0
	d := &deviceView{Name: "r1", readRoutes: func() []route {
		reads++
		return []route{
			{Prefix: netip.MustParsePrefix("0.0.0.0/0"), Active: true, Interface: "up"},
			{Prefix: netip.MustParsePrefix("10.1.0.0/16"), Active: true, Interface: "wide"},
			{Prefix: netip.MustParsePrefix("10.1.2.0/24"), Active: true, Interface: "narrow"},
			{Prefix: netip.MustParsePrefix("10.1.2.0/25"), Active: false, Interface: "inactive"},
		}
	}}
	if reads != 0 {
		t.Fatal("the table was read before any lookup")
	}
	for _, tc := range []struct{ dst, iface string }{
		{"10.1.2.3", "narrow"}, {"10.1.3.1", "wide"}, {"192.0.2.1", "up"},
	} {
		rt, ok := d.Lookup(netip.MustParseAddr(tc.dst))
		if !ok || rt.Interface != tc.iface {
			t.Errorf("Lookup(%s) = %v, %v; want the route out of %s", tc.dst, rt, ok, tc.iface)
		}
	}
	if reads != 1 {
		t.Errorf("the table was read %d times over three lookups, want once", reads)
	}
}

func TestPlainTree(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		want bool
	}{
		{"decoded", map[string]any{"a": []any{1.0, "x", true, nil, map[string]any{"b": 2.0}}}, true},
		{"empty", map[string]any{}, true},
		{"an int", map[string]any{"a": 1}, false},
		{"a typed slice deep down", map[string]any{"a": []any{map[string]any{"b": []string{"x"}}}}, false},
		{"a struct", map[string]any{"a": struct{ X int }{1}}, false},
	} {
		if got := plainTree(tc.v); got != tc.want {
			t.Errorf("%s: plainTree = %v, want %v", tc.name, got, tc.want)
		}
	}
}
