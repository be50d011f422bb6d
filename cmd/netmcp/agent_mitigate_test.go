package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/agent"
	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/d2d/report"
	"github.com/netmcp/netmcp/lab/serve"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/pki"
	"github.com/netmcp/netmcp/remedy"
	"github.com/netmcp/netmcp/server"
)

// TestAgentMitigate runs the agents of `netmcp lab agents` on a lab whose
// r2 filters ICMP leaving toward r3, asks r2's agent for the path's report
// over its operator endpoint, and calls d2d.mitigate there. The write goes
// through r2's approval gate, whose question is relayed to the operator's
// MCP client: without consent, without anyone to ask, or declined, the ACL
// entry stays; accepted, entry 10 is removed by a confirmed commit, the
// path verifies clean, the commit is confirmed, and the gate's decisions
// are in r2's audit log.
func TestAgentMitigate(t *testing.T) {
	routers, closeLab, err := serve.OpenRouters(egressACLTopology())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeLab() })
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	// No terminal and no --yes: only the operator's client can consent.
	go func() {
		done <- serveAgentLab(ctx, routers, dir, 0, &mitigationConsent{}, pw, io.Discard)
		pw.Close()
	}()
	t.Cleanup(func() { cancel(); <-done })
	r2 := ""
	sc := bufio.NewScanner(pr)
	re := regexp.MustCompile(`^r2: agent on https://([0-9.:]+)/mcp`)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			r2 = m[1]
		}
		if strings.HasPrefix(sc.Text(), "operator certificate") {
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if r2 == "" {
		t.Fatal("no r2 agent address printed")
	}
	acl := aclReader(t, routers[1]) // r2
	if got := acl("NO-ICMP-OUT"); !slices.Equal(got, []int{10, 20}) {
		t.Fatalf("NO-ICMP-OUT before: %v", got)
	}

	// The operator (alice) asks r2's agent; the report proposes removing
	// entry 10.
	plain := operatorSession(t, dir, r2, nil)
	out, err := plain.CallTool(ctx, &mcp.CallToolParams{Name: agent.ToolAsk, Arguments: map[string]any{"intent": "verify packet loss on the path from r1 to r3 via r2"}})
	if err != nil || out.IsError {
		t.Fatalf("d2d.ask: %v %s", err, toolText(out))
	}
	var rep report.Report
	b, _ := json.Marshal(out.StructuredContent)
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Proposals) != 1 || rep.Proposals[0].Device != "r2" || !strings.Contains(rep.Proposals[0].Diff, "-  10 deny icmp") {
		t.Fatalf("proposals %+v; hypothesis %+v", rep.Proposals, rep.Hypothesis)
	}

	for _, tc := range []struct {
		name    string
		answer  string // the operator client's answer to elicitations; "" = no elicitation support
		consent bool
		applied bool
		asked   bool   // the operator was asked
		errText string // in the refusal
	}{
		{"no consent", "accept", false, false, false, "no consent"},
		{"consent, the operator's client cannot be asked, no terminal", "", true, false, false, "nobody to ask"},
		{"consent, the operator declines", "decline", true, false, true, "declined"},
		{"consent, the operator accepts", "accept", true, true, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var asked []string
			var elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
			if tc.answer != "" {
				elicit = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					mu.Lock()
					asked = append(asked, req.Params.Message)
					mu.Unlock()
					if tc.answer == "accept" {
						return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
					}
					return &mcp.ElicitResult{Action: tc.answer}, nil
				}
			}
			op := operatorSession(t, dir, r2, elicit)
			out, err := op.CallTool(ctx, &mcp.CallToolParams{Name: agent.ToolMitigate, Arguments: map[string]any{"report": rep.ID, "consent": tc.consent}})
			if err != nil {
				t.Fatal(err)
			}
			var res agent.MitigationResult
			b, _ := json.Marshal(out.StructuredContent)
			_ = json.Unmarshal(b, &res)
			mu.Lock()
			defer mu.Unlock()
			if (len(asked) > 0) != tc.asked {
				t.Errorf("operator asked %d times, want asked=%v", len(asked), tc.asked)
			}
			if !tc.applied {
				if !out.IsError || res.Committed || !strings.Contains(toolText(out), tc.errText) {
					t.Fatalf("want refused (%q): %s %+v", tc.errText, toolText(out), res)
				}
				if got := acl("NO-ICMP-OUT"); !slices.Equal(got, []int{10, 20}) {
					t.Fatalf("NO-ICMP-OUT changed: %v", got)
				}
				t.Logf("refused: %s", toolText(out))
				return
			}
			if out.IsError || !res.Committed || !res.Verified || !res.Confirmed || res.RolledBack || res.Consent != "operator:alice" {
				t.Fatalf("mitigation: %s %+v", toolText(out), res)
			}
			if res.Verification == nil || res.Verification.Hypothesis != nil {
				t.Fatalf("the path is not clean after the fix: %+v", res.Verification)
			}
			if got := acl("NO-ICMP-OUT"); !slices.Equal(got, []int{20}) {
				t.Fatalf("NO-ICMP-OUT after: %v, want only entry 20", got)
			}
			// Each write was asked: the edit, the confirmed commit, its confirm.
			var edit, commit int
			for _, m := range asked {
				if !strings.Contains(m, "remove entry 10 of ACL NO-ICMP-OUT") {
					t.Errorf("question without the proposal: %s", m)
				}
				switch {
				case strings.Contains(m, "Approve "+netproto.ToolYangEdit):
					edit++
				case strings.Contains(m, "Approve "+netproto.ToolCommit):
					commit++
				}
			}
			if edit != 1 || commit != 2 {
				t.Errorf("asked %d edits and %d commits, want 1 and 2:\n%s", edit, commit, strings.Join(asked, "\n---\n"))
			}
			t.Logf("%s (%d questions)", res.Result, len(asked))
		})
	}

	// r2's audit log holds the gate's decisions, chained.
	path := audit.PathIn(filepath.Join(dir, "r2"))
	if _, err := audit.Verify(path); err != nil {
		t.Fatalf("r2's audit log: %v", err)
	}
	lb, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The gate's decisions: the three writes of the accepted mitigation
	// approved, the declined edit refused (-32083); nothing else approved.
	var approved []string
	declined := 0
	for _, line := range strings.Split(string(lb), "\n") {
		var r struct {
			Method    string `json:"method"`
			Tool      string `json:"tool"`
			ErrorCode int    `json:"errorCode"`
			Arguments struct {
				Decision string `json:"decision"`
			} `json:"arguments"`
		}
		if json.Unmarshal([]byte(line), &r) != nil || r.Method != server.MethodApproval {
			continue
		}
		switch {
		case r.Arguments.Decision == "approved":
			approved = append(approved, r.Tool)
		case r.ErrorCode == netproto.CodeAccessDenied:
			declined++
		}
	}
	if want := []string{netproto.ToolYangEdit, netproto.ToolCommit, netproto.ToolCommit}; !slices.Equal(approved, want) || declined != 1 {
		t.Errorf("r2's audit log: approved %v, want %v; %d refused with -32083, want 1", approved, want, declined)
	}
}

// operatorSession opens alice's mTLS session to the agent at addr (the
// lab's operator certificate in dir); elicit, when set, answers the
// agent's elicitations.
func operatorSession(t *testing.T, dir, addr string, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	t.Helper()
	read := func(n string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cfg, err := pki.ClientTLSConfig(read(pki.CACertFile), read("alice.pem"), read("alice.key"), "r2")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "alice", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: elicit}).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: "https://" + addr + "/mcp", HTTPClient: httpsClient(cfg), MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// aclReader returns a reader of the entries (sequence ids) of an ACL of
// router r's running configuration, read through a read-only server.
func aclReader(t *testing.T, r serve.Router) func(set string) []int {
	t.Helper()
	srv, err := server.New(r.Driver, server.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cs, err := agent.LocalSession(ctx, srv.MCP(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return func(set string) []int {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: netproto.ToolYangGet, Arguments: map[string]any{"path": controller.PathACL, "datastore": "running"}})
		if err != nil || res.IsError {
			t.Fatalf("reading %s's ACLs: %v %s", r.Name, err, toolText(res))
		}
		body, _ := res.StructuredContent.(map[string]any)
		return remedy.ACLSequences(body["data"], set)
	}
}

// TestAgentMitigateConsent: when the operator's client cannot be asked,
// the agent's terminal answers the gate (y accepts, anything else
// declines); without one only --yes with a policy that allows the change
// consents; --yes without a policy is refused at start.
func TestAgentMitigateConsent(t *testing.T) {
	m := agent.Mitigation{Device: "r2", Report: "abc", Consent: "operator:alice",
		Proposal: report.Proposal{Device: "r2", Cause: "egress-filter", Summary: "remove entry 10 of ACL NO-ICMP-OUT", Diff: "-  10 deny icmp any any\n"}}
	for _, tc := range []struct {
		name   string
		c      *mitigationConsent
		input  string
		action string // "" = nobody could be asked (an error)
	}{
		{"terminal, y", &mitigationConsent{tty: true}, "y\n", "accept"},
		{"terminal, enter", &mitigationConsent{tty: true}, "\n", "decline"},
		{"terminal wins over --yes", &mitigationConsent{tty: true, yes: true, policy: &controller.Policy{AutoApprove: true}}, "n\n", "decline"},
		{"no terminal, no --yes", &mitigationConsent{}, "", ""},
		{"--yes, policy allows", &mitigationConsent{yes: true, policy: &controller.Policy{AutoApprove: true, RootCauses: []string{"egress-filter"}, Devices: []string{"r2"}}}, "", "accept"},
		{"--yes, policy without auto-approve", &mitigationConsent{yes: true, policy: &controller.Policy{}}, "", ""},
		{"--yes, policy for another device", &mitigationConsent{yes: true, policy: &controller.Policy{AutoApprove: true, Devices: []string{"r3"}}}, "", ""},
		{"--yes, policy for another cause", &mitigationConsent{yes: true, policy: &controller.Policy{AutoApprove: true, RootCauses: []string{"link-loss"}}}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			tc.c.in, tc.c.out = bufio.NewReader(strings.NewReader(tc.input)), &out
			res, err := tc.c.decide(m, "Approve network.yang.edit?")
			switch {
			case tc.action == "" && err == nil:
				t.Fatalf("consented (%+v) with nobody to ask", res)
			case tc.action != "" && (err != nil || res.Action != tc.action):
				t.Fatalf("got %+v, %v; want %s", res, err, tc.action)
			case tc.action == "accept" && res.Content["approve"] != true:
				t.Fatalf("accepted without approve=true: %+v", res)
			}
			if tc.c.tty && !strings.Contains(out.String(), "remove entry 10 of ACL NO-ICMP-OUT") {
				t.Errorf("the terminal was not shown the change:\n%s", out.String())
			}
		})
	}
	if _, err := (mitigateFlags{yes: true}).consenter(strings.NewReader(""), io.Discard); err == nil || !strings.Contains(err.Error(), "--policy") {
		t.Fatalf("--yes without --policy: %v", err)
	}
}
