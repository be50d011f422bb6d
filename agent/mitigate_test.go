package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/remedy"
)

// aclEntries returns the sequence ids of ACL set of dev's running
// configuration, read through its agent's local session.
func aclEntries(t *testing.T, d *testDomain, dev, set string) []int {
	t.Helper()
	res, err := d.agents[dev].cfg.Local.CallTool(context.Background(), &mcp.CallToolParams{Name: netproto.ToolYangGet,
		Arguments: map[string]any{"path": pathACL, "datastore": "running"}})
	if err != nil || res.IsError {
		t.Fatalf("reading %s's ACLs: %v %s", dev, err, textOf(res))
	}
	body, _ := res.StructuredContent.(map[string]any)
	return remedy.ACLSequences(body["data"], set)
}

// TestMitigateEgressACL: r2 filters ICMP leaving toward r3 (ACL NO-ICMP-OUT,
// entry 10). The report, asked on r1, proposes removing entry 10 (a
// signed ACL read behind it, a diff). r2's agent applies it only with the
// operator's consent, through r2's approval gate: without consent the
// gate's refusal stands and the ACL is unchanged; with it the entry is
// removed by a confirmed commit, the path verified again (clean), and the
// commit confirmed.
func TestMitigateEgressACL(t *testing.T) {
	topo := withEgressACL("r2", "GigabitEthernet0/0/0/1")
	d := newDomain(t, domainOpts{topo: &topo, writer: true})
	ctx := context.Background()
	rep := askVerified(t, d, "r1")
	if len(rep.Proposals) != 1 {
		t.Fatalf("proposals %+v; findings %s", rep.Proposals, findingsJSON(rep))
	}
	p := rep.Proposals[0]
	if p.Device != "r2" || p.Cause != "egress-filter" || len(p.Edit) != 1 || p.Edit[0].Operation != "delete" ||
		!strings.Contains(p.Edit[0].Path, "acl-entry[sequence-id='10']") || !strings.Contains(p.Diff, "-  10 deny icmp") {
		t.Fatalf("proposal %+v", p)
	}
	if len(p.Evidence) != 1 || rep.Evidence[p.Evidence[0]].Signer != "r2" || rep.Evidence[p.Evidence[0]].Tool != netproto.ToolYangGet {
		t.Fatalf("proposal's evidence %v is not r2's signed ACL read", p.Evidence)
	}
	if got := aclEntries(t, d, "r2", "NO-ICMP-OUT"); len(got) != 2 {
		t.Fatalf("NO-ICMP-OUT before: %v", got)
	}
	// Asked on r2 too, the same proposal. (And r2's next run, the
	// verification, counts the simulator's look-back captures after
	// this run's probes, not r1's.)
	if rep2 := askVerified(t, d, "r2"); len(rep2.Proposals) != 1 || rep2.Proposals[0].Diff != p.Diff {
		t.Fatalf("asked on r2: proposals %+v", rep2.Proposals)
	}

	for _, tc := range []struct {
		name, agent, consent string
		wantErr              error
	}{
		{"another device's agent", "r1", "operator:alice", nil},
		{"no consent", "r2", "", ErrConsentRequired},
	} {
		res, err := d.agents[tc.agent].Mitigate(ctx, rep, tc.consent)
		if err == nil || res.Committed || (tc.wantErr != nil && !errors.Is(err, tc.wantErr)) {
			t.Fatalf("%s: %+v, %v", tc.name, res, err)
		}
		if got := aclEntries(t, d, "r2", "NO-ICMP-OUT"); len(got) != 2 {
			t.Fatalf("%s: NO-ICMP-OUT changed: %v", tc.name, got)
		}
		t.Logf("%s: %v", tc.name, err)
	}
	tampered := rep
	tampered.Proposals = append(tampered.Proposals[:0:0], rep.Proposals...)
	tampered.Proposals[0].Edit = append(tampered.Proposals[0].Edit[:0:0], rep.Proposals[0].Edit...)
	tampered.Proposals[0].Edit[0].Path = strings.Replace(p.Edit[0].Path, "'10'", "'20'", 1)
	if _, err := d.agents["r2"].Mitigate(ctx, tampered, "operator:alice"); err == nil || !strings.Contains(err.Error(), "does not verify") {
		t.Fatalf("a tampered proposal: %v", err)
	}

	// Through r2's agent's operator tool: without consent refused, with
	// it applied.
	op := d.operator("r2")
	call := func(consent bool) (*mcp.CallToolResult, MitigationResult) {
		out, err := op.CallTool(ctx, &mcp.CallToolParams{Name: ToolMitigate, Arguments: map[string]any{"report": rep, "consent": consent}})
		if err != nil {
			t.Fatal(err)
		}
		var res MitigationResult
		b, _ := json.Marshal(out.StructuredContent)
		_ = json.Unmarshal(b, &res)
		return out, res
	}
	if out, res := call(false); !out.IsError || res.Committed || !strings.Contains(textOf(out), "consent") {
		t.Fatalf("operator without consent: %s %+v", textOf(out), res)
	}
	if got := aclEntries(t, d, "r2", "NO-ICMP-OUT"); len(got) != 2 {
		t.Fatalf("operator without consent: NO-ICMP-OUT changed: %v", got)
	}
	out, res := call(true)
	if out.IsError || res.Consent != "operator:alice" {
		t.Fatalf("operator with consent: %s %+v", textOf(out), res)
	}
	if !res.Committed || !res.Verified || !res.Confirmed || res.RolledBack || res.Verification == nil {
		t.Fatalf("mitigation %+v", res)
	}
	if res.Verification.Hypothesis != nil {
		t.Fatalf("path still faulty after the fix: %s", findingsJSON(*res.Verification))
	}
	verifyReport(t, d, *res.Verification)
	if got := aclEntries(t, d, "r2", "NO-ICMP-OUT"); len(got) != 1 || got[0] != 20 {
		t.Fatalf("NO-ICMP-OUT after: %v, want only entry 20", got)
	}
	t.Logf("%s; diff:\n%s", res.Result, res.Diff)
}

// writeHook is a write session that calls before on each write first.
type writeHook struct {
	Writer
	before func(tool string)
}

func (w writeHook) CallTool(ctx context.Context, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	w.before(p.Name)
	return w.Writer.CallTool(ctx, p)
}

// TestMitigateRollsBack: the change is committed, but the path cannot be
// verified again (r3's agent is gone once r2 has diagnosed the path and
// made its edit): the confirmed commit is cancelled and the ACL entry is
// back.
func TestMitigateRollsBack(t *testing.T) {
	topo := withEgressACL("r2", "GigabitEthernet0/0/0/1")
	d := newDomain(t, domainOpts{topo: &topo, writer: true})
	rep := askVerified(t, d, "r2")
	if len(rep.Proposals) != 1 {
		t.Fatalf("proposals %+v", rep.Proposals)
	}
	var once sync.Once
	d.agents["r2"].cfg.Writer = writeHook{Writer: d.agents["r2"].cfg.Writer, before: func(tool string) {
		if tool == netproto.ToolCommit {
			once.Do(d.cancel["r3"])
		}
	}}
	res, err := d.agents["r2"].Mitigate(context.Background(), rep, "operator:alice")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Committed || res.Verified || res.Confirmed || !res.RolledBack {
		t.Fatalf("mitigation %+v", res)
	}
	if got := aclEntries(t, d, "r2", "NO-ICMP-OUT"); len(got) != 2 {
		t.Fatalf("NO-ICMP-OUT after the rollback: %v, want entries 10 and 20", got)
	}
	t.Log(res.Result)
}
