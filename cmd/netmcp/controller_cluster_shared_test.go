package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/d2d/report"
	"github.com/netmcp/netmcp/d2d/report/reporttest"
	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/pki"
)

// signedD2D builds a D2D report id signed by r1 and countersigned by r2,
// both with certificates of ca.
func signedD2D(t *testing.T, ca *pki.CA, id string) report.Report {
	return reporttest.Signed(t, ca, id, "r1", "r2")
}

// submitD2D pushes a D2D report through replica r's submit_report.
func submitD2D(ctx context.Context, r *replicaProc, rep any) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(rep)
	if err != nil {
		return nil, err
	}
	return r.cs.CallTool(ctx, &mcp.CallToolParams{Name: "submit_report", Arguments: map[string]any{"report": json.RawMessage(b)}})
}

// TestControllerClusterConsoleShared: two replicas with their web
// consoles over a lab whose fault needs a host's tools (which a replica
// learns from the replica holding the host). The console's ask through
// each replica gives the report of a single controller. A device's
// approval question about a host's write through one replica waits in
// both consoles, is approved through the other replica's, and the write
// goes through; approving it again through the first is refused as
// already answered, by whom. A D2D report pushed through one replica is
// listed and verified in the other's console and resources, once.
func TestControllerClusterConsoleShared(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a lab, a NATS server and three controllers")
	}
	natsURL := startTestNATS(t)
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout(5*time.Minute))
	defer cancel()
	dir := t.TempDir()
	inv := faultedLab(t, ctx, dir, clusterFault)
	single := singleAsk(t, ctx, inv, clusterFault)
	var names []string
	for _, d := range sim.DefaultTopology().Devices {
		names = append(names, d.Name)
	}
	// Hosts (anonymous over plain HTTP here) may write and push D2D
	// reports; the console's loopback logins are operators.
	pol := filepath.Join(dir, "policy.yaml")
	ca, err := pki.NewCA("agents")
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(dir, "agents-ca.pem")
	if err := os.WriteFile(pol, []byte("defaultRoles:\n  anonymous: [admin]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(caFile, ca.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	extra := []string{"--web", "127.0.0.1:0", "--policy", pol, "--d2d-ca", caFile}
	reps := []*replicaProc{startReplica(t, natsURL, inv, "sa", extra...), startReplica(t, natsURL, inv, "sb", extra...)}
	owner := ownedOnce(t, ctx, reps, names, "every device held by exactly one replica")
	held := map[*replicaProc]int{}
	for _, r := range owner {
		held[r]++
	}
	var web []*webSession
	for _, r := range reps {
		m := regexp.MustCompile(`console at (\S+)`).FindStringSubmatch(r.stderr.String())
		if m == nil {
			t.Fatalf("%s printed no console URL:\n%s", r.name, r.stderr.String())
		}
		web = append(web, loginConsole(t, m[1]))
	}

	// The console's ask through each replica: the single controller's
	// report, the devices the other replica holds described first.
	for i, r := range reps {
		start := time.Now()
		code, _, loc := web[i].do(http.MethodPost, web[i].base+"/ask", url.Values{"intent": {"what is wrong with the network?"}})
		if code != http.StatusSeeOther {
			t.Fatalf("POST /ask through %s's console: %d", r.name, code)
		}
		id := web[i].run(loc)
		rr, err := r.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "netmcp://reports/" + id})
		if err != nil || len(rr.Contents) != 1 {
			t.Fatalf("report %s of %s's console: %v", id, r.name, err)
		}
		var got askReport
		if err := json.Unmarshal([]byte(rr.Contents[0].Text), &got); err != nil {
			t.Fatalf("report %s: %v\n%.500s", id, err, rr.Contents[0].Text)
		}
		if diff := single.differs(got); diff != "" {
			t.Errorf("the console's ask through %s (holding %d of %d devices) differs from a single controller's: %.2000s", r.name, held[r], len(names), diff)
		}
		t.Logf("the console's ask through %s (holding %d of %d devices): %v, %d calls; single controller: engine %.0f ms, %d calls",
			r.name, held[r], len(names), time.Since(start).Round(time.Millisecond), len(got.Calls), single.ElapsedMS, len(single.Calls))
	}

	// A host that cannot be asked writes on r1 through the replica not
	// holding r1 when there is one (the question then comes back from
	// r1's holder to the caller's): r1's question waits in both consoles
	// and is approved through the other replica's.
	ci := 0
	if owner["r1"] == reps[0] {
		ci = 1
	}
	caller, decider := reps[ci], reps[1-ci]
	a, b := web[ci], web[1-ci]
	res := make(chan error, 1)
	go func() {
		out, err := caller.cs.CallTool(ctx, &mcp.CallToolParams{Name: "call_device_tool", Arguments: map[string]any{"device": "r1", "tool": netproto.ToolYangEdit,
			"arguments": map[string]any{"target": "candidate", "edit": []any{map[string]any{"operation": "merge",
				"path": "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/1']/config", "value": map[string]any{"description": "shared gate"}}}}}})
		if err == nil && out.IsError {
			err = fmt.Errorf("%s", contentText(out))
		}
		res <- err
	}()
	gateRE := regexp.MustCompile(`id="gate-([^"]+)"[^>]*>\s*<h3[^>]*>` + regexp.QuoteMeta(netproto.ToolYangEdit) + ` on r1`)
	var gate string
	eventually(t, 60*time.Second, "r1's question waits in "+decider.name+"'s console", func() bool {
		select {
		case err := <-res:
			t.Fatalf("the host's write ended before any approval: %v", err)
		default:
		}
		_, page, _ := b.do(http.MethodGet, b.base+"/approvals", nil)
		if m := gateRE.FindStringSubmatch(page); m != nil {
			gate = m[1]
		}
		return gate != ""
	})
	if _, page, _ := a.do(http.MethodGet, a.base+"/approvals", nil); !strings.Contains(page, `id="gate-`+gate+`"`) {
		t.Errorf("r1's question %s is not waiting in %s's console too:\n%.2000s", gate, caller.name, page)
	}
	approved := time.Now()
	if code, _, _ := b.do(http.MethodPost, b.base+"/gates/"+gate+"/approve", url.Values{}); code != http.StatusSeeOther {
		t.Fatalf("approve through %s's console: %d", decider.name, code)
	}
	select {
	case err := <-res:
		if err != nil {
			t.Fatalf("the host's write approved through %s: %v", decider.name, err)
		}
		t.Logf("r1 (held by %s) written through %s, approved through %s's console: the host's write returned %v after the approval",
			owner["r1"].name, caller.name, decider.name, time.Since(approved).Round(time.Millisecond))
	case <-ctx.Done():
		t.Fatalf("the host's write never ended after its approval through %s", decider.name)
	}
	code, body, _ := a.do(http.MethodPost, a.base+"/gates/"+gate+"/decline", url.Values{})
	if code != http.StatusConflict || !strings.Contains(body, "already answered by") || !strings.Contains(body, "approved") {
		t.Errorf("declining through %s once approved through %s: %d, want 409 naming who answered:\n%.1000s", caller.name, decider.name, code, body)
	}
	_, page, _ := a.do(http.MethodGet, a.base+"/approvals", nil)
	if strings.Contains(page, `id="gate-`+gate+`"`) || !strings.Contains(page, "Decided device questions") {
		t.Errorf("%s's console still lists the question as waiting, or not as decided:\n%.3000s", caller.name, page)
	}

	// A D2D report pushed through sa: listed and verified through sb, its
	// push again through sb a duplicate, a different one refused.
	rep := signedD2D(t, ca, "d2d-shared-1")
	if out, err := submitD2D(ctx, reps[0], rep); err != nil || out.IsError {
		t.Fatalf("submit_report through sa: %v %+v", err, out)
	}
	_, page, _ = b.do(http.MethodGet, b.base+"/reports", nil)
	if !strings.Contains(page, `data-d2d="d2d-shared-1" data-verified="yes"`) {
		t.Errorf("sb's console does not list the D2D report pushed through sa as verified:\n%.3000s", page)
	}
	if _, page, _ := b.do(http.MethodGet, b.base+"/d2d/d2d-shared-1", nil); !strings.Contains(page, `id="d2d-report" data-verified="yes"`) {
		t.Errorf("sb's console does not verify the D2D report pushed through sa:\n%.2000s", page)
	}
	rr, err := reps[1].cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "netmcp://d2d-reports"})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "d2d-shared-1") {
		t.Errorf("netmcp://d2d-reports through sb: %v, want d2d-shared-1 listed", err)
	}
	out, err := submitD2D(ctx, reps[1], rep)
	if err != nil || out.IsError || !strings.Contains(string(mustMarshal(t, out.StructuredContent)), `"duplicate":true`) {
		t.Errorf("the same report pushed again through sb: %v %+v, want a duplicate", err, out)
	}
	other := signedD2D(t, ca, "d2d-shared-1")
	if out, err := submitD2D(ctx, reps[1], other); err != nil || !out.IsError || !strings.Contains(contentText(out), "already held") {
		t.Errorf("a different report under the same id through sb: %v %+v, want it refused", err, out)
	}
}

// contentText is the text of a tool result's content.
func contentText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
