package controller_test

import (
	"context"
	"encoding/json"
	"testing"
)

func TestScratch(t *testing.T) {
	l := newTestLab(t, "host_ip_conflict h3")
	ctx := context.Background()
	for _, c := range []struct{ dev, tool string; args map[string]any }{
		{"h3", "network.yang.get", map[string]any{"path": "/openconfig-interfaces:interfaces"}},
		{"h3", "network.yang.get", map[string]any{"path": "/ietf-routing:routing"}},
		{"h3", "network.cli.exec", map[string]any{"cmd": "cat /etc/resolv.conf"}},
		{"r3", "network.yang.get", map[string]any{"path": "/openconfig-interfaces:interfaces/interface[name=GigabitEthernet0/0/1]"}},
		{"h3", "dns_lookup", map[string]any{"destination": "www.lab.example"}},
		{"h3", "network.cli.exec", map[string]any{"cmd": "ip link"}},
		{"r3", "network.yang.get", map[string]any{"path": "/openconfig-interfaces:interfaces/interface[name=GigabitEthernet0/0/1]/subinterfaces/subinterface[index=0]/ipv4/neighbors"}},
		{"r3", "network.cli.exec", map[string]any{"cmd": "display interface GigabitEthernet0/0/1"}},
		{"r3", "network.cli.exec", map[string]any{"cmd": "display logbuffer"}},
	} {
		res, err := l.fleet.Device(c.dev).CallTool(ctx, c.tool, c.args)
		if err != nil { t.Log(err); continue }
		b, _ := json.Marshal(res.StructuredContent)
		if res.StructuredContent == nil { b, _ = json.Marshal(res.Content) }
		t.Logf("%s %s: %s", c.dev, c.tool, b)
	}
}
