package topology

import (
	"strings"
	"testing"
)

// TestDomainsAndAddresses reads the zones and a device's addresses.
func TestDomainsAndAddresses(t *testing.T) {
	topo := Topology{Devices: []Device{
		{Name: "h1", Interfaces: []Interface{{Name: "eth0", Addresses: []string{"10.0.0.10/24"}}, {Name: "eth1", Addresses: []string{"10.1.0.10/24", "10.1.0.11/24"}}}},
		{Name: "dns", DNS: &DNSService{Zones: []DNSZone{{Name: "lab.example."}, {Name: "corp.example"}}}},
	}}
	if got := strings.Join(topo.Domains(), ","); got != "lab.example,corp.example" {
		t.Errorf("Domains = %s", got)
	}
	if got := strings.Join(topo.Addresses("h1"), ","); got != "10.0.0.10/24,10.1.0.10/24,10.1.0.11/24" {
		t.Errorf("Addresses(h1) = %s", got)
	}
	if got := topo.Addresses("nope"); got != nil {
		t.Errorf("Addresses(nope) = %v", got)
	}
}
