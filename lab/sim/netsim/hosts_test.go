package netsim

import (
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/lab/topology"
)

// MACs of the host LAN's devices in hostLab.
const (
	macH3 = "00:50:56:00:00:03"
	macH4 = "00:50:56:00:00:04"
	macR3 = "00:00:5e:00:03:01"
)

// hostLab is r1 — r2 — r3 and a switched host LAN behind r3 (the default
// lab's right side, with a second host):
//
//	r1 -10.0.12.0/30- r2 -10.0.23.0/30- r3 -10.3.0.0/24- sw -+- h3 10.3.0.10 (DNS service)
//	                                                        +- h4 10.3.0.100
func hostLab() topology.Topology {
	rtr := func(name string, ifs ...topology.Interface) topology.Device {
		return topology.Device{Name: name, Kind: topology.KindRouter, Interfaces: ifs}
	}
	ifc := func(name string, addrs ...string) topology.Interface {
		return topology.Interface{Name: name, Addresses: addrs}
	}
	r3lan := ifc("Gi0/0/1", "10.3.0.1/24")
	r3lan.MAC = macR3
	r3lan.Passive = true
	return topology.Topology{
		Name: "hosts",
		Devices: []topology.Device{
			rtr("r1", ifc("Lo0", "10.255.0.1/32"), ifc("Gi0/0/0", "10.0.12.1/30")),
			rtr("r2", ifc("Lo0", "10.255.0.2/32"), ifc("Gi0/0/0", "10.0.12.2/30"), ifc("Gi0/0/1", "10.0.23.1/30")),
			rtr("r3", ifc("Lo0", "10.255.0.3/32"), ifc("Gi0/0/0", "10.0.23.2/30"), r3lan),
			{Name: "sw", Kind: topology.KindSwitch, VLANs: []topology.VLAN{{ID: 10}}, Interfaces: []topology.Interface{
				{Name: "Gi1", AccessVLAN: 10}, {Name: "Gi2", AccessVLAN: 10}, {Name: "Gi3", AccessVLAN: 10}}},
			{Name: "h3", Kind: topology.KindHost, Gateway: "10.3.0.1", DNSServers: []string{"10.3.0.10"},
				Interfaces: []topology.Interface{{Name: "eth0", MAC: macH3, Addresses: []string{"10.3.0.10/24"}}},
				DNS:        &topology.DNSService{Zones: []topology.DNSZone{labZone(), reverseZone()}}},
			{Name: "h4", Kind: topology.KindHost, Gateway: "10.3.0.1", DNSServers: []string{"10.3.0.10"},
				Interfaces: []topology.Interface{{Name: "eth0", MAC: macH4, Addresses: []string{"10.3.0.100/24"}}}},
		},
		Links: []topology.Link{
			{A: "r1:Gi0/0/0", B: "r2:Gi0/0/0"},
			{A: "r2:Gi0/0/1", B: "r3:Gi0/0/0"},
			{A: "r3:Gi0/0/1", B: "sw:Gi1"},
			{A: "sw:Gi2", B: "h3:eth0"},
			{A: "sw:Gi3", B: "h4:eth0"},
		},
	}
}

// labZone is the zone h3 serves.
func labZone() topology.DNSZone {
	return topology.DNSZone{Name: "lab.example", Records: []topology.DNSRecord{
		{Name: "@", Type: "NS", Value: "ns"},
		{Name: "@", Type: "MX", Value: "10 mail"},
		{Name: "@", Type: "TXT", Value: "v=spf1 -all"},
		{Name: "r1", Type: "A", Value: "10.255.0.1"},
		{Name: "h3", Type: "A", Value: "10.3.0.10"},
		{Name: "h3", Type: "AAAA", Value: "2001:db8:3::10"},
		{Name: "ns", Type: "A", Value: "10.3.0.10"},
		{Name: "mail", Type: "CNAME", Value: "h3"},
		{Name: "www", Type: "CNAME", Value: "mail"},
		{Name: "ext", Type: "CNAME", Value: "www.example.org."},
		{Name: "a.sub", Type: "A", Value: "10.3.0.50"},
	}}
}

// reverseZone is h3's reverse zone.
func reverseZone() topology.DNSZone {
	return topology.DNSZone{Name: "0.3.10.in-addr.arpa", Records: []topology.DNSRecord{
		{Name: "10", Type: "PTR", Value: "h3.lab.example."},
	}}
}

// edit returns a copy of hostLab's device name changed by f.
func editDevice(t *topology.Topology, name string, f func(d *topology.Device)) {
	for i := range t.Devices {
		if t.Devices[i].Name == name {
			f(&t.Devices[i])
			return
		}
	}
	panic("no device " + name)
}

// pingKind is the outcome of one ping: the reply kind, or "error: ..."
// when nothing was sent.
func pingKind(t *testing.T, n *Network, from, to string) string {
	t.Helper()
	o, err := n.Ping(ProbeRequest{From: from, Destination: addr(to), Count: 1})
	if err != nil {
		t.Fatalf("ping %s -> %s: %v", from, to, err)
	}
	if o.Error != "" {
		return "error: " + o.Error
	}
	r := o.Replies[0]
	if r.Kind == ResultReply && r.From != addr(to) {
		return "reply from " + r.From.String()
	}
	return r.Kind
}

// arpOf returns a device's ARP entry for ip as "MAC", "" when absent,
// and fails on two entries for one address.
func arpOf(t *testing.T, n *Network, dev, ip string) string {
	t.Helper()
	nbs, err := n.Neighbors(dev)
	if err != nil {
		t.Fatal(err)
	}
	mac := ""
	for _, nb := range nbs {
		if nb.IP == addr(ip) {
			if mac != "" {
				t.Fatalf("%s has two ARP entries for %s", dev, ip)
			}
			mac = nb.MAC
		}
	}
	return mac
}

// digKind is the outcome of one DNS query: the outcome kind, with the
// rcode and answers when answered.
func digKind(t *testing.T, n *Network, from, server, name, typ string) string {
	t.Helper()
	o, err := n.DNSQuery(DNSQuery{From: from, Server: addr(server), Name: name, Type: typ})
	if err != nil {
		t.Fatalf("dns %s -> %s: %v", from, server, err)
	}
	if o.Kind != DNSAnswered {
		return o.Kind
	}
	var data []string
	for _, rr := range o.Message.Answer {
		data = append(data, rr.Type+" "+rr.Data)
	}
	return o.Message.Rcode + " " + strings.Join(data, ",")
}

// TestHostFaults sets the configuration each host fault sets and checks
// the symptoms: the gateway's ARP table, pings from the gateway, from a
// remote router and from the host, and a DNS lookup from afar.
func TestHostFaults(t *testing.T) {
	const (
		h3, h4, gw = "10.3.0.10", "10.3.0.100", "10.3.0.1"
		unreach    = "error: " + errNetUnreachable
	)
	okDNS := "NOERROR A 10.255.0.1"
	tests := []struct {
		name   string
		edit   func(t *topology.Topology)
		faults []topology.Fault
		// r3's ARP entry for h3's address ("" none).
		arp string
		// Ping outcomes: r3 -> h3, r1 -> h3, h3 -> gateway, h3 -> r1, h4 -> h3.
		fromGW, fromR1, hostToGW, hostToR1, fromH4 string
		// A lookup of r1.lab.example from r1 to h3's address.
		dig string
		// r1 -> h4 (default: reply).
		toH4 string
	}{
		{name: "healthy", arp: macH3, fromGW: ResultReply, fromR1: ResultReply, hostToGW: ResultReply, hostToR1: ResultReply, fromH4: ResultReply, dig: okDNS},
		{name: "host_incorrect_ip",
			edit: func(t *topology.Topology) {
				editDevice(t, "h3", func(d *topology.Device) { d.Interfaces[0].Addresses = []string{"10.3.1.10/24"} })
			},
			// Nobody answers for 10.3.0.10; h3's gateway is off its subnet.
			arp: "", fromGW: ResultHostUnreachable, fromR1: ResultHostUnreachable, hostToGW: unreach, hostToR1: unreach,
			fromH4: ResultHostUnreachable, dig: DNSHostUnreachable},
		{name: "host_incorrect_netmask /30 (gateway outside the mask)",
			edit: func(t *topology.Topology) {
				editDevice(t, "h3", func(d *topology.Device) { d.Interfaces[0].Addresses = []string{"10.3.0.10/30"} })
			},
			// h3 answers ARP, but has no route back to anyone off its /30.
			arp: macH3, fromGW: ResultLost, fromR1: ResultLost, hostToGW: unreach, hostToR1: unreach, fromH4: ResultLost, dig: DNSTimedOut},
		{name: "host_incorrect_netmask /28 (gateway inside the mask)",
			edit: func(t *topology.Topology) {
				editDevice(t, "h3", func(d *topology.Device) { d.Interfaces[0].Addresses = []string{"10.3.0.10/28"} })
			},
			// Replies to h4 (outside the /28) go through the gateway and still arrive.
			arp: macH3, fromGW: ResultReply, fromR1: ResultReply, hostToGW: ResultReply, hostToR1: ResultReply, fromH4: ResultReply, dig: okDNS},
		{name: "host_incorrect_gateway",
			edit: func(t *topology.Topology) {
				editDevice(t, "h3", func(d *topology.Device) { d.Gateway = "10.3.0.99" })
			},
			// The LAN works; anything off it is lost on h3's failed ARP.
			arp: macH3, fromGW: ResultReply, fromR1: ResultLost, hostToGW: ResultReply, hostToR1: ResultHostUnreachable, fromH4: ResultReply, dig: DNSTimedOut},
		{name: "host_missing_ip",
			edit: func(t *topology.Topology) {
				editDevice(t, "h3", func(d *topology.Device) { d.Interfaces[0].Addresses = nil })
			},
			arp: "", fromGW: ResultHostUnreachable, fromR1: ResultHostUnreachable, hostToGW: unreach, hostToR1: unreach, fromH4: ResultHostUnreachable, dig: DNSHostUnreachable},
		{name: "host_ip_conflict (h4 takes h3's address)",
			edit: func(t *topology.Topology) {
				editDevice(t, "h4", func(d *topology.Device) { d.Interfaces[0].Addresses = []string{"10.3.0.10/24"} })
			},
			// h4 announced last: the gateway's ARP entry and the traffic
			// go to h4, which answers pings but runs no DNS service.
			// h3 itself loses every reply, h4 pings its own address.
			arp: macH4, fromGW: ResultReply, fromR1: ResultReply, hostToGW: ResultLost, hostToR1: ResultLost, fromH4: ResultReply,
			dig: DNSRefused, toH4: ResultHostUnreachable},
		{name: "host_ip_conflict (h3 takes its gateway's address)",
			edit: func(t *topology.Topology) {
				editDevice(t, "h3", func(d *topology.Device) { d.Interfaces[0].Addresses = []string{"10.3.0.1/24"} })
			},
			// h3's old address is gone, the gateway's address is its own
			// (its default route via it is invalid), and h4's off-LAN
			// traffic goes to h3, the last to announce 10.3.0.1.
			arp: "", fromGW: ResultHostUnreachable, fromR1: ResultHostUnreachable, hostToGW: ResultReply, hostToR1: unreach,
			fromH4: ResultHostUnreachable, dig: DNSHostUnreachable, toH4: ResultLost},
		{name: "mac_address_conflict (h4 takes h3's MAC)",
			edit: func(t *topology.Topology) {
				editDevice(t, "h4", func(d *topology.Device) { d.Interfaces[0].MAC = macH3 })
			},
			// Frames to the shared MAC reach h4 (the last to announce it): h3 loses them.
			arp: macH3, fromGW: ResultLost, fromR1: ResultLost, hostToGW: ResultLost, hostToR1: ResultLost, fromH4: ResultLost, dig: DNSTimedOut},
		{name: "host_static_blackhole",
			edit: func(t *topology.Topology) {
				editDevice(t, "h3", func(d *topology.Device) {
					d.Routes = append(d.Routes, topology.StaticRoute{Prefix: "10.0.12.0/30", Discard: true})
				})
			},
			// h3 itself sends nothing along its blackhole route: connect() fails with EINVAL.
			arp: macH3, fromGW: ResultReply, fromR1: ResultLost, hostToGW: ResultReply, hostToR1: "error: " + errBlackhole, fromH4: ResultReply, dig: DNSTimedOut},
		{name: "host_crash",
			faults: []topology.Fault{{Name: FaultHostCrash, Target: "h3"}},
			arp:    "", fromGW: ResultHostUnreachable, fromR1: ResultHostUnreachable, hostToGW: unreach, hostToR1: unreach,
			fromH4: ResultHostUnreachable, dig: DNSHostUnreachable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			topo := hostLab()
			if tc.edit != nil {
				tc.edit(&topo)
			}
			n := newLab(t, topo, tc.faults...)
			if got := arpOf(t, n, "r3", h3); got != tc.arp {
				t.Errorf("r3's ARP entry for %s: %q, want %q", h3, got, tc.arp)
			}
			for _, c := range []struct{ from, to, want string }{
				{"r3", h3, tc.fromGW}, {"r1", h3, tc.fromR1}, {"h3", gw, tc.hostToGW}, {"h3", "10.0.12.1", tc.hostToR1}, {"h4", h3, tc.fromH4},
			} {
				if got := pingKind(t, n, c.from, c.to); got != c.want {
					t.Errorf("ping %s -> %s: %s, want %s", c.from, c.to, got, c.want)
				}
			}
			if got := digKind(t, n, "r1", h3, "r1.lab.example", "A"); got != tc.dig {
				t.Errorf("dig @%s from r1: %s, want %s", h3, got, tc.dig)
			}
			want := tc.toH4
			if want == "" {
				want = ResultReply
			}
			if got := pingKind(t, n, "r1", h4); got != want {
				t.Errorf("ping r1 -> h4: %s, want %s", got, want)
			}
		})
	}
}

// TestAddressConflicts checks what the devices of a LAN see of an IP
// conflict: the router whose address a host takes sees its own address
// announced with the host's MAC; another host's ARP entry for it is the
// host's (the last announcer).
func TestAddressConflicts(t *testing.T) {
	topo := hostLab()
	editDevice(&topo, "h3", func(d *topology.Device) { d.Interfaces[0].Addresses = []string{"10.3.0.1/24"} })
	n := newLab(t, topo)
	cs, err := n.AddressConflicts("r3")
	if err != nil {
		t.Fatal(err)
	}
	want := AddressConflict{Device: "r3", Interface: "Gi0/0/1", IP: addr("10.3.0.1"), MAC: macH3, OwnMAC: macR3, With: "h3"}
	if len(cs) != 1 || cs[0] != want {
		t.Fatalf("r3 conflicts: %+v, want %+v", cs, want)
	}
	if got := arpOf(t, n, "h4", "10.3.0.1"); got != macH3 {
		t.Errorf("h4's ARP entry for its gateway: %q, want h3's MAC %s", got, macH3)
	}
	// h4's traffic off the LAN goes to h3, which does not forward.
	if got := pingKind(t, n, "h4", "10.0.12.1"); got != ResultLost {
		t.Errorf("ping h4 -> r1: %s, want lost", got)
	}

	// Two hosts with one address: both see the clash, the router's cache holds the last announcer.
	topo = hostLab()
	editDevice(&topo, "h4", func(d *topology.Device) { d.Interfaces[0].Addresses = []string{"10.3.0.10/24"} })
	n = newLab(t, topo)
	cs, _ = n.AddressConflicts("h3")
	if len(cs) != 1 || cs[0].IP != addr("10.3.0.10") || cs[0].With != "h4" || cs[0].MAC != macH4 {
		t.Fatalf("h3 conflicts: %+v", cs)
	}
	cs, _ = n.AddressConflicts("r3")
	if len(cs) != 1 || cs[0].MAC != macH4 || cs[0].OwnMAC != macH3 || cs[0].With != "h4" {
		t.Fatalf("r3 conflicts: %+v", cs)
	}
	if cs, _ := n.AddressConflicts("r1"); len(cs) != 0 {
		t.Fatalf("r1 sees conflicts: %+v", cs)
	}
}

// TestHostCrashState checks a crashed host's interface state, its
// neighbours' view, the validation of the fault and its removal.
func TestHostCrashState(t *testing.T) {
	n := newLab(t, hostLab(), topology.Fault{Name: FaultHostCrash, Target: "h3"})
	st, _ := n.InterfaceState("h3", "eth0")
	if st.OperUp || st.OperReason != reasonDeviceDown {
		t.Errorf("h3 eth0: %+v", st)
	}
	st, _ = n.InterfaceState("sw", "Gi2")
	if st.OperUp || st.OperReason != reasonPeerDown {
		t.Errorf("sw Gi2: %+v", st)
	}
	if down, _ := n.DeviceDown("h3"); !down {
		t.Error("h3 not down")
	}
	if err := n.SetFaults([]topology.Fault{{Name: FaultHostCrash, Target: "r1"}}); err == nil || !strings.Contains(err.Error(), "applies to hosts") {
		t.Errorf("host_crash on a router: %v", err)
	}
	if err := n.SetFaults([]topology.Fault{{Name: FaultHostCrash, Target: "h9"}}); err == nil || !strings.Contains(err.Error(), "no device") {
		t.Errorf("host_crash on no device: %v", err)
	}
	if err := n.SetFaults(nil); err != nil {
		t.Fatal(err)
	}
	if got := pingKind(t, n, "r1", "10.3.0.10"); got != ResultReply {
		t.Errorf("after clearing host_crash: %s", got)
	}
}

// TestResolve checks the gateway resolution a host's `ip neigh` shows.
func TestResolve(t *testing.T) {
	topo := hostLab()
	editDevice(&topo, "h3", func(d *topology.Device) { d.Gateway = "10.3.0.99" })
	n := newLab(t, topo)
	r, err := n.Resolve("h3", "", addr("10.3.0.99"))
	if err != nil || r.Interface != "eth0" || r.MAC != "" {
		t.Errorf("h3 resolves its wrong gateway: %+v %v", r, err)
	}
	r, _ = n.Resolve("h4", "", addr("10.3.0.1"))
	if r.MAC != macR3 || r.Device != "r3" {
		t.Errorf("h4 resolves its gateway: %+v", r)
	}
}

// TestARPACL checks that an ACL rule for arp makes resolution fail while
// an IP-only ACL leaves ARP alone.
func TestARPACL(t *testing.T) {
	for _, tc := range []struct {
		rule topology.ACLEntry
		arp  string
		ping string
	}{
		{topology.ACLEntry{Seq: 5, Action: "deny", Protocol: "arp"}, "", ResultHostUnreachable},
		{topology.ACLEntry{Seq: 5, Action: "deny", Protocol: "udp", DstPort: 53}, macH3, ResultReply},
	} {
		topo := hostLab()
		editDevice(&topo, "r3", func(d *topology.Device) {
			d.ACLs = []topology.ACL{{Name: "LAN-IN", Rules: []topology.ACLEntry{tc.rule, {Seq: 10, Action: "permit", Protocol: "ip"}}}}
			d.Interfaces[2].IngressACL = "LAN-IN"
		})
		n := newLab(t, topo)
		if got := arpOf(t, n, "r3", "10.3.0.10"); got != tc.arp {
			t.Errorf("%s: r3's ARP entry %q, want %q", tc.rule.Protocol, got, tc.arp)
		}
		if got := pingKind(t, n, "r1", "10.3.0.10"); got != tc.ping {
			t.Errorf("%s: ping r1 -> h3: %s, want %s", tc.rule.Protocol, got, tc.ping)
		}
	}
}

// TestOwnNextHopInvalid checks that a static route via one of the
// device's own addresses stays inactive (Linux refuses it).
func TestOwnNextHopInvalid(t *testing.T) {
	topo := hostLab()
	editDevice(&topo, "h3", func(d *topology.Device) { d.Gateway = "10.3.0.10" })
	n := newLab(t, topo)
	rs, _ := n.Routes("h3", "", 4)
	if slices.ContainsFunc(rs, func(r Route) bool { return r.Prefix == netip.MustParsePrefix("0.0.0.0/0") && r.Active }) {
		t.Errorf("default via own address is active: %+v", rs)
	}
}
