package server

import (
	"encoding/json"
	"net/netip"
	"testing"
)

// TestBGPDroppingACL evaluates ACLs for BGP traffic as the routers do:
// the first matching entry decides, by sequence, per direction.
func TestBGPDroppingACL(t *testing.T) {
	peer := netip.MustParseAddr("10.0.12.2")
	acl := func(dir string, entries string) any {
		var v any
		doc := `{"openconfig-acl:acl": {"acl-sets": {"acl-set": [{"name": "A", "type": "ACL_IPV4", "acl-entries": {"acl-entry": ` + entries + `}}]},
			"interfaces": {"interface": [{"id": "Gi0", "` + dir + `-acl-sets": {"` + dir + `-acl-set": [{"set-name": "A", "type": "ACL_IPV4"}]}}]}}}`
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	deny179 := `{"sequence-id": 10, "ipv4": {"config": {"protocol": "IP_TCP"}}, "transport": {"config": {"destination-port": 179}}, "actions": {"config": {"forwarding-action": "DROP"}}}`
	permitAll := `{"sequence-id": 5, "ipv4": {"config": {}}, "actions": {"config": {"forwarding-action": "ACCEPT"}}}`
	denyICMP := `{"sequence-id": 1, "ipv4": {"config": {"protocol": "IP_ICMP"}}, "actions": {"config": {"forwarding-action": "DROP"}}}`
	denyPeer := `{"sequence-id": 20, "ipv4": {"config": {"source-address": "10.0.12.2/32"}}, "actions": {"config": {"forwarding-action": "DROP"}}}`
	denyOther := `{"sequence-id": 20, "ipv4": {"config": {"source-address": "192.0.2.0/24"}}, "actions": {"config": {"forwarding-action": "DROP"}}}`
	for _, tc := range []struct {
		name, dir, entries string
		ifn                string
		drop               bool
		seq                float64
	}{
		{"deny 179 inbound", "ingress", "[" + deny179 + "]", "Gi0", true, 10},
		{"deny 179 outbound", "egress", "[" + deny179 + "]", "Gi0", true, 10},
		{"a permit first wins", "ingress", "[" + deny179 + "," + permitAll + "]", "Gi0", false, 0},
		{"ICMP only", "ingress", "[" + denyICMP + "]", "Gi0", false, 0},
		{"all traffic from the peer", "ingress", "[" + denyICMP + "," + denyPeer + "]", "Gi0", true, 20},
		{"traffic from others", "ingress", "[" + denyOther + "]", "Gi0", false, 0},
		{"another interface", "ingress", "[" + deny179 + "]", "Gi1", false, 0},
	} {
		d, ok := bgpDroppingACL(acl(tc.dir, tc.entries), tc.ifn, netip.Addr{}, peer)
		if ok != tc.drop || (ok && (d.seq != tc.seq || d.acl != "A" || d.dir != tc.dir)) {
			t.Errorf("%s: %+v %v, want drop=%v seq %v", tc.name, d, ok, tc.drop, tc.seq)
		}
	}
}
