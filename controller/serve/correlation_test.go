package serve_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/controller/serve"
	"github.com/netmcp/netmcp/lab/labtest"
	"github.com/netmcp/netmcp/netproto"
)

// checkCorrelated checks that every audit record every device wrote
// since the marks (requests, responses, and the prompts/list a runbook
// starts with) carries the report's correlation id, and that the tool
// calls and runbook rounds they record are the report's calls.
func checkCorrelated(t *testing.T, l *labtest.Lab, m auditMarks, rep *controller.Report) {
	t.Helper()
	want := map[string][]string{} // device -> tools called, in any order
	for _, c := range rep.Calls {
		want[c.Device] = append(want[c.Device], c.Tool)
	}
	touched := 0
	for _, name := range l.Routers() {
		var got []string
		for _, r := range since(l, m, name) {
			if r.Correlation != rep.CorrelationID {
				t.Errorf("%s: audit record %d (%s %s %s) has correlation id %q, want the report's %q",
					name, r.Seq, r.Kind, r.Method, r.Tool, r.Correlation, rep.CorrelationID)
			}
			switch {
			case r.Kind != audit.KindRequest:
			case r.Method == "tools/call":
				got = append(got, r.Tool)
			case r.Method == "resources/read": // a log read (flap.go)
				got = append(got, r.Method)
			case r.Method == "prompts/get": // a runbook round (runbook.go)
				got = append(got, r.Method+" "+r.Tool)
			}
		}
		slices.Sort(got)
		slices.Sort(want[name])
		if !slices.Equal(got, want[name]) {
			t.Errorf("%s: audited tool calls %v, want the report's %v", name, got, want[name])
		}
		if len(got) > 0 {
			touched++
		}
	}
	if touched < 2 {
		t.Errorf("the intent touched %d devices; the check wants several", touched)
	}
}

// TestCorrelationThroughControllerServer: a host of `netmcp controller
// serve` that puts its own id in a call's _meta has it carried to every
// device the call reaches (ask, call_device_tool, an mcp:// resource
// read), and it is what the devices' audit logs record.
func TestCorrelationThroughControllerServer(t *testing.T) {
	l := labtest.New(t, labtest.Options{Faults: []string{"icmp_acl_block r3:GigabitEthernet0/0/0"}, Audit: true})
	f := quietFleet(t, l)
	srv := serve.New(&controller.Controller{Fleet: f, Hosts: controller.HostsOf(l.Topology())}, controller.Store{Dir: t.TempDir()}, "test")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := inMemoryHost(t, ctx, srv, "host", nil, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	meta := func(id string) mcp.Meta { return mcp.Meta{netproto.MetaCorrelationID: id} }

	m := marks(l)
	p := &mcp.CallToolParams{Name: serve.ToolAsk, Arguments: map[string]any{"intent": "what is wrong with the network?"}}
	p.SetMeta(meta("host-ask-1"))
	res, err := cs.CallTool(ctx, p)
	if err != nil || res.IsError {
		t.Fatalf("ask: %v %+v", err, res)
	}
	var rep controller.Report
	remarshal(t, res.StructuredContent, &rep)
	if rep.CorrelationID != "host-ask-1" {
		t.Errorf("ask: correlation id %q, want the host's", rep.CorrelationID)
	}
	checkCorrelated(t, l, m, &rep)

	m = marks(l)
	p = &mcp.CallToolParams{Name: serve.ToolCallDeviceTool, Arguments: map[string]any{
		"device": "r2", "tool": netproto.ToolYangGet, "arguments": map[string]any{"path": "/openconfig-system:system/config/hostname"}}}
	p.SetMeta(meta("host-call-2"))
	if res, err := cs.CallTool(ctx, p); err != nil || res.IsError {
		t.Fatalf("call_device_tool: %v %+v", err, res)
	}
	rp := &mcp.ReadResourceParams{URI: "mcp://r3/openconfig-system:system/config/hostname"}
	rp.SetMeta(meta("host-read-3"))
	if _, err := cs.ReadResource(ctx, rp); err != nil {
		t.Fatalf("read: %v", err)
	}
	want := map[string][]string{
		"r1": nil,
		"r2": {"request tools/call host-call-2", "response tools/call host-call-2"},
		"r3": {"request tools/call host-read-3", "response tools/call host-read-3"},
	}
	for name, w := range want {
		var got []string
		for _, r := range since(l, m, name) {
			got = append(got, fmt.Sprintf("%s %s %s", r.Kind, r.Method, r.Correlation))
		}
		if strings.Join(got, "; ") != strings.Join(w, "; ") {
			t.Errorf("%s: audit records %q, want %q", name, got, w)
		}
	}
}
