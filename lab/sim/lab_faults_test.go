package sim

import (
	"encoding/json"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
)

// faultRow is one fault of the catalog injected into the default lab.
type faultRow struct {
	words string
	// running lists text the router's running configuration (YANG, as
	// JSON, and the dialect's text) shows while the fault is in.
	running []string
	// model tells whether the device's configuration in the model shows
	// the fault (configuration faults).
	model func(d topology.Device) bool
	// state tells whether the network shows the fault (runtime faults).
	state func(t *testing.T, l *Lab) bool
}

func ifOf(d topology.Device, name string) topology.Interface {
	for _, it := range d.Interfaces {
		if it.Name == name {
			return it
		}
	}
	return topology.Interface{}
}

func aclBound(dev, ifn, acl string, ingress bool) func(topology.Device) bool {
	return func(d topology.Device) bool {
		it := ifOf(d, ifn)
		bound := it.EgressACL
		if ingress {
			bound = it.IngressACL
		}
		return bound == acl && slices.ContainsFunc(d.ACLs, func(a topology.ACL) bool { return a.Name == acl })
	}
}

func operUp(t *testing.T, l *Lab, dev, ifn string) bool {
	t.Helper()
	st, err := l.Network().InterfaceState(dev, ifn)
	if err != nil {
		t.Fatal(err)
	}
	return st.OperUp
}

func pingOut(t *testing.T, l *Lab, from, to string, size int, df bool) netsim.PingOutcome {
	t.Helper()
	o, err := l.Network().Ping(netsim.ProbeRequest{From: from, Destination: netip.MustParseAddr(to), Size: size, DontFragment: df})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func replies(o netsim.PingOutcome) (n int, maxRTT time.Duration) {
	for _, r := range o.Replies {
		if r.Kind == netsim.ResultReply {
			n++
			maxRTT = max(maxRTT, r.RTT)
		}
	}
	return n, maxRTT
}

func hasFault(dev, name string) func(*testing.T, *Lab) bool {
	return func(t *testing.T, l *Lab) bool {
		return slices.ContainsFunc(l.Network().RuntimeFaultsOn(dev), func(f topology.Fault) bool { return f.Name == name })
	}
}

var faultRows = []faultRow{
	{words: "arp_acl_block r1:GigabitEthernet0/0/0", running: []string{"NIKA-ARP-BLOCK", "ETHERTYPE_ARP", "rule 10 deny arp"},
		model: aclBound("r1", "GigabitEthernet0/0/0", "NIKA-ARP-BLOCK", true)},
	{words: "bgp_acl_block r2:GigabitEthernet0/0/0/1", running: []string{"NIKA-BGP-BLOCK", `"source-port":179`, `"destination-port":179`, "10 deny tcp any any eq 179", "20 deny tcp any eq 179 any"},
		model: aclBound("r2", "GigabitEthernet0/0/0/1", "NIKA-BGP-BLOCK", true)},
	{words: "bgp_asn_misconfig r2 neighbor=10.0.12.1", model: func(d topology.Device) bool {
		return d.BGP != nil && d.BGP.Neighbors[0].RemoteAS == 66001
	}},
	{words: "bgp_missing_route_advertisement r3", model: func(d topology.Device) bool {
		return d.BGP != nil && !slices.Contains(d.BGP.Networks, "10.3.0.0/24")
	}},
	{words: "dns_port_blocked h3", model: aclBound("h3", "eth0", "NIKA-DNS-BLOCK", true)},
	{words: "dns_record_error h3", model: func(d topology.Device) bool {
		return d.DNS.Zones[0].Records[0].Value == "192.0.2.1"
	}},
	{words: "dns_service_down h3", model: func(d topology.Device) bool { return d.DNS.Disabled }},
	{words: "frr_service_down r2", state: hasFault("r2", "frr_service_down")},
	{words: "host_crash h1", state: hasFault("h1", "host_crash")},
	{words: "host_incorrect_dns h3", model: func(d topology.Device) bool {
		return reflect.DeepEqual(d.DNSServers, []string{"10.3.0.1"})
	}},
	{words: "host_incorrect_gateway h3 gateway=10.3.0.99", model: func(d topology.Device) bool { return d.Gateway == "10.3.0.99" }},
	{words: "host_incorrect_ip h3", model: func(d topology.Device) bool { return ifOf(d, "eth0").Addresses[0] == "10.3.1.10/24" }},
	{words: "host_incorrect_netmask h3", model: func(d topology.Device) bool { return ifOf(d, "eth0").Addresses[0] == "10.3.0.10/30" }},
	{words: "host_ip_conflict h3", model: func(d topology.Device) bool { return ifOf(d, "eth0").Addresses[0] == "10.3.0.1/24" }},
	{words: "host_missing_ip h1", model: func(d topology.Device) bool { return len(ifOf(d, "eth0").Addresses) == 0 }},
	{words: "host_static_blackhole h1", model: func(d topology.Device) bool {
		return slices.ContainsFunc(d.Routes, func(r topology.StaticRoute) bool { return r.Prefix == "10.3.0.0/24" && r.Discard })
	}},
	{words: "http_acl_block r3:GigabitEthernet0/0/1 port=8080", running: []string{"NIKA-HTTP-BLOCK", `"destination-port":8080`, "destination-port eq 8080"},
		model: aclBound("r3", "GigabitEthernet0/0/1", "NIKA-HTTP-BLOCK", true)},
	{words: "icmp_acl_block r2:GigabitEthernet0/0/0/0", running: []string{"NIKA-ICMP-BLOCK", "IP_ICMP", "10 deny icmp any any"},
		model: aclBound("r2", "GigabitEthernet0/0/0/0", "NIKA-ICMP-BLOCK", true),
		state: func(t *testing.T, l *Lab) bool {
			n, _ := replies(pingOut(t, l, "r1", "10.0.12.2", 0, false))
			return n == 0
		}},
	{words: "link_bandwidth_throttling r1:GigabitEthernet0/0/0", state: func(t *testing.T, l *Lab) bool {
		n, rtt := replies(pingOut(t, l, "r1", "10.0.12.2", 0, false))
		return n < 5 || rtt > 400*time.Millisecond
	}},
	{words: "link_detach r3:GigabitEthernet0/0/1", state: func(t *testing.T, l *Lab) bool {
		return !operUp(t, l, "r3", "GigabitEthernet0/0/1") && operUp(t, l, "h3", "eth0")
	}},
	{words: "link_down r1:GigabitEthernet0/0/0", state: func(t *testing.T, l *Lab) bool {
		return !operUp(t, l, "r1", "GigabitEthernet0/0/0") && !operUp(t, l, "r2", "GigabitEthernet0/0/0/0")
	}},
	// The test clock starts on a multiple of 10 s: the first 3 s of the period are down.
	{words: "link_flap r2:GigabitEthernet0/0/0/1", state: func(t *testing.T, l *Lab) bool {
		return !operUp(t, l, "r2", "GigabitEthernet0/0/0/1")
	}},
	{words: "link_fragmentation_disabled r1:GigabitEthernet0/0/0", state: func(t *testing.T, l *Lab) bool {
		st, _ := l.Network().InterfaceState("r1", "GigabitEthernet0/0/0")
		big, _ := replies(pingOut(t, l, "r1", "10.0.12.2", 1450, false))
		small, _ := replies(pingOut(t, l, "r1", "10.0.12.2", 0, false))
		return st.MTU == 1400 && big == 0 && small == 5
	}},
	{words: "link_high_latency r1:GigabitEthernet0/0/0 delay-ms=200", state: func(t *testing.T, l *Lab) bool {
		n, rtt := replies(pingOut(t, l, "r1", "10.0.12.2", 0, false))
		return n == 5 && rtt >= 400*time.Millisecond
	}},
	{words: "link_high_packet_corruption r1:GigabitEthernet0/0/0 percent=100 direction=out", state: func(t *testing.T, l *Lab) bool {
		n, _ := replies(pingOut(t, l, "r1", "10.0.12.2", 0, false))
		st, _ := l.Network().InterfaceState("r2", "GigabitEthernet0/0/0/0")
		return n == 0 && st.Counters.InErrors > 0
	}},
	{words: "mac_address_conflict h1", model: func(d topology.Device) bool {
		return strings.HasPrefix(ifOf(d, "eth0").MAC, "02:") // r1 Vlan100's derived MAC
	}},
	{words: "mtu_mismatch r2:GigabitEthernet0/0/0/1 mtu=1400", running: []string{`"mtu":1400`},
		model: func(d topology.Device) bool { return ifOf(d, "GigabitEthernet0/0/0/1").MTU == 1400 }},
	{words: "ospf_acl_block r2:GigabitEthernet0/0/0/1", running: []string{"NIKA-OSPF-BLOCK", `"protocol":89`, "10 deny ospf any any"},
		model: aclBound("r2", "GigabitEthernet0/0/0/1", "NIKA-OSPF-BLOCK", true)},
	{words: "ospf_area_misconfiguration r3:GigabitEthernet0/0/0", model: func(d topology.Device) bool {
		o := ifOf(d, "GigabitEthernet0/0/0").OSPF
		return o != nil && o.Area == "0.0.0.1"
	}},
	{words: "ospf_neighbor_missing r2:GigabitEthernet0/0/0/1", model: func(d topology.Device) bool {
		return ifOf(d, "GigabitEthernet0/0/0/1").OSPF == nil
	}},
}

// runningText is a router's running configuration as YANG JSON and as
// the dialect's configuration text.
func runningText(t *testing.T, l *Lab, dev string) string {
	t.Helper()
	drv, err := l.Device(dev)
	if err != nil {
		return ""
	}
	b, err := json.Marshal(drv.store.Running())
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n" + renderConfig(drv.config(), drv.dialect, time.Time{}, "")
}

func modelDevice(t *testing.T, l *Lab, dev string) topology.Device {
	t.Helper()
	d, ok := l.Network().Device(dev)
	if !ok {
		t.Fatalf("no device %s", dev)
	}
	return d
}

func TestFaultCatalogOnDefaultLab(t *testing.T) {
	for _, spec := range topology.Catalog {
		if !slices.ContainsFunc(faultRows, func(r faultRow) bool { return strings.HasPrefix(r.words, spec.Name+" ") }) {
			t.Errorf("no test row for fault %s", spec.Name)
		}
	}
	for _, row := range faultRows {
		t.Run(strings.Fields(row.words)[0], func(t *testing.T) {
			lab, _ := newTestLab(t)
			f, err := topology.ParseFault(row.words)
			if err != nil {
				t.Fatal(err)
			}
			dev, _ := faultTarget(f)
			beforeModel := modelDevice(t, lab, dev)
			beforeRunning := runningText(t, lab, dev)
			af, err := lab.Inject(f)
			if err != nil {
				t.Fatalf("Inject: %v", err)
			}
			if got := lab.Faults(); len(got) != 1 || got[0].ID != af.ID || got[0].Words != f.String() || !slices.Contains(got[0].Devices, dev) {
				t.Errorf("Faults() = %+v", got)
			}
			wantKind := FaultConfig
			if netsim.IsRuntimeFault(f.Name) {
				wantKind = FaultRuntime
			}
			if af.Kind != wantKind {
				t.Errorf("kind %s, want %s", af.Kind, wantKind)
			}
			running := runningText(t, lab, dev)
			for _, s := range row.running {
				if !strings.Contains(running, s) {
					t.Errorf("running configuration of %s lacks %q", dev, s)
				}
			}
			if row.running != nil && af.Note != "" && strings.Contains(af.Note, "not in") {
				t.Errorf("note %q: the change should be all in the configuration tree", af.Note)
			}
			if row.model != nil && !row.model(modelDevice(t, lab, dev)) {
				t.Errorf("the model's configuration of %s does not show the fault: %+v", dev, modelDevice(t, lab, dev))
			}
			if row.state != nil && !row.state(t, lab) {
				t.Errorf("the network does not show the fault")
			}
			if wantKind == FaultConfig && sameDevice(beforeModel, modelDevice(t, lab, dev)) {
				t.Errorf("a configuration fault left %s's configuration as it was", dev)
			}
			cleared, err := lab.ClearFault(af.ID)
			if err != nil {
				t.Fatalf("ClearFault: %v", err)
			}
			if cleared.Note != "" && !strings.Contains(cleared.Note, "configuration tree yet") {
				t.Errorf("clear note %q, want none", cleared.Note)
			}
			if len(lab.Faults()) != 0 {
				t.Errorf("still listed after clear: %+v", lab.Faults())
			}
			if after := modelDevice(t, lab, dev); !sameDevice(after, beforeModel) {
				t.Errorf("configuration of %s not restored:\nbefore %+v\nafter  %+v", dev, beforeModel, after)
			}
			if got := runningText(t, lab, dev); got != beforeRunning {
				t.Errorf("running configuration of %s not restored:\nbefore %s\nafter  %s", dev, beforeRunning, got)
			}
			if row.state != nil && wantKind == FaultRuntime && row.state(t, lab) {
				t.Errorf("the network still shows the fault after clear")
			}
		})
	}
}

// TestConfigFaultCommitsAsFaultInjector checks that a router's
// configuration fault is a commit in its history by the fault injector.
func TestConfigFaultCommitsAsFaultInjector(t *testing.T) {
	lab, _ := newTestLab(t)
	f, _ := topology.ParseFault("bgp_acl_block r2:GigabitEthernet0/0/0/1 direction=out")
	if _, err := lab.Inject(f); err != nil {
		t.Fatal(err)
	}
	h, err := mustDevice(t, lab, "r2").History(t.Context())
	if err != nil || len(h) == 0 {
		t.Fatalf("history: %v %v", h, err)
	}
	if h[0].User != FaultOwner.User || !strings.Contains(h[0].Comment, "bgp_acl_block") {
		t.Errorf("last commit %+v, want one by %s about bgp_acl_block", h[0], FaultOwner.User)
	}
	if d := modelDevice(t, lab, "r2"); ifOf(d, "GigabitEthernet0/0/0/1").EgressACL != "NIKA-BGP-BLOCK" {
		t.Errorf("direction=out: not bound outbound: %+v", ifOf(d, "GigabitEthernet0/0/0/1"))
	}
}

// TestClearKeepsOperatorChange checks that clearing a fault whose change
// an operator has since changed again leaves the operator's change and
// says so, while restoring the rest.
func TestClearKeepsOperatorChange(t *testing.T) {
	lab, _ := newTestLab(t)
	f, _ := topology.ParseFault("host_incorrect_gateway h3 gateway=10.3.0.99")
	af, err := lab.Inject(f)
	if err != nil {
		t.Fatal(err)
	}
	d := modelDevice(t, lab, "h3")
	d.Gateway = "10.3.0.77" // the operator's own fix attempt
	if err := lab.applyDevice(d); err != nil {
		t.Fatal(err)
	}
	cleared, err := lab.ClearFault(af.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := modelDevice(t, lab, "h3").Gateway; got != "10.3.0.77" {
		t.Errorf("gateway %s, want the operator's 10.3.0.77 kept", got)
	}
	if !strings.Contains(cleared.Note, "/gateway") {
		t.Errorf("note %q does not name the part left as it is", cleared.Note)
	}
}

// TestClearByWordsAndFlap checks ClearFault by the fault's words and a
// link flap following the lab clock.
func TestClearByWordsAndFlap(t *testing.T) {
	lab, clk := newTestLab(t)
	f, _ := topology.ParseFault("link_flap r2:GigabitEthernet0/0/0/1 period=10 down=3")
	if _, err := lab.Inject(f); err != nil {
		t.Fatal(err)
	}
	if operUp(t, lab, "r2", "GigabitEthernet0/0/0/1") {
		t.Fatal("up at the start of the period")
	}
	clk.Advance(5 * time.Second)
	lab.RefreshTimedFaults()
	if !operUp(t, lab, "r2", "GigabitEthernet0/0/0/1") {
		t.Fatal("down 5 s into the period")
	}
	clk.Advance(6 * time.Second)
	lab.RefreshTimedFaults()
	if operUp(t, lab, "r2", "GigabitEthernet0/0/0/1") {
		t.Fatal("up 1 s into the next period")
	}
	if _, err := lab.ClearFault("link_flap  r2:GigabitEthernet0/0/0/1 down=3 period=10"); err != nil {
		t.Fatal(err)
	}
	if !operUp(t, lab, "r2", "GigabitEthernet0/0/0/1") {
		t.Fatal("down after clear")
	}
	if _, err := lab.ClearFault("f9"); err == nil || !strings.Contains(err.Error(), "no fault is injected") {
		t.Errorf("clearing an unknown fault: %v", err)
	}
}

// TestInjectRefusesBadFaults checks the model's checks of a named fault.
func TestInjectRefusesBadFaults(t *testing.T) {
	lab, _ := newTestLab(t)
	for _, tc := range []struct {
		f    topology.Fault
		want string
	}{
		{topology.Fault{Name: "no_such_fault", Target: "r1"}, `"no_such_fault": unknown name (known: arp_acl_block, bgp_acl_block, `},
		{topology.Fault{Name: "link_down", Target: "r9:Gi0"}, `no device "r9"`},
		{topology.Fault{Name: "link_down", Target: "r1:TenGigE0/0/0/0"}, "no link has end"},
		{topology.Fault{Name: "host_crash", Target: "r1"}, "applies to hosts"},
		{topology.Fault{Name: "bgp_acl_block", Target: "h3:eth0"}, "applies to routers"},
		{topology.Fault{Name: "mtu_mismatch", Target: "r1:Gi9"}, "has no interface"},
		{topology.Fault{Name: "link_high_packet_corruption", Target: "r1:GigabitEthernet0/0/0", Params: map[string]string{"percent": "130"}}, "out of range"},
		{topology.Fault{Name: "link_high_latency", Target: "r1:GigabitEthernet0/0/0", Params: map[string]string{"direction": "up"}}, "want in, out, both"},
		{topology.Fault{Name: "icmp_acl_block", Target: "r1:GigabitEthernet0/0/0", Params: map[string]string{"direction": "both"}}, "want in, out"},
		{topology.Fault{Name: "link_flap", Target: "r1:GigabitEthernet0/0/0", Params: map[string]string{"down": "20"}}, "shorter than period"},
		{topology.Fault{Name: "ospf_neighbor_missing", Target: "r1:TenGigE0/0/0/0"}, "not in OSPF"},
		{topology.Fault{Name: "host_incorrect_gateway", Target: "h3", Params: map[string]string{"gateway": "10.3.0.1"}}, "already"},
	} {
		_, err := lab.Inject(tc.f)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.f.String(), err, tc.want)
		}
	}
	if len(lab.Faults()) != 0 {
		t.Errorf("refused faults listed: %+v", lab.Faults())
	}
}

// TestTopologyFaults checks that a topology file's fault list, written as
// words, starts with the lab: runtime faults in the model, configuration
// faults committed.
func TestTopologyFaults(t *testing.T) {
	yml := string(defaultYAML) + "\nfaults:\n  - link_down r1:GigabitEthernet0/0/0\n  - bgp_acl_block r2:GigabitEthernet0/0/0/1\n"
	topo, err := ParseTopology([]byte(yml))
	if err != nil {
		t.Fatal(err)
	}
	lab, err := NewLab(topo, LabOptions{Seed: 7, Now: newClock().Now})
	if err != nil {
		t.Fatal(err)
	}
	defer lab.Close()
	got := lab.Faults()
	if len(got) != 2 || got[0].Kind != FaultRuntime || got[1].Kind != FaultConfig {
		t.Fatalf("Faults() = %+v", got)
	}
	if !strings.Contains(runningText(t, lab, "r2"), "NIKA-BGP-BLOCK") {
		t.Error("bgp_acl_block not in r2's running configuration")
	}
	if operUp(t, lab, "r1", "GigabitEthernet0/0/0") {
		t.Error("link_down: r1 Gi0/0/0 up")
	}
	lab.ClearFaults()
	if len(lab.Faults()) != 0 || strings.Contains(runningText(t, lab, "r2"), "NIKA-BGP-BLOCK") || !operUp(t, lab, "r1", "GigabitEthernet0/0/0") {
		t.Error("ClearFaults left faults in")
	}
}

// TestCorruptionSyslog checks that one-way corruption raises the CRC
// alarm only at the receiving end, and clears it there.
func TestCorruptionSyslog(t *testing.T) {
	lab, _ := newTestLab(t)
	f, _ := topology.ParseFault("link_high_packet_corruption r1:GigabitEthernet0/0/0 percent=30 direction=out")
	af, err := lab.Inject(f)
	if err != nil {
		t.Fatal(err)
	}
	text := func(dev string) string {
		var b strings.Builder
		for _, e := range mustDevice(t, lab, dev).log.last(1000) {
			b.WriteString(e.Message + "\n")
		}
		return b.String()
	}
	if r2 := text("r2"); !strings.Contains(r2, "CRC-ERROR :DECLARE") || !strings.Contains(r2, "GigabitEthernet0/0/0/0") {
		t.Errorf("r2 (receiver) log:\n%s", r2)
	}
	if strings.Contains(text("r1"), "CRC") {
		t.Errorf("r1 (sender) logs a CRC alarm:\n%s", text("r1"))
	}
	if _, err := lab.ClearFault(af.ID); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text("r2"), "CRC-ERROR :CLEAR") {
		t.Errorf("no clear on r2:\n%s", text("r2"))
	}
}

// TestFaultsSurviveRestart checks that a lab started again on its state
// directory knows its faults: the topology's are not injected twice, the
// runtime ones are back in the model, and a configuration fault still
// clears back to the configuration from before it.
func TestFaultsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	yml := string(defaultYAML) + "\nfaults:\n  - link_down r1:GigabitEthernet0/0/0\n  - bgp_acl_block r2:GigabitEthernet0/0/0/1\n"
	topo, err := ParseTopology([]byte(yml))
	if err != nil {
		t.Fatal(err)
	}
	clean, err := NewLab(DefaultTopology(), LabOptions{Now: newClock().Now})
	if err != nil {
		t.Fatal(err)
	}
	want := runningText(t, clean, "r2")
	clean.Close()
	lab, err := NewLab(topo, LabOptions{StateDir: dir, Now: newClock().Now})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lab.Inject(topology.Fault{Name: "host_incorrect_gateway", Target: "h3"}); err != nil {
		t.Fatal(err)
	}
	lab.Close()
	lab, err = NewLab(topo, LabOptions{StateDir: dir, Now: newClock().Now})
	if err != nil {
		t.Fatalf("second start: %v", err)
	}
	defer lab.Close()
	got := lab.Faults()
	if len(got) != 3 || got[0].ID != "f1" || got[2].ID != "f3" {
		t.Fatalf("Faults() after restart = %+v", got)
	}
	if operUp(t, lab, "r1", "GigabitEthernet0/0/0") {
		t.Error("link_down not back in the model")
	}
	if _, err := lab.ClearFault("bgp_acl_block r2:GigabitEthernet0/0/0/1"); err != nil {
		t.Fatal(err)
	}
	if got := runningText(t, lab, "r2"); got != want {
		t.Errorf("r2 after clear:\n%s\nwant\n%s", got, want)
	}
	if af, err := lab.Inject(topology.Fault{Name: "link_detach", Target: "r3:GigabitEthernet0/0/1"}); err != nil || af.ID != "f4" {
		t.Errorf("next id after restart: %+v %v", af, err)
	}
}
