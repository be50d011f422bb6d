//go:build linux

package twin

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
)

func TestErrorClass(t *testing.T) {
	tests := []struct{ state, err, want string }{
		{"Established", "Hold Timer Expired", "-"},
		{"Active", "", "none"},
		{"Connect", "Hold Timer Expired", "hold-timer-expired"},
		{"Idle", "OPEN Message Error/Bad Peer AS", "bad-peer-as"},
		{"Idle", "OPEN Message Error/Unsupported Version Number", "open-message-error"},
		{"Idle", "Cease/Administrative Shutdown", "cease"},
		{"Active", "Waiting for NHT", "no-route"},
		{"Active", "Something New", "text:something new"},
	}
	for _, tc := range tests {
		if got := errorClass(tc.state, tc.err); got != tc.want {
			t.Errorf("errorClass(%q, %q) = %q, want %q", tc.state, tc.err, got, tc.want)
		}
	}
}

func TestParseTraceroute(t *testing.T) {
	tests := []struct{ out, want string }{
		{"traceroute to 10.3.0.10 (10.3.0.10), 8 hops max, 60 byte packets\n 1  10.0.12.2  0.050 ms\n 2  10.0.23.2  0.061 ms\n 3  10.3.0.10  0.070 ms\n", "10.0.12.2 10.0.23.2 10.3.0.10"},
		{"traceroute to 10.0.0.5 (10.0.0.5), 8 hops max, 60 byte packets\n 1  10.0.23.1  0.05 ms !N\n", "10.0.23.1 !N"},
		{"traceroute to 10.9.9.9 (10.9.9.9), 8 hops max\n 1  10.0.12.2  0.05 ms\n 2  *\n 3  *\n 4  *\n", "10.0.12.2 *"},
		{"traceroute to 10.3.0.99 (10.3.0.99), 8 hops max\n 1  10.3.0.1  3000.1 ms !H\n", "10.3.0.1 !H"},
	}
	for _, tc := range tests {
		if got := parseTraceroute(tc.out); got != tc.want {
			t.Errorf("parseTraceroute(%q) = %q, want %q", tc.out, got, tc.want)
		}
	}
}

func TestCompareAndKnown(t *testing.T) {
	env := NewEnv(sim.DefaultTopology())
	if got := env.Loopbacks["r2"]; got != netip.MustParseAddr("10.255.0.2") {
		t.Errorf("r2's loopback = %v", got)
	}
	if got := len(env.Probes()); got != 3*2+3*2 {
		t.Errorf("probes = %d, want 12 (3 routers to 2 loopbacks and 2 hosts each)", got)
	}
	s, r := Facts{}, Facts{}
	s.Add(KindOSPF, "r1", "Gi0 10.255.0.2", "Full")
	r.Add(KindOSPF, "r1", "Gi0 10.255.0.2", "Full")
	s.Add(KindBGPState, "r1", "10.0.12.2", "Active")
	r.Add(KindBGPState, "r1", "10.0.12.2", "Established")
	r.Add(KindRoute, "r2", "10.0.0.0/24", "ospf 10.0.12.1")    // VRF mgmt's subnet: known
	s.Add(KindPing, "r2", "10.0.0.5", "fail")                  // a host behind VRF mgmt: known
	r.Add(KindPing, "r2", "10.0.0.5", "ok")                    //
	r.Add(KindRoute, "r2", "10.99.0.0/24", "static blackhole") // not known
	rep := Compare("unit", s, r, env, KnownDifferences)
	if rep.Agree != 1 || rep.KnownDiffs != 2 || rep.Differ != 2 || rep.OK() {
		t.Errorf("agree %d, known %d, differ %d; want 1, 2, 2", rep.Agree, rep.KnownDiffs, rep.Differ)
	}
	var b bytes.Buffer
	rep.Print(&b, false)
	out := b.String()
	for _, want := range []string{"known:vrf-global", "DIFFER", "absent", "5 facts: 1 agree, 2 known differences, 2 undocumented differences"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Gi0 10.255.0.2") {
		t.Errorf("an agreeing fact printed without all:\n%s", out)
	}
}

// TestSimFacts reads the default lab's facts from the simulator: every
// adjacency Full, every session Established, BGP routes by the BGP next
// hop, and the probes' outcomes.
func TestSimFacts(t *testing.T) {
	topo := FastBGP(sim.DefaultTopology())
	env := NewEnv(topo)
	n, err := newSim(topo)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := SimControl(n, env)
	if err != nil {
		t.Fatal(err)
	}
	probes, err := SimProbes(n, env)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"ospf r2 GigabitEthernet0/0/0/1 10.255.0.3": "Full",
		"bgp-state r2 10.255.0.3":                   "Established",
		"bgp-error r2 10.255.0.3":                   "-",
		"route r2 10.3.0.0/24":                      "bgp 10.255.0.3",
		"route r1 172.16.0.0/12":                    "static blackhole",
		"route r3 10.3.0.0/24":                      "connected GigabitEthernet0/0/1",
	}
	for k, v := range want {
		if fs[k].Value != v {
			t.Errorf("%s = %q, want %q", k, fs[k].Value, v)
		}
	}
	wantProbes := map[string]string{
		"ping r1 10.3.0.10":  "ok",
		"trace r1 10.3.0.10": "10.0.12.2 10.0.23.2 10.3.0.10",
		"ping r3 10.0.0.5":   "fail",
	}
	for k, v := range wantProbes {
		if probes[k].Value != v {
			t.Errorf("%s = %q, want %q", k, probes[k].Value, v)
		}
	}
}

// TestApplySimFault injects each fault of the check to the simulator and
// checks its first effect there.
func TestApplySimFault(t *testing.T) {
	topo := FastBGP(sim.DefaultTopology())
	env := NewEnv(topo)
	tests := []struct {
		fault string
		key   string
		want  string
	}{
		{"link_down r2:GigabitEthernet0/0/0/1", "bgp-state r2 10.255.0.3", "!Established"},
		{"bgp_acl_block r1:GigabitEthernet0/0/0", "bgp-error r1 10.0.12.2", "hold-timer-expired"},
		{"frr_service_down r3", "bgp-state r2 10.255.0.3", "!Established"},
		{"mtu_mismatch r1:GigabitEthernet0/0/0 mtu=1400", "ospf r1 GigabitEthernet0/0/0 10.255.0.2", "!Full"},
	}
	for _, tc := range tests {
		t.Run(tc.fault, func(t *testing.T) {
			f, err := topology.ParseFault(tc.fault)
			if err != nil {
				t.Fatal(err)
			}
			n, err := SimWithFault(topo, f)
			if err != nil {
				t.Fatal(err)
			}
			fs, err := SimControl(n, env)
			if err != nil {
				t.Fatal(err)
			}
			got := fs[tc.key].Value
			switch {
			case strings.HasPrefix(tc.want, "!"):
				if got == tc.want[1:] {
					t.Errorf("%s = %q after %s", tc.key, got, tc.fault)
				}
			case got != tc.want:
				t.Errorf("%s = %q after %s, want %q", tc.key, got, tc.fault, tc.want)
			}
		})
	}
	if _, err := SimWithFault(topo, topology.Fault{Name: "ospf_acl_block", Target: "r1:GigabitEthernet0/0/0"}); err == nil {
		t.Error("a fault outside the check applied without error")
	}
	_ = netsim.OSPFFull
}
