package controller

import (
	"net/netip"
	"slices"
	"testing"
)

// TestHostLinkMTUs: the ends of a router-host link are compared, and the
// odd end is named: the one running below its configuration (no
// fragmentation), the one the LAN's other hosts disagree with, or the one
// whose MTU is rare in the network; equal ends, or a link down, are left
// alone.
func TestHostLinkMTUs(t *testing.T) {
	type mtus struct{ run, conf int }
	cases := []struct {
		name           string
		router         mtus
		hosts          []mtus // h1, h2, ... on r1's LAN port
		core           int    // MTU of the r1-r2 link's ends
		cause, devices []string
	}{
		{"equal", mtus{1500, 1500}, []mtus{{1500, 1500}}, 1500, nil, nil},
		{"host set lower", mtus{1500, 1500}, []mtus{{1400, 1400}}, 1500, []string{"mtu_mismatch"}, []string{"h1"}},
		{"router port set lower", mtus{1400, 1400}, []mtus{{1500, 1500}}, 1500, []string{"mtu_mismatch"}, []string{"r1"}},
		{"router port runs below its configuration", mtus{1300, 1500}, []mtus{{1500, 1500}}, 1500, []string{"link_fragmentation_disabled"}, []string{"r1"}},
		{"host runs below its configuration", mtus{1500, 1500}, []mtus{{1492, 1500}}, 1500, []string{"link_fragmentation_disabled"}, []string{"h1"}},
		{"the LAN's other hosts side with the router", mtus{9000, 9000}, []mtus{{1500, 1500}, {9000, 9000}, {9000, 9000}}, 1500, []string{"mtu_mismatch"}, []string{"h1"}},
		{"the LAN's hosts side together", mtus{1400, 1400}, []mtus{{1500, 1500}, {1500, 1500}}, 1400, []string{"mtu_mismatch"}, []string{"r1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lan := netip.MustParsePrefix("10.1.0.1/24")
			r1 := &deviceView{Name: "r1", Calls: map[string]int{}, Ifaces: []*ifaceView{
				{Name: "Gi0", AdminUp: true, OperUp: true, MTU: c.core, ConfigMTU: c.core, Addrs: []netip.Prefix{netip.MustParsePrefix("10.0.12.1/30")}},
				{Name: "Gi1", AdminUp: true, OperUp: true, MTU: c.router.run, ConfigMTU: c.router.conf, Addrs: []netip.Prefix{lan}}}}
			r2 := &deviceView{Name: "r2", Calls: map[string]int{}, Ifaces: []*ifaceView{
				{Name: "Gi0", AdminUp: true, OperUp: true, MTU: c.core, ConfigMTU: c.core, Addrs: []netip.Prefix{netip.MustParsePrefix("10.0.12.2/30")}}}}
			n := &network{Devices: map[string]*deviceView{"r1": r1, "r2": r2}, Order: []string{"r1", "r2"}, HostViews: map[string]*hostView{}}
			var hosts []Host
			for i, m := range c.hosts {
				name := "h" + string(rune('1'+i))
				a := netip.AddrFrom4([4]byte{10, 1, 0, byte(10 + i)})
				hosts = append(hosts, Host{Name: name, Addrs: []netip.Addr{a}})
				n.HostViews[name] = &hostView{Name: name, Calls: map[string]int{}, Ifaces: []*ifaceView{
					{Name: "eth0", AdminUp: true, OperUp: true, MTU: m.run, ConfigMTU: m.conf, Addrs: []netip.Prefix{netip.PrefixFrom(a, 24)}}}}
			}
			n.infer(hosts)
			r := testRun(n)
			r.hostLinkMTUs(n)
			r.rep.finish()
			if !slices.Equal(r.rep.RootCauseName, orEmpty(c.cause)) || !slices.Equal(r.rep.FaultyDevices, orEmpty(c.devices)) {
				t.Fatalf("causes %v on %v, want %v on %v: %s", r.rep.RootCauseName, r.rep.FaultyDevices, c.cause, c.devices, r.rep.Diagnosis)
			}
		})
	}
}
