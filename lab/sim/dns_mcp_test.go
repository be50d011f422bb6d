package sim_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/server"
)

// dnsLookup calls dns_lookup over an MCP session and returns the first
// parsed query of its structured result.
func dnsLookup(t *testing.T, cs *mcp.ClientSession, args map[string]any) map[string]any {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "dns_lookup", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if res.IsError {
		t.Fatalf("dns_lookup %v: tool error %s", args, text)
	}
	var out struct {
		Result []map[string]any `json:"result"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil || len(out.Result) == 0 {
		t.Fatalf("dns_lookup %v: structured %s (%v)", args, b, err)
	}
	return out.Result[0]
}

// TestDNSLookupMCP runs dns_lookup on r1 of the default lab through a real
// MCP session: r1 resolves through h3's DNS service (its dns-servers),
// which answers for lab.example, NXDOMAIN for names it lacks and REFUSED
// elsewhere; a stopped service and a path that drops the queries show as
// dig shows them.
func TestDNSLookupMCP(t *testing.T) {
	lab, err := sim.NewLab(sim.DefaultTopology(), sim.LabOptions{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lab.Close() })
	r1, err := lab.Device("r1")
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New(r1, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.MCP().Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "dns-test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })

	answers := func(q map[string]any) []string {
		var out []string
		for _, a := range anySlice(q["answer"]) {
			m := a.(map[string]any)
			out = append(out, m["type"].(string)+" "+m["data"].(string))
		}
		return out
	}
	q := dnsLookup(t, cs, map[string]any{"destination": "r3.lab.example"})
	if q["status"] != "NOERROR" || strings.Join(answers(q), ",") != "A 10.255.0.3" || !strings.HasPrefix(q["server"].(string), "10.3.0.10#53") {
		t.Fatalf("r3.lab.example: %v", q)
	}
	if flags := anySlice(q["flags"]); len(flags) != 3 || flags[1] != "aa" {
		t.Errorf("flags %v, want qr aa rd", flags)
	}
	q = dnsLookup(t, cs, map[string]any{"destination": "www.lab.example"})
	if got := strings.Join(answers(q), ","); got != "CNAME h3.lab.example.,A 10.3.0.10" {
		t.Errorf("www.lab.example: %s", got)
	}
	q = dnsLookup(t, cs, map[string]any{"destination": "nonexistent.lab.example", "queryType": "AAAA"})
	if q["status"] != "NXDOMAIN" {
		t.Errorf("nonexistent: %v", q)
	}
	q = dnsLookup(t, cs, map[string]any{"destination": "example.com"})
	if q["status"] != "REFUSED" {
		t.Errorf("example.com: %v", q)
	}

	// dns_service_down: h3's service stops; the port is closed.
	h3, _ := lab.Network().Device("h3")
	h3.DNS.Disabled = true
	if err := lab.Network().UpdateDevice(h3); err != nil {
		t.Fatal(err)
	}
	q = dnsLookup(t, cs, map[string]any{"destination": "r3.lab.example"})
	if q["no_servers_reached"] != true || errorsOf(q) != "communications error to 10.3.0.10#53: connection refused" {
		t.Errorf("service down: %v", q)
	}
	h3.DNS.Disabled = false
	if err := lab.Network().UpdateDevice(h3); err != nil {
		t.Fatal(err)
	}

	// The path drops the queries (r2 drops what goes to h3): timeout.
	if err := lab.InjectFault(topology.Fault{Kind: topology.FaultACLDrop, Interface: "r2:GigabitEthernet0/0/0/0", Destination: "10.3.0.10"}); err != nil {
		t.Fatal(err)
	}
	q = dnsLookup(t, cs, map[string]any{"destination": "r3.lab.example"})
	if q["no_servers_reached"] != true || errorsOf(q) != "connection timed out; no servers could be reached" {
		t.Errorf("dropped: %v", q)
	}
}

// errorsOf returns the first error line of a parsed dig query.
func errorsOf(q map[string]any) string {
	errs := anySlice(q["errors"])
	if len(errs) == 0 {
		return ""
	}
	s, _ := errs[0].(string)
	return s
}

func anySlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// callTool runs a tool and returns its structured result, or the text
// of the tool error or protocol error it ended with.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (map[string]any, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, err.Error()
	}
	if res.IsError {
		return nil, res.Content[0].(*mcp.TextContent).Text
	}
	var m map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &m)
	return m, ""
}

// TestHostMCP serves h3 of the default lab over MCP, as a controller sees
// it: the linux dialect, the shell commands, YANG, dns_lookup, and a
// configuration tool refused. A wrong gateway shows as a FAILED neighbour.
func TestHostMCP(t *testing.T) {
	lab, err := sim.NewLab(sim.DefaultTopology(), sim.LabOptions{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lab.Close() })
	h3, err := lab.Host("h3")
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New(h3, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.MCP().Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host-test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })

	out, msg := callTool(t, cs, "network.cli.exec", map[string]any{"cmd": "ip route"})
	if msg != "" {
		t.Fatal(msg)
	}
	if out["stdout"] != "default via 10.3.0.1 dev eth0 proto static\n10.3.0.0/24 dev eth0 proto kernel scope link src 10.3.0.10\n" {
		t.Errorf("ip route: %v", out)
	}
	out, _ = callTool(t, cs, "network.yang.get", map[string]any{"path": "/openconfig-interfaces:interfaces/interface[name='eth0']/state/oper-status"})
	if !strings.Contains(mustJSON(out), "UP") {
		t.Errorf("yang get: %v", out)
	}
	q := dnsLookup(t, cs, map[string]any{"destination": "www.lab.example"})
	if q["status"] != "NOERROR" {
		t.Errorf("dns_lookup on h3: %v", q)
	}
	if _, msg := callTool(t, cs, "network.cli.configure", map[string]any{"commands": []string{"ip addr add 10.3.0.11/24 dev eth0"}}); !strings.Contains(msg, "ConfigIncompatible") {
		t.Errorf("network.cli.configure on a host: %q, want a ConfigIncompatible refusal", msg)
	}

	// host_incorrect_gateway: the host's ARP for its gateway fails.
	d, _ := lab.Network().Device("h3")
	d.Gateway = "10.3.0.99"
	if err := lab.Network().UpdateDevice(d); err != nil {
		t.Fatal(err)
	}
	out, _ = callTool(t, cs, "network.cli.exec", map[string]any{"cmd": "ip neigh"})
	if !strings.Contains(mustJSON(out), "10.3.0.99 dev eth0 FAILED") {
		t.Errorf("ip neigh: %v", out)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
