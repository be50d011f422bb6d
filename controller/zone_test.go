package controller

import (
	"net/netip"
	"slices"
	"testing"
)

// TestParseZoneFile reads the A records of BIND zone files: names
// relative to $ORIGIN, absolute and the apex, with and without a TTL;
// other types, comments, directives and continuation lines are skipped.
func TestParseZoneFile(t *testing.T) {
	a := netip.MustParseAddr
	for _, tc := range []struct {
		name, text string
		want       []zoneRecord
	}{
		{"empty", "", nil},
		{"relative and absolute", "$ORIGIN net.example.\n$TTL 300\n@\tIN\tSOA\tns.net.example. hostmaster.net.example. 1 3600 900 604800 300\nwww\t\tIN\tA\t10.1.7.10\nr1.net.example.\t60\tIN\tA\t10.255.0.1\n",
			[]zoneRecord{{"www.net.example", a("10.1.7.10")}, {"r1.net.example", a("10.255.0.1")}}},
		{"apex, other types, comments", "@ IN A 192.0.2.1 ; the apex\nmail IN MX 10 mx\nh3 IN AAAA 2001:db8::1\n; www IN A 10.0.0.1\n  IN A 10.0.0.2\n",
			[]zoneRecord{{"lab.example", a("192.0.2.1")}}},
		{"no origin directive", "ns1 IN A 10.3.0.10\nbad IN A not-an-address\n", []zoneRecord{{"ns1.lab.example", a("10.3.0.10")}}},
		{"origin changes", "$ORIGIN sub.lab.example.\nx IN A 10.9.9.9\n", []zoneRecord{{"x.sub.lab.example", a("10.9.9.9")}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseZoneFile(tc.text, "lab.example"); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestParseIPLink reads a host's MAC and, when iproute2 shows one that
// differs, its permanent address.
func TestParseIPLink(t *testing.T) {
	for _, tc := range []struct{ name, text, mac, perm string }{
		{"own address", `[{"ifname":"lo","link_type":"loopback","address":"00:00:00:00:00:00"},{"ifname":"eth0","link_type":"ether","address":"02:00:00:00:00:01"}]`, "02:00:00:00:00:01", ""},
		{"changed", `[{"ifname":"eth0","link_type":"ether","address":"02:00:00:00:00:02","permaddr":"02:00:00:00:00:01"}]`, "02:00:00:00:00:02", "02:00:00:00:00:01"},
		{"permaddr the same", `[{"ifname":"eth0","link_type":"ether","address":"02:00:00:00:00:01","permaddr":"02-00-00-00-00-01"}]`, "02:00:00:00:00:01", ""},
		{"not JSON", `2: eth0: <BROADCAST>`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if mac, perm := parseIPLink(tc.text); mac != tc.mac || perm != tc.perm {
				t.Errorf("got %q %q, want %q %q", mac, perm, tc.mac, tc.perm)
			}
		})
	}
}

// TestPeersResolver: the resolver a host's fix points at is the one most
// of the other hosts behind the same router port use (the lower address
// on a tie); hosts of other LANs, unread ones and the host itself do not
// count, and a host alone on its LAN gets none.
func TestPeersResolver(t *testing.T) {
	a := netip.MustParseAddr
	lan1, lan2 := end{Device: "r1", Iface: "Gi0/0/1"}, end{Device: "r2", Iface: "Gi0/0/1"}
	n := &network{
		Hosts: []hostAttach{
			{Host: Host{Name: "h1"}, Router: lan1}, {Host: Host{Name: "h2"}, Router: lan1},
			{Host: Host{Name: "h3"}, Router: lan1}, {Host: Host{Name: "h4"}, Router: lan1},
			{Host: Host{Name: "h5"}, Router: lan1}, {Host: Host{Name: "h6"}, Router: lan2},
		},
		HostViews: map[string]*hostView{
			"h1": {Resolvers: []netip.Addr{a("10.1.1.1")}}, // the host, pointed at its gateway
			"h2": {Resolvers: []netip.Addr{a("10.9.0.10")}},
			"h3": {Resolvers: []netip.Addr{a("10.9.0.10")}},
			"h4": {Resolvers: []netip.Addr{a("10.8.0.10")}},
			"h5": {Err: "unreachable", Resolvers: []netip.Addr{a("10.8.0.10")}},
			"h6": {Resolvers: []netip.Addr{a("10.8.0.10")}},
		},
	}
	for _, tc := range []struct {
		host string
		want netip.Addr
		ok   bool
	}{
		{"h1", a("10.9.0.10"), true},
		{"h4", a("10.9.0.10"), true},
		{"h6", netip.Addr{}, false},
	} {
		if got, ok := peersResolver(n, tc.host); got != tc.want || ok != tc.ok {
			t.Errorf("%s: %v %v, want %v %v", tc.host, got, ok, tc.want, tc.ok)
		}
	}
	n.HostViews["h4"].Resolvers = []netip.Addr{a("10.0.0.10")}
	n.HostViews["h3"].Resolvers = []netip.Addr{a("10.0.0.10")}
	if got, _ := peersResolver(n, "h1"); got != a("10.0.0.10") {
		t.Errorf("h1 with 10.0.0.10 twice and 10.9.0.10 once: %v", got)
	}
}
