//go:build linux

package real

import (
	"strings"
	"testing"

	"github.com/netmcp/netmcp/lab/sim"
)

func TestLinuxIfName(t *testing.T) {
	used := map[string]bool{}
	tests := []struct{ in, want string }{
		{"GigabitEthernet0/0/0/1", "gi0-0-0-1"},
		{"TenGigE0/0/0/0", "te0-0-0-0"},
		{"eth0", "eth0"},
		{"Vlan100", "Vlan100"},
		{"GigabitEthernet0/0/0/1.100", "gi0-0-0-1-100"},
		{"Gi0/0/0/1", "gi0-0-0-1_1"}, // clashes with the first
		{"HundredGigE0/0/0/0/0/0/0/0/1", "hu0-0-0-0-0-0-0"},
	}
	for _, tc := range tests {
		if got := linuxIfName(tc.in, used); got != tc.want || len(got) > maxIfName {
			t.Errorf("linuxIfName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestDefaultPlanAndConfig maps the default lab and renders r2's FRR
// configuration and h3's unbound configuration from it.
func TestDefaultPlanAndConfig(t *testing.T) {
	p, err := newPlan(sim.DefaultTopology(), "x-")
	if err != nil {
		t.Fatal(err)
	}
	r1, _ := p.Device("r1")
	if i, _ := r1.Iface("Vlan100"); i.Kind != ifBridge {
		t.Errorf("r1 Vlan100 is %s, want a bridge", i.Kind)
	}
	if i, _ := r1.Iface("GigabitEthernet0/0/1"); i.Master != "Vlan100" {
		t.Errorf("r1 Gi0/0/1 (access VLAN 100) has master %q, want Vlan100", i.Master)
	}
	if i, _ := r1.Iface("TenGigE0/0/0/0"); i.Kind != ifUnplugged {
		t.Errorf("r1 TenGigE0/0/0/0 is %s, want unplugged", i.Kind)
	}
	if !strings.Contains(strings.Join(p.Notes, "\n"), "VRF mgmt is not built") {
		t.Errorf("notes lack the VRF: %q", p.Notes)
	}
	r2, _ := p.Device("r2")
	conf, err := frrConfig(r2)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"router ospf\n ospf router-id 10.255.0.2\n",
		"interface gi0-0-0-0\n description to r1 Gi0/0/0\n ip ospf area 0.0.0.0\n ip ospf network point-to-point\n",
		"interface lo\n ip ospf area 0.0.0.0\n ip ospf passive\n",
		"router bgp 65000\n bgp router-id 10.255.0.2\n no bgp ebgp-requires-policy\n",
		" neighbor 10.255.0.3 remote-as 65000\n neighbor 10.255.0.3 description r3\n neighbor 10.255.0.3 update-source 10.255.0.2\n",
		"  neighbor 10.255.0.3 next-hop-self\n",
		"ip route 198.51.100.0/24 blackhole\n",
	} {
		if !strings.Contains(conf, want) {
			t.Errorf("r2's frr.conf lacks %q:\n%s", want, conf)
		}
	}
	h3, _ := p.Device("h3")
	ub, err := unboundConfig(h3, "/tmp")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`interface: 10.3.0.10`, `local-zone: "lab.example." static`,
		`local-data: "www.lab.example. 300 IN CNAME h3.lab.example."`, `refuse_non_local`} {
		if !strings.Contains(ub, want) {
			t.Errorf("h3's unbound.conf lacks %q:\n%s", want, ub)
		}
	}
	ll, err := lldpdConfig(r1)
	if err != nil || !strings.Contains(ll, "custom-tlv add oui 00,00,5e subtype 1 oui-info 6e,65,74,6d,63,70") {
		t.Errorf("r1's lldpd config = %q, %v", ll, err)
	}
}
