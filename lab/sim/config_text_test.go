package sim

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// TestConfigTextRoundTrip renders every router of the default topology in
// both dialects and parses the text back into the same configuration tree.
//
// r1 also carries the ACL rules the NIKA faults write (source ports, ospf,
// arp), so a faulted configuration survives its own running-config text.
func TestConfigTextRoundTrip(t *testing.T) {
	topo := DefaultTopology()
	for i := range topo.Devices {
		if topo.Devices[i].Name == "r1" {
			topo.Devices[i].ACLs = append(topo.Devices[i].ACLs, topology.ACL{Name: "NIKA-LIKE", Rules: []topology.ACLEntry{
				{Seq: 10, Action: "deny", Protocol: "tcp", DstPort: 179},
				{Seq: 20, Action: "deny", Protocol: "tcp", SrcPort: 179, Destination: "10.0.12.0/30"},
				{Seq: 30, Action: "deny", Protocol: "udp", Source: "10.3.0.0/24", SrcPort: 53, DstPort: 1024},
				{Seq: 40, Action: "deny", Protocol: "ospf"},
				{Seq: 50, Action: "deny", Protocol: "arp"},
				{Seq: 60, Action: "permit", Protocol: "ip"},
			}})
		}
	}
	for _, d := range topo.Devices {
		if d.Kind == "host" {
			continue
		}
		for _, dialect := range []string{DialectVRP, DialectXR} {
			t.Run(d.Name+"/"+dialect, func(t *testing.T) {
				c := devConfig{dev: d, hostname: d.Name + "-x"}
				text := renderConfig(c, dialect, time.Date(2025, 10, 19, 3, 27, 0, 0, time.UTC), "admin")
				back, err := parseConfigText(text, dialect, d)
				if err != nil {
					t.Fatalf("parse: %v\n%s", err, text)
				}
				want, _ := json.MarshalIndent(deviceToTree(c.dev, c.hostname), "", " ")
				got, _ := json.MarshalIndent(deviceToTree(back.dev, back.hostname), "", " ")
				if string(want) != string(got) {
					t.Errorf("round trip differs\ntext:\n%s\nwant:\n%s\ngot:\n%s", text, want, got)
				}
			})
		}
	}
}
