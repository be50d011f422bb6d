package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
)

// pathBGPNeighbors is the default instance's BGP neighbour list (COMMON.md).
const pathBGPNeighbors = "/openconfig-network-instance:network-instances/network-instance[name=default]" +
	"/protocols/protocol[identifier=openconfig-policy-types:BGP][name=bgp]/bgp/neighbors"

var simOwner = device.Owner{Session: "test", User: "alice"}

// commitSim configures lines on a simulated device and commits them.
func commitSim(t *testing.T, d device.Driver, lines ...string) {
	t.Helper()
	c := d.(device.Configurer)
	ctx := context.Background()
	if err := c.Configure(ctx, simOwner, lines); err != nil {
		t.Fatalf("Configure %q: %v", lines, err)
	}
	if _, err := c.Commit(ctx, simOwner, device.CommitOptions{Comment: "test"}); err != nil {
		t.Fatalf("Commit: %v", err)
	}
}

// bgpDownCause follows network.troubleshoot.bgp-down, letting the server
// read the device, until "Diagnosis complete"; it returns the root cause
// and the last step's markdown.
func bgpDownCause(t *testing.T, cs *mcp.ClientSession, neighbor string) (string, string) {
	t.Helper()
	args := map[string]string{"neighbor": neighbor}
	for step := 0; step < 10; step++ {
		res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: netproto.PromptBGPDown, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		md := res.Messages[0].Content.(*mcp.TextContent).Text
		if done, _ := res.Meta["diagnosisComplete"].(bool); done {
			if !strings.HasSuffix(md, "Diagnosis complete.") {
				t.Errorf("final step does not end with Diagnosis complete:\n%s", md)
			}
			return res.Meta["rootCause"].(string), md
		}
		args = map[string]string{"previousContextId": res.Meta["contextId"].(string)}
	}
	t.Fatal("diagnosis never completes")
	return "", ""
}

// TestBGPDownRunbookOnSimulatedLab runs the BGP runbook on the default
// lab with a fault configured or injected, and checks that the diagnosis
// names it from what the device shows.
//
// The model decides each session from the configuration and forwarding
// (ACLs both ways, routes, shutdown); the AS mismatch is in
// TestBGPDownRunbookASMismatch.
func TestBGPDownRunbookOnSimulatedLab(t *testing.T) {
	tests := []struct {
		name, dev, neighbor string
		lines               []string
		fault               *topology.Fault
		cause               []string
	}{
		{"healthy r1", "r1", "10.0.12.2", nil, nil, []string{"no fault found on this device"}},
		{"ACL on r1 drops port 179 inbound", "r1", "10.0.12.2",
			[]string{"acl name BLOCK-BGP advance", "rule 5 deny tcp destination-port eq 179", "rule 6 deny tcp source-port eq 179", "rule 10 permit ip", "quit",
				"interface GigabitEthernet0/0/0", "traffic-filter inbound acl name BLOCK-BGP"}, nil,
			[]string{"ACL that drops BGP", "BLOCK-BGP entry 5", "ingress", "GigabitEthernet0/0/0", "179"}},
		{"ACL on r2 drops port 179 outbound", "r2", "10.0.12.1",
			// Both ports: an ACL that drops only destination port 179
			// leaves r1's connection to r2 (SYN-ACK from port 179) up.
			[]string{"ipv4 access-list NO-BGP", "10 deny tcp any any eq 179", "15 deny tcp any eq 179 any", "20 permit ipv4 any any", "exit",
				"interface GigabitEthernet0/0/0/0", "ipv4 access-group NO-BGP egress"}, nil,
			[]string{"NO-BGP entry 10", "egress", "GigabitEthernet0/0/0/0"}},
		{"peer shut down", "r1", "10.0.12.2", []string{"bgp 65001", "peer 10.0.12.2 ignore"}, nil,
			[]string{"administratively shut down"}},
		{"unknown neighbor", "r1", "10.9.9.9", nil, nil, []string{"no BGP neighbor 10.9.9.9 is configured"}},
		{"link to the peer down", "r1", "10.0.12.2", nil, &topology.Fault{Kind: topology.FaultLinkDown, Link: "r1:GigabitEthernet0/0/0"},
			[]string{"missing route", "10.0.12.2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lab := newLab(t)
			d := labDevice(t, lab, tt.dev)
			if len(tt.lines) > 0 {
				commitSim(t, d, tt.lines...)
			}
			if tt.fault != nil {
				if err := lab.InjectFault(*tt.fault); err != nil {
					t.Fatal(err)
				}
			}
			cs, _ := connect(t, d, server.Options{}, nil)
			cause, md := bgpDownCause(t, cs, tt.neighbor)
			for _, want := range tt.cause {
				if !strings.Contains(cause, want) {
					t.Fatalf("root cause %q does not contain %q\n%s", cause, want, md)
				}
			}
		})
	}
}

// stateDriver is a simulated device whose BGP neighbour reads carry a
// constructed session state: the AS-mismatch case until the OSPF/BGP
// model reports it itself.
type stateDriver struct {
	device.Driver
	state map[string]any
}

func (d stateDriver) Get(ctx context.Context, ds device.Datastore, path string) (any, error) {
	v, err := d.Driver.Get(ctx, ds, path)
	if err != nil || ds != device.Operational || !strings.Contains(path, "/bgp/neighbors/neighbor[") {
		return v, err
	}
	b, _ := json.Marshal(v)
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return v, nil
	}
	m["state"] = d.state
	return m, nil
}

// TestBGPDownRunbookASMismatch: a neighbour Idle with OPEN Message
// Error/Bad Peer AS is diagnosed as an AS mismatch naming the configured
// remote AS, from the state the device reports.
func TestBGPDownRunbookASMismatch(t *testing.T) {
	lab := newLab(t)
	r1 := labDevice(t, lab, "r1")
	commitSim(t, r1, "bgp 65001", "peer 10.0.12.2 as-number 65099")
	drv := stateDriver{Driver: r1, state: map[string]any{
		"neighbor-address": "10.0.12.2", "peer-as": 65099, "session-state": "IDLE",
		"netmcp-last-error": "OPEN Message Error/Bad Peer AS",
		"messages": map[string]any{"received": map[string]any{
			"last-notification-error-code":    "openconfig-bgp-types:OPEN_MESSAGE_ERROR",
			"last-notification-error-subcode": "openconfig-bgp-types:BAD_PEER_AS"}}}}
	cs, _ := connect(t, drv, server.Options{}, nil)
	cause, md := bgpDownCause(t, cs, "10.0.12.2")
	for _, want := range []string{"AS mismatch", "Bad Peer AS", "remote AS 65099"} {
		if !strings.Contains(cause, want) {
			t.Errorf("root cause %q lacks %q\n%s", cause, want, md)
		}
	}

	// The same fault on the plain simulated device: the model itself
	// decides the session state (Idle, OPEN Message Error/Bad Peer AS).
	cs2, _ := connect(t, r1, server.Options{}, nil)
	cause, md = bgpDownCause(t, cs2, "10.0.12.2")
	if !strings.Contains(md, "remote AS 65099") {
		t.Errorf("the diagnosis does not show the configured remote AS:\n%s", md)
	}
	if !strings.Contains(cause, "AS mismatch") {
		t.Errorf("the model's session state: the cause %q does not name the AS mismatch\n%s", cause, md)
	}
}

// TestBGPNeighborsOverMCP reads r2's BGP neighbours by their YANG path
// through a real MCP session with the security layer installed, and checks
// that a neighbour's password (auth-password, a secret leaf) does not
// leave the server.
func TestBGPNeighborsOverMCP(t *testing.T) {
	lab := newLab(t)
	r2 := labDevice(t, lab, "r2")
	commitSim(t, r2, "router bgp 65000", "neighbor 10.255.0.3", "password clear Md5-S3cret-xr")
	srv := newServer(t, r2, server.Options{})
	if _, err := srv.Secure(server.SecurityOptions{LocalUser: "alice"}); err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); srv.Close() })
	out, err := call(t, cs, netproto.ToolYangGet, map[string]any{"path": pathBGPNeighbors, "datastore": "operational"})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(out)
	if strings.Contains(string(raw), "Md5-S3cret-xr") {
		t.Errorf("the BGP password leaves the server: %s", raw)
	}
	data, _ := out["data"].(map[string]any)
	var list []any
	for _, v := range data {
		list, _ = v.([]any)
	}
	if list == nil {
		t.Fatalf("no neighbor list in %s", raw)
	}
	want := map[string]float64{"10.0.12.1": 65001, "10.255.0.3": 65000}
	for _, e := range list {
		n, _ := e.(map[string]any)
		addr, _ := n["neighbor-address"].(string)
		cfg, _ := n["config"].(map[string]any)
		if as, ok := want[addr]; !ok || cfg["peer-as"] != as {
			t.Errorf("neighbor %s: config %v, want peer-as %v", addr, cfg, want[addr])
		}
		delete(want, addr)
		st, _ := n["state"].(map[string]any)
		if s, _ := st["session-state"].(string); s != "ESTABLISHED" {
			t.Errorf("neighbor %s: session-state %q, want ESTABLISHED (state %v)", addr, s, st)
		}
	}
	if len(want) > 0 {
		t.Errorf("neighbors missing: %v", want)
	}
	if cli, err := call(t, cs, netproto.ToolCLIExec, map[string]any{"cmd": "show running-config"}); err != nil ||
		!strings.Contains(fmt.Sprint(cli["stdout"]), "neighbor 10.255.0.3") || strings.Contains(fmt.Sprint(cli), "Md5-S3cret-xr") {
		t.Errorf("show running-config: the BGP section is missing or shows the password: %v %v", cli, err)
	}
	// One leaf by its full path.
	one, err := call(t, cs, netproto.ToolYangGet, map[string]any{"path": pathBGPNeighbors + "/neighbor[neighbor-address=10.0.12.1]/config/peer-as", "datastore": "operational"})
	if err != nil || one["data"] != float64(65001) {
		t.Errorf("peer-as of 10.0.12.1 = %v, %v", one, err)
	}
}
