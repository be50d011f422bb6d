//go:build linux

package real

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// routingFaultRows are the routing faults of faults_routing.go but
// frr_service_down (TestRealLab's), with their symptoms as FRR shows them.
func routingFaultRows(ctx context.Context, t *testing.T, l *Lab, exec func(dev string, argv ...string) string) []faultRow {
	bgp := func(r, peer string) string {
		st, err := l.BGPStates(ctx, r)
		if err != nil {
			return err.Error()
		}
		return st[peer]
	}
	bgpRoute := func(r, prefix string) string {
		out, err := l.Vtysh(ctx, r, "show bgp ipv4 unicast "+prefix+" json")
		if err != nil {
			return fmt.Sprintf("%s error %v", out, err)
		}
		return string(out)
	}
	return []faultRow{
		{"bgp_asn_misconfig r1 neighbor=10.0.12.2 remote-as=65099", 20 * time.Second, 40 * time.Second,
			func() (bool, string) { s := bgp("r1", "10.0.12.2"); return s != "Established", s },
			func() (bool, string) { s := bgp("r1", "10.0.12.2"); return s == "Established", s }},
		{"bgp_missing_route_advertisement r3", 30 * time.Second, 40 * time.Second,
			func() (bool, string) { s := bgpRoute("r1", "10.3.0.0/24"); return !strings.Contains(s, `"paths"`), s },
			func() (bool, string) { s := bgpRoute("r1", "10.3.0.0/24"); return strings.Contains(s, `"paths"`), s }},
		{"ospf_area_misconfiguration r3:GigabitEthernet0/0/0", 20 * time.Second, 40 * time.Second,
			func() (bool, string) {
				n, err := l.OSPFFull(ctx, "r3")
				return err == nil && n == 0, fmt.Sprint(n, err)
			},
			func() (bool, string) { n, err := l.OSPFFull(ctx, "r3"); return n > 0, fmt.Sprint(n, err) }},
	}
}
