package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/approval"
	"github.com/netmcp/netmcp/lab/sim"
)

// runDemo runs the demo on the built-in lab and returns its output.
func runDemo(o DemoOptions) (string, error) {
	var out bytes.Buffer
	o.Topology, o.Out = sim.DefaultTopology(), &out
	err := Demo(context.Background(), o)
	return out.String(), err
}

// TestDemoText runs the demo and checks that every fact of MCP-NET
// section 8 it must show is in its output, in order.
func TestDemoText(t *testing.T) {
	before := runtime.NumGoroutine()
	out, err := runDemo(DemoOptions{})
	if err != nil {
		t.Fatalf("lab demo: %v\n%s", err, out)
	}
	// Each fact must appear after the previous one.
	facts := []struct{ what, re string }{
		{"8.1 protocol version", `protocolVersion 2025-06-18`},
		{"8.1 capability read from the extension", `capabilities\.network \(read from extensions\["ietf\.org/mcp-net"\]\)`},
		{"8.1 cliDialect", `"cliDialect": "huawei-vrp"`},
		{"8.1 datastores", `"configDatastore": \[\s*"running",\s*"candidate",\s*"operational"\s*\]`},
		{"8.1 rollback timeout", `"rollbackTimeout": 300`},
		{"8.1 supportsRollback", `"supportsRollback": true`},
		{"8.2 interface state", `admin-status UP, oper-status DOWN`},
		{"8.3 ARP line", `10\.0\.0\.5  00:50:56:ab:cd:ef  Vlan100`},
		{"8.3 diagnosis", `Diagnosis complete\.`},
		{"fault injected", `injected fault link-down on the link of r1:GigabitEthernet0/0/0`},
		{"fault diagnosed", `Diagnosis complete\.`},
		{"fault named as root cause", `root cause names the injected fault: GigabitEthernet0/0/0`},
		{"8.4 edit approved", `elicitation/create shown to the operator:\s+Approve network\.yang\.edit requested by jwt:netmcp-lab \(lab\)\?`},
		{"8.4 diff", `\+\s+"name": "Loopback100"`},
		{"8.4 commit approved", `Approve network\.commit requested by jwt:netmcp-lab \(lab\)\?(?s:.*)Rollback window: 120 s`},
		{"8.4 confirmed commit", `network\.commit \{"confirmed":120\}: status committed`},
		{"8.4 confirm approved", `Approve network\.commit requested by jwt:netmcp-lab \(lab\)\?`},
		{"8.4 confirm", `network\.commit \{"confirm":true\}: status confirmed`},
		{"8.5 subscribe", `resources/subscribe network:///log/syslog/last200: ok`},
		{"8.5 update", `<- notifications/resources/updated network:///log/syslog/last200 .*GigabitEthernet0/0/0`},
		{"8.6 unsubscribe", `resources/unsubscribe network:///log/syslog/last200: ok`},
		{"8.6 close", `close: ok`},
		{"lab stopped", `HTTP servers shut down, 3 routers closed, ports released`},
	}
	rest := out
	for _, f := range facts {
		loc := regexp.MustCompile(f.re).FindStringIndex(rest)
		if loc == nil {
			t.Errorf("%s: /%s/ not found (in order) in the output", f.what, f.re)
			continue
		}
		rest = rest[loc[1]:]
	}
	for _, bad := range []string{"ERROR:", "SKIPPED:", "MISMATCH:", "NOTE: the server applied"} {
		if strings.Contains(out, bad) {
			t.Errorf("output has %q", bad)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
	checkReleased(t, out, before)
}

// checkReleased asserts that the lab's ports are free again and that no
// goroutine outlives the demo.
func checkReleased(t *testing.T, out string, before int) {
	t.Helper()
	addrs := regexp.MustCompile(`http://(127\.0\.0\.1:\d+)/mcp`).FindAllStringSubmatch(out, -1)
	if len(addrs) != 3 {
		t.Errorf("want the 3 routers' URLs in the output, found %d", len(addrs))
	}
	for _, a := range addrs {
		ln, err := net.Listen("tcp", a[1])
		if err != nil {
			t.Errorf("port of %s not released: %v", a[1], err)
			continue
		}
		ln.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("goroutine leak: %d before the demo, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

// TestDemoJSON checks the JSON form: one object per step, with the facts
// a program would read.
func TestDemoJSON(t *testing.T) {
	out, err := runDemo(DemoOptions{JSON: true})
	if err != nil {
		t.Fatalf("lab demo --json: %v\n%s", err, out)
	}
	var steps []DemoStep
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var st DemoStep
		if err := json.Unmarshal([]byte(line), &st); err != nil {
			t.Fatalf("line %q is not a JSON step: %v", line, err)
		}
		steps = append(steps, st)
	}
	if len(steps) != 8 {
		t.Fatalf("want 8 steps, got %d:\n%s", len(steps), out)
	}
	tests := []struct {
		step int
		fact string
		want string // JSON of the fact's value
	}{
		{1, "protocolVersion", `"2025-06-18"`},
		{2, "admin-status", `"UP"`},
		{2, "oper-status", `"DOWN"`},
		{4, "rootCauseNamesFault", `true`},
		{5, `status:{"confirmed":120}`, `"committed"`},
		{5, `status:{"confirm":true}`, `"confirmed"`},
		{5, "elicitations", `3`},
		{7, "close", `"ok"`},
	}
	for _, tc := range tests {
		if got := mustJSON(steps[tc.step-1].Facts[tc.fact]); got != tc.want {
			t.Errorf("step %d fact %s = %s, want %s", tc.step, tc.fact, got, tc.want)
		}
	}
	network, _ := steps[0].Facts["network"].(map[string]any)
	if network["cliDialect"] != "huawei-vrp" || network["supportsRollback"] != true || network["maxBulkEdit"] != 1000.0 {
		t.Errorf("step 1 network capability = %v", network)
	}
	if n, _ := steps[5].Facts["updated"].(float64); n < 1 {
		t.Errorf("step 6: no notifications/resources/updated: %+v", steps[5])
	}
	if !strings.Contains(strings.Join(steps[2].Output, "\n"), "10.0.0.5  00:50:56:ab:cd:ef  Vlan100") {
		t.Errorf("step 3 lacks the ARP line: %q", steps[2].Output)
	}
	for _, st := range steps {
		if st.Error != "" || st.Skipped != "" {
			t.Errorf("step %d %q: error %q skipped %q", st.Step, st.Title, st.Error, st.Skipped)
		}
	}
}

// TestDemoApprovalToken runs the demo as a client without elicitation:
// each change is refused pending approval and repeated with the token.
func TestDemoApprovalToken(t *testing.T) {
	s, err := runDemo(DemoOptions{NoElicitation: true})
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, s)
	}
	if n := strings.Count(s, "APPROVAL REQUIRED:"); n != 3 {
		t.Errorf("want 3 approval-required refusals (edit, commit, confirm), got %d", n)
	}
	if n := strings.Count(s, "repeating the identical call with its approvalToken"); n != 3 {
		t.Errorf("want 3 calls repeated with the token, got %d", n)
	}
	for _, bad := range []string{"elicitation/create", "NOTE: the server applied"} {
		if strings.Contains(s, bad) {
			t.Errorf("output has %q", bad)
		}
	}
	for _, want := range []string{"status committed", "status confirmed"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", s)
	}
}

// TestApprovalToken checks that each way a gate refusal can carry its
// single-use token is understood, and that other results carry none.
func TestApprovalToken(t *testing.T) {
	refusal := &approval.ApprovalRequired{Tool: "network.commit", Token: "apv_text", ExpiresAt: time.Unix(0, 0)}
	data, _ := json.Marshal(&approval.ApprovalRequired{Tool: "network.commit", Token: "apv_data"})
	text := func(s string, isErr bool) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}, IsError: isErr}
	}
	tests := []struct {
		name string
		res  *mcp.CallToolResult
		err  error
		want string
	}{
		{"JSON-RPC error data", nil, &jsonrpc.Error{Code: -32083, Message: "approval required", Data: data}, "apv_data"},
		{"wrapped JSON-RPC error", nil, errors.Join(errors.New("call"), &jsonrpc.Error{Code: -32083, Data: data}), "apv_data"},
		{"tool error text", text(refusal.Error(), true), nil, "apv_text"},
		{"tool error structured", &mcp.CallToolResult{IsError: true, StructuredContent: json.RawMessage(data)}, nil, "apv_data"},
		{"plain error", nil, errors.New("connection reset"), ""},
		{"denied", nil, &jsonrpc.Error{Code: -32083, Message: "approval: the operator declined"}, ""},
		{"success mentioning a token", text(`{"approvalToken":"apv_x"}`, false), nil, ""},
	}
	for _, tc := range tests {
		if got := approvalToken(tc.res, tc.err); got != tc.want {
			t.Errorf("%s: token %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestElide(t *testing.T) {
	lines := func(n int) string {
		var l []string
		for i := 1; i <= n; i++ {
			l = append(l, fmt.Sprint(i))
		}
		return strings.Join(l, "\n")
	}
	tests := []struct {
		in, want string
	}{
		{lines(3), lines(3)},
		{lines(4), lines(4)}, // eliding one line saves nothing
		{lines(6), "1\n2\n… (3 lines omitted)\n6"},
	}
	for _, tc := range tests {
		if got := elide(tc.in, 2, 1); got != tc.want {
			t.Errorf("elide(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNamesInterface(t *testing.T) {
	tests := []struct {
		text, ifn string
		want      bool
	}{
		{"interface down: GigabitEthernet0/0/0 is up administratively", "GigabitEthernet0/0/0", true},
		{"link GigabitEthernet0/0/0", "GigabitEthernet0/0/0", true},
		{"on GigabitEthernet0/0/0/1 only", "GigabitEthernet0/0/0", false},
		{"GigabitEthernet0/0/01", "GigabitEthernet0/0/0", false},
		{"GigabitEthernet0/0/0.100 subinterface", "GigabitEthernet0/0/0", false},
		{"GigabitEthernet0/0/0/1 and GigabitEthernet0/0/0 both", "GigabitEthernet0/0/0", true},
		{"unresolved next hop 10.0.12.2", "GigabitEthernet0/0/0", false},
	}
	for _, tc := range tests {
		if got := namesInterface(tc.text, tc.ifn); got != tc.want {
			t.Errorf("namesInterface(%q, %q) = %v, want %v", tc.text, tc.ifn, got, tc.want)
		}
	}
}
