package netsim

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/lab/topology"
)

func TestInterfaceState(t *testing.T) {
	topo := lineLab()
	// h3's port admin-down on the switch side, r3's Gi3 unconnected, a shut loopback.
	for i := range topo.Devices {
		d := &topo.Devices[i]
		switch d.Name {
		case "sw1":
			d.Interfaces[1].Shutdown = true // Gi2 (h3)
		case "r3":
			d.Interfaces = append(d.Interfaces, topology.Interface{Name: g3, Addresses: []string{"10.0.77.1/30"}},
				topology.Interface{Name: "Loopback9", Shutdown: true, Addresses: []string{"9.9.9.9/32"}})
		}
	}
	n := newLab(t, topo, topology.Fault{Kind: topology.FaultLinkDown, Link: "r1:" + g0},
		topology.Fault{Kind: topology.FaultMTU, Interface: "r2:" + g1, MTU: 1400})
	tests := []struct {
		dev, ifn    string
		admin, oper bool
		reason      string
		mtu         int
	}{
		{"r1", g0, true, false, "link-down fault", 1500},
		{"r2", g0, true, false, "link-down fault", 1500},
		{"r2", g1, true, true, "", 1400},
		{"r1", g2, true, false, "no-link", 1500},
		{"r3", g3, true, false, "no-link", 1500},
		{"r3", g1, true, true, "", 1500}, // unconnected but static neighbors live there
		{"h3", "eth0", true, false, "peer admin-down", 1500},
		{"sw1", "Gi2", false, false, "admin-down", 1500},
		{"sw1", "Vlan10", true, true, "", 1500},
		{"sw1", "Vlan20", true, false, "lower-layer-down", 1500}, // VLAN 20 not defined on sw1
		{"r1", "BVI10", true, true, "", 1500},
		{"r3", lo, true, true, "", 1500},
		{"r3", "Loopback9", false, false, "admin-down", 1500},
	}
	for _, tc := range tests {
		st, err := n.InterfaceState(tc.dev, tc.ifn)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.dev, tc.ifn, err)
		}
		if st.AdminUp != tc.admin || st.OperUp != tc.oper || st.OperReason != tc.reason || st.MTU != tc.mtu {
			t.Errorf("%s %s = admin %v oper %v %q mtu %d, want %v %v %q %d", tc.dev, tc.ifn,
				st.AdminUp, st.OperUp, st.OperReason, st.MTU, tc.admin, tc.oper, tc.reason, tc.mtu)
		}
		if len(st.MAC) != 17 {
			t.Errorf("%s %s: MAC %q", tc.dev, tc.ifn, st.MAC)
		}
	}
	if _, err := n.InterfaceState("r9", g0); err == nil || !strings.Contains(err.Error(), `"r9"`) {
		t.Errorf("unknown device: err = %v", err)
	}
	if _, err := n.InterfaceState("r1", "Gi7"); err == nil || !strings.Contains(err.Error(), `"Gi7"`) {
		t.Errorf("unknown interface: err = %v", err)
	}
	// SVI with no up member port goes down when the trunk goes down.
	if err := n.SetFaults([]topology.Fault{{Kind: topology.FaultLinkDown, Link: "sw1:Gi3"}}); err != nil {
		t.Fatal(err)
	}
	if st, _ := n.InterfaceState("r1", "BVI10"); st.OperUp || st.OperReason != "lower-layer-down" {
		t.Errorf("BVI10 with its only member down: %+v", st)
	}
}

func TestNeighbors(t *testing.T) {
	n := newLab(t, lineLab())
	nbs, err := n.Neighbors("r1")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Neighbor{}
	for _, nb := range nbs {
		got[nb.IP.String()] = nb
	}
	for _, want := range []string{"10.0.1.10", "10.0.1.11", "10.0.1.2", "10.0.12.2", "2001:db8:12::2", "2001:db8:1::10"} {
		nb, ok := got[want]
		if !ok {
			t.Errorf("r1 has no neighbor %s: %+v", want, nbs)
			continue
		}
		if !nb.Dynamic {
			t.Errorf("%s not dynamic", want)
		}
	}
	if got["10.0.1.10"].Interface != "BVI10" || got["10.0.12.2"].Interface != g0 {
		t.Errorf("wrong interfaces: %+v", nbs)
	}
	h1, _ := n.InterfaceState("h1", "eth0")
	if got["10.0.1.10"].MAC != h1.MAC {
		t.Errorf("MAC of h1 = %s, want %s", got["10.0.1.10"].MAC, h1.MAC)
	}
	r3, _ := n.Neighbors("r3")
	var static []string
	for _, nb := range r3 {
		if !nb.Dynamic {
			static = append(static, nb.IP.String()+"@"+nb.Interface)
		}
		if nb.IP == netip.MustParseAddr("192.168.0.2") && nb.VRF != "cust" {
			t.Errorf("VRF neighbor has VRF %q", nb.VRF)
		}
	}
	if strings.Join(static, " ") != "10.0.3.50@"+g1+" 10.0.3.51@"+g1 {
		t.Errorf("static neighbors = %v", static)
	}
	// A link down removes the dynamic entries learned over it.
	n.SetFaults([]topology.Fault{{Kind: topology.FaultLinkDown, Link: "r2:" + g0}})
	nbs, _ = n.Neighbors("r1")
	for _, nb := range nbs {
		if nb.Interface == g0 {
			t.Errorf("neighbor over a down link: %+v", nb)
		}
	}
}

func TestValidation(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*topology.Topology)
		want   string
	}{
		{"duplicate device", func(tp *topology.Topology) { tp.Devices[1].Name = "h1" }, `duplicate device "h1"`},
		{"duplicate interface", func(tp *topology.Topology) {
			tp.Devices[0].Interfaces = append(tp.Devices[0].Interfaces, topology.Interface{Name: "eth0"})
		}, `duplicate interface "eth0"`},
		{"bad CIDR", func(tp *topology.Topology) { tp.Devices[0].Interfaces[0].Addresses[0] = "10.0.1.300/24" }, `bad address "10.0.1.300/24"`},
		{"link to missing interface", func(tp *topology.Topology) { tp.Links[0].B = "sw1:Gi42" }, `has no interface "Gi42"`},
		{"link to missing device", func(tp *topology.Topology) { tp.Links[0].B = "sw9:Gi1" }, `no device "sw9"`},
		{"link end without colon", func(tp *topology.Topology) { tp.Links[0].B = "sw1" }, `"sw1": want "device:interface"`},
		{"interface on two links", func(tp *topology.Topology) {
			tp.Links = append(tp.Links, topology.Link{A: "h1:eth0", B: "sw1:Gi9"})
		}, `"h1:eth0" is on two links`},
		{"fault on unknown link", func(tp *topology.Topology) {
			tp.Faults = []topology.Fault{{Kind: topology.FaultLinkDown, Link: "r1:" + g2}}
		}, `no link has end "r1:` + g2 + `"`},
		{"fault on unknown interface", func(tp *topology.Topology) {
			tp.Faults = []topology.Fault{{Kind: topology.FaultMTU, Interface: "r1:Gi5", MTU: 1400}}
		}, `no interface "Gi5"`},
		{"unknown fault", func(tp *topology.Topology) { tp.Faults = []topology.Fault{{Kind: "meteor"}} }, `unknown fault kind "meteor"`},
		{"loss over 100", func(tp *topology.Topology) {
			tp.Faults = []topology.Fault{{Kind: topology.FaultLoss, Link: "h1:eth0", Percent: 120}}
		}, "percent 120 out of range"},
		{"undefined VRF", func(tp *topology.Topology) { tp.Devices[0].Interfaces[0].VRF = "blue" }, `VRF "blue" is not defined`},
		{"bad static next hop", func(tp *topology.Topology) { tp.Devices[0].Routes[0].NextHop = "10.0.1" }, `bad next hop "10.0.1"`},
		{"bad ACL action", func(tp *topology.Topology) {
			tp.Devices[0].ACLs = []topology.ACL{{Name: "A", Rules: []topology.ACLEntry{{Seq: 5, Action: "drop"}}}}
		}, `ACL "A" rule 5: action "drop"`},
		{"unknown kind", func(tp *topology.Topology) { tp.Devices[0].Kind = "toaster" }, `unknown kind "toaster"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			topo := lineLab()
			tc.mutate(&topo)
			_, err := New(topo, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %s", err, tc.want)
			}
		})
	}
}

func TestUpdateDeviceAndTopologyCopy(t *testing.T) {
	n := newLab(t, lineLab())
	topo := n.Topology()
	topo.Devices[0].Name = "changed" // a deep copy: the network is not affected
	if n.Topology().Devices[0].Name != "h1" {
		t.Fatal("Topology() is not a copy")
	}
	var r2 topology.Device
	for _, d := range n.Topology().Devices {
		if d.Name == "r2" {
			r2 = d
		}
	}
	r2.Interfaces[1].Shutdown = true
	if err := n.UpdateDevice(r2); err != nil {
		t.Fatal(err)
	}
	r2.Interfaces[1].Shutdown = false // UpdateDevice keeps a copy: the network is not affected
	rs, _ := n.Routes("r1", "", 4)
	for _, r := range rs {
		if r.Prefix.String() == "3.3.3.3/32" {
			t.Fatalf("route to r3 survives r2's shutdown: %+v", r)
		}
	}
	for _, d := range n.Topology().Devices {
		if d.Name == "r2" && !d.Interfaces[1].Shutdown {
			t.Fatal("UpdateDevice kept the caller's interface slice")
		}
	}
	r2.Interfaces[1].Shutdown = true
	bad := r2
	bad.Interfaces = bad.Interfaces[:1] // drops an interface a link names
	if err := n.UpdateDevice(bad); err == nil || !strings.Contains(err.Error(), g1) {
		t.Errorf("UpdateDevice removing a linked interface: err = %v", err)
	}
	if err := n.UpdateDevice(topology.Device{Name: "nope"}); err == nil {
		t.Error("UpdateDevice of an unknown device succeeded")
	}
	if err := n.SetFaults([]topology.Fault{{Kind: topology.FaultLoss, Link: "r1:" + g0, Percent: 5}}); err != nil {
		t.Fatal(err)
	}
	if f := n.Faults(); len(f) != 1 || f[0].Percent != 5 {
		t.Errorf("Faults() = %+v", f)
	}
}
