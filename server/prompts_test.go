package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/server/servertest"
)

func runPingFail(t *testing.T, cs *mcp.ClientSession, dst string, firstResults string) (string, int) {
	t.Helper()
	args := map[string]string{"src": "192.168.1.1", "dst": dst, "vrf": "mgmt"}
	for steps := 1; steps < 10; steps++ {
		res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "network.troubleshoot.ping-fail", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		text := res.Messages[0].Content.(*mcp.TextContent).Text
		if strings.Contains(text, "Diagnosis complete") {
			return res.Meta["rootCause"].(string), steps
		}
		id, _ := res.Meta["contextId"].(string)
		if id == "" {
			t.Fatalf("no contextId in %v", res.Meta)
		}
		args = map[string]string{"previousContextId": id}
		if steps == 1 && firstResults != "" {
			args["results"] = firstResults
		}
	}
	t.Fatal("diagnosis never completes")
	return "", 0
}

func TestPingFailRunbook(t *testing.T) {
	tests := []struct {
		name    string
		dst     string
		results string
		mutate  func(*servertest.Device)
		cause   string
	}{
		{"healthy", "10.0.0.5", "", nil, "no fault found"},
		{"interface down", "10.0.0.5", "", func(d *servertest.Device) {
			d.Ifaces[2]["state"] = map[string]any{"admin-status": "UP", "oper-status": "DOWN"}
		}, "interface down: Vlan100"},
		{"admin down", "10.0.0.5", "", func(d *servertest.Device) {
			d.Ifaces[2]["state"] = map[string]any{"admin-status": "DOWN", "oper-status": "DOWN"}
		}, "administratively down"},
		{"missing route", "10.9.9.9", "", nil, "missing route"},
		{"acl drops", "10.0.0.5", "", func(d *servertest.Device) {
			d.ACL = map[string]any{
				"acl-sets": map[string]any{"acl-set": []any{map[string]any{"name": "BLOCK", "type": "ACL_IPV4",
					"acl-entries": map[string]any{"acl-entry": []any{map[string]any{"sequence-id": 10,
						"ipv4":    map[string]any{"config": map[string]any{"destination-address": "10.0.0.0/24"}},
						"actions": map[string]any{"config": map[string]any{"forwarding-action": "DROP"}}}}}}}},
				"interfaces": map[string]any{"interface": []any{map[string]any{"id": "Vlan100",
					"egress-acl-sets": map[string]any{"egress-acl-set": []any{map[string]any{"set-name": "BLOCK"}}}}}},
			}
		}, "ACL that drops: BLOCK"},
		{"no arp (given result)", "10.0.0.5", `["Address  Hardware Addr  Interface\n"]`, nil, "no ARP entry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dev := servertest.New()
			if tt.mutate != nil {
				tt.mutate(dev)
			}
			cs, _ := connect(t, dev, server.Options{}, nil)
			cause, _ := runPingFail(t, cs, tt.dst, tt.results)
			if !strings.Contains(cause, tt.cause) {
				t.Fatalf("root cause %q, want %q", cause, tt.cause)
			}
		})
	}
}

func TestAddVLANAndAudit(t *testing.T) {
	cs, _ := connect(t, servertest.New(), server.Options{}, nil)
	ctx := context.Background()
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "network.config.add-vlan",
		Arguments: map[string]string{"vlan_id": "100", "name": "users", "ports": `["Gi0/0/0/1"]`}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Messages[0].Content.(*mcp.TextContent).Text
	if !strings.Contains(text, "explicit confirmation") || !strings.Contains(text, `network.commit {"confirmed":300}`) {
		t.Errorf("add-vlan text:\n%s", text)
	}
	for _, bad := range []map[string]string{
		{"vlan_id": "abc", "name": "x"}, {"vlan_id": "10", "name": "has space"}, {"vlan_id": "10"}, {"vlan_id": "10", "name": "x", "extra": "1"},
	} {
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "network.config.add-vlan", Arguments: bad}); rpcCode(err) != -32602 {
			t.Errorf("%v: %v, want -32602", bad, err)
		}
	}
	res, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "network.security.audit", Arguments: map[string]string{"profile": "basic"}})
	if err != nil {
		t.Fatal(err)
	}
	text = res.Messages[0].Content.(*mcp.TextContent).Text
	for _, want := range []string{"snmp-default-community", "plaintext-password", "unused-acl", "interface-description | TenGigE0/0/0/0"} {
		if !strings.Contains(text, want) {
			t.Errorf("audit lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "cisco123") {
		t.Error("audit leaks a password")
	}
}

func TestPromptArgumentSchemas(t *testing.T) {
	w, _ := newWire(t, servertest.New(), server.Options{})
	w.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	w.response(1)
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	w.send(`{"jsonrpc":"2.0","id":2,"method":"prompts/list"}`)
	r := w.response(2)
	for _, p := range get(r, "result", "prompts").([]any) {
		if get(p, "name") != "network.config.add-vlan" {
			continue
		}
		if js(get(p, "arguments", 0)) != `{"description":"IEEE 802.1Q VLAN ID","maximum":4094,"minimum":1,"name":"vlan_id","required":true,"type":"integer"}` ||
			get(p, "arguments", 1, "pattern") != "^[A-Za-z0-9-_]+$" || js(get(p, "arguments", 2, "items")) != `{"type":"string"}` ||
			js(get(p, "required")) != `["vlan_id","name"]` {
			t.Errorf("add-vlan descriptor %s", js(p))
		}
		return
	}
	t.Fatal("add-vlan not listed")
}
