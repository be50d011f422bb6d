//go:build linux

package twin

import (
	"testing"

	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
)

// TestKnownDifferences checks which rows each known difference explains,
// and that it explains no other.
func TestKnownDifferences(t *testing.T) {
	base := NewEnv(sim.DefaultTopology())
	fault := func(s string) *Env {
		f, err := topology.ParseFault(s)
		if err != nil {
			t.Fatal(err)
		}
		return base.WithFaults(f)
	}
	row := func(kind, dev, subject, simV, realV string) Row {
		return Row{Fact: Fact{Kind: kind, Device: dev, Subject: subject}, Sim: simV, Real: realV}
	}
	tests := []struct {
		env  *Env
		row  Row
		want string // the ID that explains it, "" for none
	}{
		{base, row(KindRoute, "r2", "10.0.0.0/24", Absent, "ospf 10.0.12.1"), "vrf-global"},
		{base, row(KindRoute, "r2", "192.168.1.1/32", Absent, "ospf 10.0.12.1"), "vrf-global"},
		{base, row(KindTrace, "r3", "10.0.0.5", "10.0.23.1 !N", "10.0.23.1 10.0.12.1 10.0.0.5"), "vrf-global"},
		{base, row(KindRoute, "r2", "10.3.0.0/24", Absent, "bgp 10.255.0.3"), ""},
		{base, row(KindOSPF, "r2", "GigabitEthernet0/0/0/1 10.255.0.3", "Down", Absent), "ospf-down-listed"},
		{base, row(KindOSPF, "r2", "GigabitEthernet0/0/0/1 10.255.0.3", "Full", Absent), ""},
		{base, row(KindBGPState, "r1", "10.0.12.2", "Active", "Connect"), "bgp-connect-active"},
		{base, row(KindBGPState, "r1", "10.0.12.2", "Idle", "Connect"), ""},
		{base, row(KindBGPError, "r2", "10.255.0.3", "hold-timer-expired", "no-route"), "bgp-nht-drop"},
		{base, row(KindBGPError, "r2", "10.255.0.3", "bad-peer-as", "no-route"), ""},
		{fault("icmp_acl_block r2:GigabitEthernet0/0/0/1"), row(KindPing, "r1", "10.3.0.10", "fail", "ok"), "icmp-acl-type"},
		{base, row(KindPing, "r1", "10.3.0.10", "fail", "ok"), ""},
		{fault("frr_service_down r3"), row(KindBGPState, "r3", "10.255.0.2", "Idle", Absent), "stopped-daemons-listed"},
		{fault("frr_service_down r3"), row(KindBGPState, "r2", "10.255.0.3", "Idle", Absent), ""},
		{fault("frr_service_down r3"), row(KindRoute, "r3", "0.0.0.0/0", "static 10.0.23.1", Absent), ""}, // the simulator withdraws them now: a real difference if it ever shows again
		{fault("frr_service_down r3"), row(KindPing, "r3", "10.255.0.1", "ok", "fail"), ""},               // the simulator withdraws them now: a real difference if it ever shows again
		{fault("frr_service_down r3"), row(KindPing, "r1", "10.255.0.3", "ok", "fail"), ""},
	}
	for _, tc := range tests {
		got := ""
		for _, k := range KnownDifferences {
			if k.Match(tc.env, tc.row) {
				got = k.ID
				break
			}
		}
		if got != tc.want {
			t.Errorf("%s %s %s (sim %q, real %q): explained by %q, want %q", tc.row.Kind, tc.row.Device, tc.row.Subject, tc.row.Sim, tc.row.Real, got, tc.want)
		}
	}
}
