package discover

import (
	"context"
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/d2d/tlv"
)

// lldpcliJSON is the shape of `lldpcli show neighbors details -f json0`
// (recorded from lldpd 1.0.16 in a network namespace, trimmed), with
// VALUE replaced by a TLV value.
const lldpcliJSON = `{"lldp":[{"interface":[
 {"name":"eth-ba","via":"LLDP","chassis":[{"id":[{"type":"mac","value":"c2:bc:f5:13:6a:ad"}],"name":[{"value":"r1"}],
   "mgmt-ip":[{"value":"fe80::c0bc:f5ff:fe13:6aad"},{"value":"10.99.0.1"}]}],
  "port":[{"id":[{"type":"mac","value":"c2:bc:f5:13:6a:ad"}],"descr":[{"value":"eth-ab"}]}],
  "unknown-tlvs":[{"unknown-tlv":[{"oui":"00,00,5E","subtype":"1","len":"6","value":"6E,65,74,6D,63,70"},
                                  {"oui":"00,00,5E","subtype":"2","len":"51","value":"VALUE"}]}]},
 {"name":"eth-bc","via":"LLDP","chassis":[{"name":[{"value":"plain-switch"}]}],"port":[{"id":[{"type":"ifname","value":"swp1"}]}]}
]}]}`

func TestLLDPCli(t *testing.T) {
	adv := tlv.Advert{Port: 9514, CapDigest: tlv.CapabilityDigest([]string{"ietf-ping"}), Thumbprint: sha256.Sum256([]byte("r1"))}
	out := strings.Replace(lldpcliJSON, "VALUE", strings.ToUpper(strings.ReplaceAll(adv.Hex(), ":", ",")), 1)
	var skipped []string
	l := LLDPCli{Run: func(context.Context) ([]byte, error) { return []byte(out), nil }, Skipped: func(n, why string) { skipped = append(skipped, n); t.Log(n, why) }}
	ns, err := l.Neighbors(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(ns) != 1 || ns[0].Name != "r1" || ns[0].LocalInterface != "eth-ba" || ns[0].PortID != "eth-ab" || ns[0].Address != "10.99.0.1" || ns[0].Advert != adv {
		t.Fatalf("%+v", ns)
	}
	if len(skipped) != 1 || skipped[0] != "plain-switch" {
		t.Fatalf("skipped %v", skipped)
	}
	if got := adv.LLDPDConfig(); !strings.HasPrefix(got, "configure lldp custom-tlv oui 00,00,5e subtype 2 oui-info 01,25,2a,") {
		t.Fatalf("lldpd line %q", got)
	}
}
