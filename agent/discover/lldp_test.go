package discover

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/netmcp/netmcp/d2d/tlv"
)

// TestLLDP parses the openconfig-lldp state a device serves, as
// network.yang.get returns it, with one agent neighbour, one plain LLDP
// neighbour (only the lab's subtype-1 marker) and one corrupt TLV.
func TestLLDP(t *testing.T) {
	adv := tlv.Advert{Port: 9514, CapDigest: tlv.CapabilityDigest([]string{"ping"}), Thumbprint: sha256.Sum256([]byte("r2"))}
	doc := map[string]any{"data": map[string]any{"openconfig-lldp:interfaces": map[string]any{"interface": []any{
		map[string]any{"name": "GigabitEthernet0/0/0", "neighbors": map[string]any{"neighbor": []any{
			map[string]any{"id": "1", "state": map[string]any{"system-name": "r2", "port-id": "GigabitEthernet0/0/0/0", "management-address": "10.255.0.2"},
				"custom-tlvs": map[string]any{"tlv": []any{
					map[string]any{"type": 127, "oui": "00:00:5e", "oui-subtype": 1, "state": map[string]any{"value": "6e:65:74:6d:63:70"}},
					map[string]any{"type": 127, "oui": "00:00:5E", "oui-subtype": 2, "state": map[string]any{"value": adv.Hex()}},
				}}},
		}}},
		map[string]any{"name": "eth1", "neighbors": map[string]any{"neighbor": []any{
			// As device/linux renders lldpd: MAC port id, oui-subtype a string.
			map[string]any{"id": "4", "state": map[string]any{"system-name": "r3", "port-id": "1a:3c:5a:f2:f4:f6", "port-id-type": "MAC_ADDRESS",
				"port-description": "eth-r3r1", "management-address": "10.98.1.2"},
				"custom-tlvs": map[string]any{"tlv": []any{map[string]any{"type": float64(127), "oui": "00:00:5e", "oui-subtype": "2",
					"state": map[string]any{"type": float64(127), "oui": "00:00:5e", "oui-subtype": "2", "value": adv.Hex()}}}}},
		}}},
		map[string]any{"name": "GigabitEthernet0/0/2", "neighbors": map[string]any{"neighbor": []any{
			map[string]any{"id": "2", "state": map[string]any{"system-name": "sw9"},
				"custom-tlvs": map[string]any{"tlv": []any{map[string]any{"type": 127, "oui": "00:00:5e", "oui-subtype": 1, "state": map[string]any{"value": "6e"}}}}},
			map[string]any{"id": "3", "state": map[string]any{"system-name": "bad"},
				"custom-tlvs": map[string]any{"tlv": []any{map[string]any{"type": 127, "oui": "00:00:5e", "oui-subtype": 2, "state": map[string]any{"value": "01:00"}}}}},
		}}},
	}}}}
	raw, _ := json.Marshal(doc)
	var skipped []string
	l := LLDP{Get: func(_ context.Context, path string) (json.RawMessage, error) {
		if path != LLDPPath {
			t.Errorf("path %s", path)
		}
		return raw, nil
	}, Skipped: func(name, _ string) { skipped = append(skipped, name) }}
	got, err := l.Neighbors(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "r2" || got[0].LocalInterface != "GigabitEthernet0/0/0" || got[0].PortID != "GigabitEthernet0/0/0/0" ||
		got[0].Address != "10.255.0.2" || got[0].Advert != adv {
		t.Fatalf("neighbours %+v", got)
	}
	if got[1].Name != "r3" || got[1].LocalInterface != "eth1" || got[1].PortID != "eth-r3r1" || got[1].Advert != adv {
		t.Fatalf("lldpd-rendered neighbour %+v", got[1])
	}
	if len(skipped) != 2 {
		t.Fatalf("skipped %v, want sw9 and bad", skipped)
	}
}

// TestLLDPContentOnly: the subtree's content without its container, as the
// simulator returns /openconfig-lldp:lldp/interfaces, base64 value.
func TestLLDPContentOnly(t *testing.T) {
	adv := tlv.Advert{Port: 40001, CapDigest: tlv.CapabilityDigest([]string{"ietf-ping"}), Thumbprint: sha256.Sum256([]byte("r2"))}
	raw := []byte(`{"data":{"interface":[{"name":"Gi0","neighbors":{"neighbor":[{"id":"02:00:00:00:00:02","custom-tlvs":{"tlv":[` +
		`{"oui":"00:00:5e","oui-subtype":"2","type":127,"state":{"value":"` + base64.StdEncoding.EncodeToString(adv.Encode()) + `"}}]},` +
		`"state":{"system-name":"r2","port-id":"Gi1","management-address":"10.255.0.2"}}]}}]}}`)
	got, err := LLDP{Get: func(context.Context, string) (json.RawMessage, error) { return raw, nil }}.Neighbors(context.Background())
	if err != nil || len(got) != 1 || got[0].Name != "r2" || got[0].LocalInterface != "Gi0" || got[0].PortID != "Gi1" || got[0].Advert != adv {
		t.Fatalf("%+v, %v", got, err)
	}
}
