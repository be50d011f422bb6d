package controller

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Constructed YANG trees, in the shape COMMON.md fixes for the BGP and
// OSPF models (openconfig-network-instance), so that the BGP and OSPF
// rules are tested before the simulator's models land.

type tIf struct {
	name, addr string // addr in CIDR form
	up         bool
	mtu        int
}

func ifTree(ifs ...tIf) any {
	var l []any
	for _, i := range ifs {
		oper, typ := "DOWN", "iana-if-type:ethernetCsmacd"
		if i.up {
			oper = "UP"
		}
		if strings.HasPrefix(i.name, "Lo") {
			typ = "iana-if-type:softwareLoopback"
		}
		mtu := float64(i.mtu)
		if mtu == 0 {
			mtu = 1500
		}
		ip, bits, _ := strings.Cut(i.addr, "/")
		var pl float64
		for _, c := range bits {
			pl = pl*10 + float64(c-'0')
		}
		l = append(l, map[string]any{"name": i.name,
			"config": map[string]any{"name": i.name, "mtu": mtu, "type": typ},
			"state":  map[string]any{"admin-status": "UP", "oper-status": oper, "mtu": mtu, "type": typ, "counters": map[string]any{"in-errors": "0"}},
			"subinterfaces": map[string]any{"subinterface": []any{map[string]any{"index": 0.0,
				"ipv4": map[string]any{"addresses": map[string]any{"address": []any{map[string]any{"ip": ip, "config": map[string]any{"ip": ip, "prefix-length": pl}}}}}}}}})
	}
	return map[string]any{"interface": l}
}

type tNb struct {
	addr    string
	peerAS  float64
	state   string
	lastErr string
}

type tOspf struct {
	name, area string
	passive    bool
	nbrRID     string
	nbrState   string
}

func netInstTree(as float64, rid string, nbs []tNb, ospf []tOspf) any {
	var protos []any
	if nbs != nil {
		var nl []any
		for _, n := range nbs {
			st := map[string]any{"neighbor-address": n.addr, "peer-as": n.peerAS, "session-state": n.state}
			if n.lastErr != "" {
				st["netmcp-last-error"] = n.lastErr
				st["messages"] = map[string]any{"received": map[string]any{
					"last-notification-error-code":    "openconfig-bgp-types:OPEN_MESSAGE_ERROR",
					"last-notification-error-subcode": "openconfig-bgp-types:BAD_PEER_AS"}}
			}
			nl = append(nl, map[string]any{"neighbor-address": n.addr,
				"config": map[string]any{"neighbor-address": n.addr, "peer-as": n.peerAS, "enabled": true}, "state": st})
		}
		protos = append(protos, map[string]any{"identifier": "openconfig-policy-types:BGP", "name": "bgp",
			"bgp": map[string]any{"global": map[string]any{"config": map[string]any{"as": as, "router-id": rid}},
				"neighbors": map[string]any{"neighbor": nl}}})
	}
	if ospf != nil {
		areas := map[string][]any{}
		var order []string
		for _, o := range ospf {
			i := map[string]any{"id": o.name, "config": map[string]any{"id": o.name, "passive": o.passive,
				"network-type": "openconfig-ospf-types:POINT_TO_POINT_NETWORK"},
				"timers": map[string]any{"config": map[string]any{"hello-interval": 10.0, "dead-interval": 40.0}}}
			if o.nbrRID != "" {
				i["neighbors"] = map[string]any{"neighbor": []any{map[string]any{"router-id": o.nbrRID,
					"state": map[string]any{"router-id": o.nbrRID, "adjacency-state": "openconfig-ospf-types:" + o.nbrState}}}}
			}
			if areas[o.area] == nil {
				order = append(order, o.area)
			}
			areas[o.area] = append(areas[o.area], i)
		}
		var al []any
		for _, a := range order {
			al = append(al, map[string]any{"identifier": a, "interfaces": map[string]any{"interface": areas[a]}})
		}
		protos = append(protos, map[string]any{"identifier": "openconfig-policy-types:OSPF", "name": "ospf",
			"ospfv2": map[string]any{"global": map[string]any{"config": map[string]any{"router-id": rid}}, "areas": map[string]any{"area": al}}})
	}
	return map[string]any{"network-instance": []any{map[string]any{"name": "default", "protocols": map[string]any{"protocol": protos}}}}
}

func routeTree(routes ...[3]string) any { // prefix, next hop, interface
	var rl []any
	for _, r := range routes {
		nh := map[string]any{"outgoing-interface": r[2]}
		if r[1] != "" {
			nh["next-hop-address"] = r[1]
		}
		rl = append(rl, map[string]any{"destination-prefix": r[0], "active": []any{nil}, "source-protocol": "ietf-routing:direct", "next-hop": nh})
	}
	return map[string]any{"ribs": map[string]any{"rib": []any{map[string]any{"name": "ipv4-master", "routes": map[string]any{"route": rl}}}}}
}

func aclTree(set, iface string, proto any, dstPort float64) any {
	e := map[string]any{"sequence-id": 10.0, "actions": map[string]any{"config": map[string]any{"forwarding-action": "DROP"}},
		"ipv4": map[string]any{"config": map[string]any{"protocol": proto, "source-address": "0.0.0.0/0", "destination-address": "0.0.0.0/0"}}}
	if dstPort > 0 {
		e["transport"] = map[string]any{"config": map[string]any{"destination-port": dstPort}}
	}
	permit := map[string]any{"sequence-id": 20.0, "actions": map[string]any{"config": map[string]any{"forwarding-action": "ACCEPT"}},
		"ipv4": map[string]any{"config": map[string]any{"source-address": "0.0.0.0/0", "destination-address": "0.0.0.0/0"}}}
	return map[string]any{
		"acl-sets": map[string]any{"acl-set": []any{map[string]any{"name": set, "type": "ACL_IPV4",
			"acl-entries": map[string]any{"acl-entry": []any{e, permit}}}}},
		"interfaces": map[string]any{"interface": []any{map[string]any{"id": iface,
			"ingress-acl-sets": map[string]any{"ingress-acl-set": []any{map[string]any{"set-name": set, "type": "ACL_IPV4"}}}}}},
	}
}

// twoRouters is r1 (AS 65001) — r2 (AS 65000) over 10.0.12.0/30, eBGP
// on the link, OSPF area 0 on the link; mods change the trees.
type twoRouters struct {
	r1nb, r2nb     []tNb
	r1ospf, r2ospf []tOspf
	r1up, r2up     bool
	r1mtu          int
	r2acl          any
}

func (tr twoRouters) network() *network {
	mk := func(name string, ifs any, ni any, rt any, acl any) *deviceView {
		d := &deviceView{Name: name, Calls: map[string]int{pathInterfaces: 1, pathNetInst: 2, pathRouting: 3, PathACL: 4}}
		d.Ifaces = parseInterfaces(ifs)
		parseVRFs(ni, d.Ifaces)
		d.BGP, d.OSPF = parseBGP(ni), parseOSPF(ni)
		d.routes = parseRoutes(rt)
		d.ACLs, d.Bindings = parseACL(acl)
		return d
	}
	n := &network{Devices: map[string]*deviceView{}, Order: []string{"r1", "r2"}, Unread: map[string]string{}}
	n.Devices["r1"] = mk("r1", ifTree(tIf{"Lo0", "10.255.0.1/32", true, 0}, tIf{"Gi0", "10.0.12.1/30", tr.r1up, tr.r1mtu}),
		netInstTree(65001, "10.255.0.1", tr.r1nb, tr.r1ospf), routeTree([3]string{"10.0.12.0/30", "", "Gi0"}), nil)
	n.Devices["r2"] = mk("r2", ifTree(tIf{"Lo0", "10.255.0.2/32", true, 0}, tIf{"Gi1", "10.0.12.2/30", tr.r2up, 0}),
		netInstTree(65000, "10.255.0.2", tr.r2nb, tr.r2ospf), routeTree([3]string{"10.0.12.0/30", "", "Gi1"}), tr.r2acl)
	n.infer(nil)
	return n
}

func healthy() twoRouters {
	return twoRouters{
		r1nb: []tNb{{"10.0.12.2", 65000, "ESTABLISHED", ""}}, r2nb: []tNb{{"10.0.12.1", 65001, "ESTABLISHED", ""}},
		r1ospf: []tOspf{{"Lo0", "0.0.0.0", true, "", ""}, {"Gi0", "0.0.0.0", false, "10.255.0.2", "FULL"}},
		r2ospf: []tOspf{{"Lo0", "0.0.0.0", true, "", ""}, {"Gi1", "0.0.0.0", false, "10.255.0.1", "FULL"}},
		r1up:   true, r2up: true,
	}
}

func testRun(n *network) *run {
	return &run{c: &Controller{}, rep: &Report{}, net: n}
}

// TestBGPDownRules runs the BGP-down intent on constructed trees.
func TestBGPDownRules(t *testing.T) {
	cases := []struct {
		name    string
		mod     func(*twoRouters)
		causes  []string
		devices []string
		change  string // a proposed edit path contains this
	}{
		{"established", func(*twoRouters) {}, nil, nil, ""},
		{"wrong remote AS", func(tr *twoRouters) {
			tr.r1nb = []tNb{{"10.0.12.2", 65999, "IDLE", "OPEN Message Error/Bad Peer AS"}}
			tr.r2nb[0].state = "ACTIVE"
		}, []string{"bgp_asn_misconfig"}, []string{"r1"}, "neighbor-address='10.0.12.2'"},
		{"ACL on port 179", func(tr *twoRouters) {
			tr.r1nb[0].state, tr.r2nb[0].state = "ACTIVE", "ACTIVE"
			tr.r2acl = aclTree("NO-BGP", "Gi1", "IP_TCP", 179)
		}, []string{"bgp_acl_block"}, []string{"r2"}, "acl-entry[sequence-id='10']"},
		{"link down", func(tr *twoRouters) {
			tr.r1nb[0].state, tr.r2nb[0].state = "ACTIVE", "ACTIVE"
			tr.r1up, tr.r2up = false, false
		}, []string{"link_down"}, []string{"r1", "r2"}, ""},
		{"peer daemons down", func(tr *twoRouters) {
			tr.r1nb[0].state = "ACTIVE"
			tr.r2nb, tr.r2ospf = nil, nil
		}, []string{"frr_service_down"}, []string{"r2"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := healthy()
			c.mod(&tr)
			r := testRun(tr.network())
			if err := r.bgpDown(Intent{Kind: KindBGPDown, Device: "r1", Peer: "10.0.12.2"}); err != nil {
				t.Fatal(err)
			}
			r.rep.finish()
			if !slices.Equal(r.rep.RootCauseName, orEmpty(c.causes)) || !slices.Equal(r.rep.FaultyDevices, orEmpty(c.devices)) {
				t.Fatalf("causes %v on %v, want %v on %v: %s", r.rep.RootCauseName, r.rep.FaultyDevices, c.causes, c.devices, r.rep.Diagnosis)
			}
			if c.change != "" && (len(r.rep.ProposedChanges) == 0 || !strings.Contains(r.rep.ProposedChanges[0].Edit[0].Path, c.change)) {
				t.Fatalf("changes %+v, want an edit of %s", r.rep.ProposedChanges, c.change)
			}
			for _, cause := range r.rep.RootCauses {
				if len(cause.Evidence) == 0 {
					t.Errorf("%s has no evidence", cause.Name)
				}
			}
		})
	}
}

// TestOSPFDownRules runs the OSPF-down intent and the sweep on constructed trees.
func TestOSPFDownRules(t *testing.T) {
	cases := []struct {
		name    string
		mod     func(*twoRouters)
		causes  []string
		devices []string
	}{
		{"full", func(*twoRouters) {}, nil, nil},
		{"area mismatch", func(tr *twoRouters) {
			tr.r1ospf = []tOspf{{"Lo0", "0.0.0.0", true, "", ""}, {"Gi0", "0.0.0.1", false, "", ""}}
			tr.r2ospf[1].nbrRID, tr.r2ospf[1].nbrState = "", ""
		}, []string{"ospf_area_misconfiguration"}, []string{"r1"}},
		{"MTU mismatch", func(tr *twoRouters) {
			tr.r1mtu = 1400
			tr.r1ospf[1].nbrState, tr.r2ospf[1].nbrState = "EXSTART", "EXCHANGE"
		}, []string{"mtu_mismatch"}, []string{"r1"}},
		{"ACL on protocol 89", func(tr *twoRouters) {
			tr.r1ospf[1].nbrState, tr.r2ospf[1].nbrState = "INIT", "DOWN"
			tr.r2acl = aclTree("NO-OSPF", "Gi1", 89.0, 0)
		}, []string{"ospf_acl_block"}, []string{"r2"}},
		{"interface not in OSPF", func(tr *twoRouters) {
			tr.r2ospf = []tOspf{{"Lo0", "0.0.0.0", true, "", ""}}
			tr.r1ospf[1].nbrRID = ""
		}, []string{"ospf_neighbor_missing"}, []string{"r2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := healthy()
			c.mod(&tr)
			r := testRun(tr.network())
			if err := r.ospfDown(Intent{Kind: KindOSPFDown, Device: "r1", Peer: "r2"}); err != nil {
				t.Fatal(err)
			}
			r.rep.finish()
			if !slices.Equal(r.rep.RootCauseName, orEmpty(c.causes)) || !slices.Equal(r.rep.FaultyDevices, orEmpty(c.devices)) {
				t.Fatalf("causes %v on %v, want %v on %v: %s", r.rep.RootCauseName, r.rep.FaultyDevices, c.causes, c.devices, r.rep.Diagnosis)
			}
			if (len(c.causes) == 0) != (*r.rep.Verified) {
				t.Errorf("verified %v", *r.rep.Verified)
			}
		})
	}
}

// TestDeadDaemons: in r1 — r2 — r3, r2's daemons down make every session
// of the three look down; only r2 is named.
func TestDeadDaemons(t *testing.T) {
	mk := func(name string, ifs any, ni any) *deviceView {
		d := &deviceView{Name: name, Calls: map[string]int{}}
		d.Ifaces = parseInterfaces(ifs)
		d.BGP, d.OSPF = parseBGP(ni), parseOSPF(ni)
		return d
	}
	n := &network{Devices: map[string]*deviceView{}, Order: []string{"r1", "r2", "r3"}}
	n.Devices["r1"] = mk("r1", ifTree(tIf{"Gi0", "10.0.12.1/30", true, 0}),
		netInstTree(65001, "1.1.1.1", []tNb{{"10.0.12.2", 65000, "ACTIVE", ""}}, []tOspf{{"Gi0", "0.0.0.0", false, "", ""}}))
	n.Devices["r2"] = mk("r2", ifTree(tIf{"Gi0", "10.0.12.2/30", true, 0}, tIf{"Gi1", "10.0.23.1/30", true, 0}),
		netInstTree(65000, "2.2.2.2", []tNb{{"10.0.12.1", 65001, "IDLE", ""}, {"10.0.23.2", 65000, "IDLE", ""}},
			[]tOspf{{"Gi0", "0.0.0.0", false, "", ""}, {"Gi1", "0.0.0.0", false, "", ""}}))
	n.Devices["r3"] = mk("r3", ifTree(tIf{"Gi0", "10.0.23.2/30", true, 0}),
		netInstTree(65000, "3.3.3.3", []tNb{{"10.0.23.1", 65000, "ACTIVE", ""}}, []tOspf{{"Gi0", "0.0.0.0", false, "", ""}}))
	// r2's OSPF process reports its (up) interfaces down: its daemon is
	// gone; r1 and r3 only lost their sessions to it.
	for i := range n.Devices["r2"].OSPF.Interfaces {
		n.Devices["r2"].OSPF.Interfaces[i].DaemonDown = true
	}
	n.infer(nil)
	r := testRun(n)
	r.applyRules(n, rulesNamed(t, "routing-daemon", "ospf-adjacency", "bgp-session", "bgp-advertisement"))
	r.rep.finish()
	if !slices.Equal(r.rep.RootCauseName, []string{"frr_service_down"}) || !slices.Equal(r.rep.FaultyDevices, []string{"r2"}) {
		t.Fatalf("%v on %v: %s", r.rep.RootCauseName, r.rep.FaultyDevices, r.rep.Diagnosis)
	}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// TestOddAreaIsLocal: of a link's two ends in different areas, the end
// that makes its router span areas without the backbone, else the end
// whose area is on no other OSPF interface of its router, is blamed, even
// where that area is the commoner across the network (a whole other AS
// runs it); only when neither decides does the count across the network.
func TestOddAreaIsLocal(t *testing.T) {
	router := func(name string, areas ...string) *deviceView {
		o := &ospfView{}
		for k, a := range areas {
			o.Interfaces = append(o.Interfaces, ospfIface{Name: fmt.Sprintf("if%d", k), Area: a})
		}
		return &deviceView{Name: name, OSPF: o}
	}
	// Area 0.0.0.2 is common: another AS runs it on many interfaces.
	other := router("x", "0.0.0.2", "0.0.0.2", "0.0.0.2", "0.0.0.2", "0.0.0.2")
	for _, tc := range []struct {
		name   string
		a, b   *deviceView
		wantA  bool
		reason string
	}{
		// r3's link (if0) moved to 0.0.0.2; its other interfaces are in
		// 0.0.0.1, as r1's end (an ABR of 0 and 1).
		{"b moved", router("r1", "0.0.0.1", "0.0.0.0", "0.0.0.0"), router("r3", "0.0.0.2", "0.0.0.1", "0.0.0.1"), false, "r3 stands alone"},
		{"a moved", router("r3", "0.0.0.2", "0.0.0.1", "0.0.0.1"), router("r1", "0.0.0.1", "0.0.0.0", "0.0.0.0"), true, "r3 stands alone"},
		// r1's link moved to a new area 0.0.0.5: r1 stays a border
		// router of the backbone, but 0.0.0.5 is on no other interface of
		// r1, while r3's 0.0.0.0 is on r3's others.
		{"new area", router("r1", "0.0.0.5", "0.0.0.0", "0.0.0.0"), router("r3", "0.0.0.0", "0.0.0.0"), true, "0.0.0.5 stands alone on r1"},
		// Both ends valid and alone on their routers: the rarer area
		// network-wide.
		{"both alone", router("p", "0.0.0.7", "0.0.0.0"), router("q", "0.0.0.2", "0.0.0.0"), true, "0.0.0.7 is rarer"},
	} {
		n := &network{Devices: map[string]*deviceView{tc.a.Name: tc.a, tc.b.Name: tc.b, "x": other}}
		r := &run{}
		if got := r.oddAreaIsA(n, tc.a, tc.a.OSPF.Interfaces[0], tc.b, tc.b.OSPF.Interfaces[0]); got != tc.wantA {
			t.Errorf("%s: oddAreaIsA = %v, want %v (%s)", tc.name, got, tc.wantA, tc.reason)
		}
	}
}

// TestDottedArea: an area given as a number (OpenConfig allows either
// form) compares equal to its dotted form.
func TestDottedArea(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"0", "0.0.0.0"}, {"1", "0.0.0.1"}, {"256", "0.0.1.0"}, {"4294967295", "255.255.255.255"},
		{"0.0.0.2", "0.0.0.2"}, {"4294967296", "4294967296"}, {"", ""},
	} {
		if got := dottedArea(tc.in); got != tc.want {
			t.Errorf("dottedArea(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
