package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/policy"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/server/servertest"
)

// labClock is a settable clock for a lab.
type labClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *labClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *labClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// bgpBlockedLab is the default lab with bgp_acl_block on r2's interface
// toward r1: an inbound ACL denying TCP port 179 either way.
func bgpBlockedLab(t *testing.T) (*sim.Lab, *labClock) {
	t.Helper()
	topo := sim.DefaultTopology()
	for i := range topo.Devices {
		d := &topo.Devices[i]
		if d.Name != "r2" {
			continue
		}
		d.ACLs = append(d.ACLs, topology.ACL{Name: "NO-BGP", Rules: []topology.ACLEntry{
			{Seq: 10, Action: "deny", Protocol: "tcp", DstPort: 179},
			{Seq: 20, Action: "deny", Protocol: "tcp", SrcPort: 179},
			{Seq: 30, Action: "permit", Protocol: "ip"}}})
		for j := range d.Interfaces {
			if d.Interfaces[j].Name == "GigabitEthernet0/0/0/0" {
				d.Interfaces[j].IngressACL = "NO-BGP"
			}
		}
	}
	clk := &labClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	lab, err := sim.NewLab(topo, sim.LabOptions{Seed: 1, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lab.Close() })
	clk.Advance(10 * time.Minute)
	return lab, clk
}

// session connects an MCP client to r2 of the lab as the stdio user of
// the given role; every write is approved.
func session(t *testing.T, lab *sim.Lab, role string) *mcp.ClientSession {
	t.Helper()
	s, err := server.New(labDevice(t, lab, "r2"), server.Options{Approver: &recordApprover{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Secure(server.SecurityOptions{LocalUser: "tester", StdioRole: role}); err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.MCP().Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "edge-test", Version: "1"}, nil).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: protoOld})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// edgeCall runs a tool and decodes its structured result.
func edgeCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) (*mcp.CallToolResult, error) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return res, nil
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
	return res, nil
}

type capturedOut struct {
	Interface string `json:"interface"`
	Count     int    `json:"count"`
	Packets   []struct {
		Time      string `json:"time"`
		Direction string `json:"direction"`
		Protocol  string `json:"protocol"`
		Src, Dst  string
		SrcPort   int    `json:"srcPort"`
		DstPort   int    `json:"dstPort"`
		Flags     string `json:"flags"`
		Length    int    `json:"length"`
		Info      string `json:"info"`
	} `json:"packets"`
	Summary string `json:"summary"`
	PCAP    string `json:"pcap"`
}

// TestCaptureBGPBlockedSession: through a real MCP session to r2, a
// capture on port 179 toward r1 shows r1's SYNs and no SYN-ACK from r2;
// clear-counters zeroes the counters; LLDP shows r1 and r3 with their TLV.
func TestCaptureBGPBlockedSession(t *testing.T) {
	lab, _ := bgpBlockedLab(t)
	cs := session(t, lab, policy.RoleOperator)

	var got capturedOut
	res, err := edgeCall(t, cs, netproto.ToolCapture, map[string]any{"interface": "GigabitEthernet0/0/0/0",
		"protocol": "tcp", "port": 179, "durationSeconds": 130, "maxPackets": 500}, &got)
	if err != nil || res.IsError {
		t.Fatalf("capture: %v %+v", err, res)
	}
	syns := 0
	for _, p := range got.Packets {
		if p.Flags == "S" && p.Src == "10.0.12.1" && p.Dst == "10.0.12.2" && p.DstPort == 179 {
			syns++
			if p.Direction != "in" || p.Protocol != "tcp" || p.Length == 0 {
				t.Errorf("r1's SYN as r2 sees it: %+v", p)
			}
		}
		if p.Src == "10.0.12.2" && p.SrcPort == 179 {
			t.Errorf("r2 answered a SYN its ACL drops: %+v", p)
		}
	}
	if syns < 2 || got.Count != len(got.Packets) {
		t.Fatalf("%d SYNs from r1 in %d packets:\n%s", syns, got.Count, got.Summary)
	}
	if !strings.Contains(got.Summary, "10.0.12.1.") || !strings.Contains(got.Summary, " > 10.0.12.2.179: Flags [S], seq ") {
		t.Errorf("summary is not tcpdump's:\n%s", got.Summary)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; text != got.Summary {
		t.Errorf("text content %q, want the summary", text)
	}
	pcap, err := base64.StdEncoding.DecodeString(got.PCAP)
	if err != nil || len(pcap) < 24 || !bytes.Equal(pcap[:4], []byte{0xd4, 0xc3, 0xb2, 0xa1}) {
		t.Fatalf("pcap: %v, %d bytes", err, len(pcap))
	}
	if td, err := exec.LookPath("tcpdump"); err != nil {
		t.Log("tcpdump is not installed: the pcap is not read back (scripts/install-deps.sh installs it)")
	} else {
		f := filepath.Join(t.TempDir(), "c.pcap")
		if err := os.WriteFile(f, pcap, 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(td, "-n", "-S", "-r", f)
		cmd.Env = append(os.Environ(), "TZ=UTC")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("tcpdump -r: %v", err)
		}
		if string(out) != got.Summary {
			t.Errorf("tcpdump reads:\n%s\nthe tool said:\n%s", out, got.Summary)
		}
	}

	// clear-counters, then the counters read back near zero.
	var cleared map[string]any
	if res, err := edgeCall(t, cs, netproto.ToolClearCounters, map[string]any{"interface": "GigabitEthernet0/0/0/0"}, &cleared); err != nil || res.IsError {
		t.Fatalf("clear-counters: %v %+v", err, res)
	}
	var counters struct {
		Data map[string]string `json:"data"`
	}
	if res, err := edgeCall(t, cs, netproto.ToolYangGet, map[string]any{"path": "/openconfig-interfaces:interfaces/interface[name=GigabitEthernet0/0/0/0]/state/counters"}, &counters); err != nil || res.IsError {
		t.Fatalf("yang get: %v %+v", err, res)
	}
	for _, k := range []string{"in-pkts", "out-pkts", "in-octets", "in-discards"} {
		if counters.Data[k] != "0" {
			t.Errorf("%s = %q after clear-counters, want 0 (same lab instant)", k, counters.Data[k])
		}
	}
	if counters.Data["last-clear"] == "0" || counters.Data["last-clear"] == "" {
		t.Errorf("last-clear not stamped: %v", counters.Data)
	}

	// LLDP neighbours of r2 by YANG path: r1 and r3, with r1's custom TLV.
	var lldp struct {
		Data json.RawMessage `json:"data"`
	}
	if res, err := edgeCall(t, cs, netproto.ToolYangGet, map[string]any{"path": "/openconfig-lldp:lldp/interfaces"}, &lldp); err != nil || res.IsError {
		t.Fatalf("yang get lldp: %v %+v", err, res)
	}
	for _, want := range []string{`"system-name":"r1"`, `"system-name":"r3"`, `"oui":"00:00:5e"`, `"oui-subtype":"1"`, `"value":"bmV0bWNw"`} {
		if !strings.Contains(string(lldp.Data), want) {
			t.Errorf("r2's LLDP lacks %s: %s", want, lldp.Data)
		}
	}
}

// TestCaptureRoles: a viewer may capture but clear no counters, neither
// with the tool nor with a clear command of network.cli.exec; an operator
// may.
func TestCaptureRoles(t *testing.T) {
	lab, _ := bgpBlockedLab(t)
	tests := []struct {
		role      string
		tool      string
		args      map[string]any
		wantError bool
	}{
		{policy.RoleViewer, netproto.ToolCapture, map[string]any{"interface": "GigabitEthernet0/0/0/0"}, false},
		{policy.RoleViewer, netproto.ToolClearCounters, map[string]any{}, true},
		{policy.RoleViewer, netproto.ToolCLIExec, map[string]any{"cmd": "clear counters"}, true},
		{policy.RoleViewer, netproto.ToolCLIExec, map[string]any{"cmd": "cl co GigabitEthernet0/0/0/0"}, true},
		{policy.RoleViewer, netproto.ToolCLIExec, map[string]any{"cmd": "show lldp neighbors"}, false},
		{policy.RoleOperator, netproto.ToolClearCounters, map[string]any{}, false},
		{policy.RoleOperator, netproto.ToolCLIExec, map[string]any{"cmd": "clear counters"}, false},
	}
	for _, tc := range tests {
		cmd, _ := tc.args["cmd"].(string)
		t.Run(tc.role+"/"+tc.tool+"/"+cmd, func(t *testing.T) {
			cs := session(t, lab, tc.role)
			var out map[string]any
			res, err := edgeCall(t, cs, tc.tool, tc.args, &out)
			failed := err != nil || res.IsError
			if failed != tc.wantError {
				t.Errorf("error %v (result %+v), want error: %v", err, res, tc.wantError)
			}
			if tc.wantError && err != nil && rpcCode(err) != netproto.CodeAccessDenied {
				t.Errorf("error code %d, want %d", rpcCode(err), netproto.CodeAccessDenied)
			}
		})
	}
	// The tools are listed with their annotations.
	cs := session(t, lab, policy.RoleOperator)
	tl, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]*mcp.Tool{}
	for _, tool := range tl.Tools {
		seen[tool.Name] = tool
	}
	if c := seen[netproto.ToolCapture]; c == nil || !c.Annotations.ReadOnlyHint {
		t.Errorf("capture listed as %+v", c)
	}
	if c := seen[netproto.ToolClearCounters]; c == nil || c.Annotations.ReadOnlyHint {
		t.Errorf("clear-counters listed as %+v", c)
	}
}

// TestCaptureUnavailable: a driver without capture or counter clearing
// lists both tools as unavailable, with the reason, and refuses calls.
func TestCaptureUnavailable(t *testing.T) {
	s, err := server.New(servertest.New(), server.Options{Approver: &recordApprover{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.MCP().Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "edge-test", Version: "1"}, nil).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: protoOld})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	tl, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tl.Tools {
		if tool.Name != netproto.ToolCapture && tool.Name != netproto.ToolClearCounters {
			continue
		}
		if tool.Meta["available"] != false || tool.Meta["unavailableReason"] == "" {
			t.Errorf("%s listed with _meta %v", tool.Name, tool.Meta)
		}
	}
	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: netproto.ToolCapture, Arguments: map[string]any{"interface": "GigabitEthernet0/0/0/0"}})
	if rpcCode(err) != netproto.CodeConfigIncompatible {
		t.Errorf("capture on a driver without it: %v", err)
	}
}
