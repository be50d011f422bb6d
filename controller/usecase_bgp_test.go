package controller_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/lab/topology"
)

// runningConfig reads a router's running configuration over its MCP session.
func (l *testLab) runningConfig(t testing.TB, dev string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := l.fleet.Device(dev).CallTool(ctx, "network.cli.exec", map[string]any{"cmd": "show running-config"})
	if err != nil || res.IsError {
		t.Fatalf("show running-config on %s: %v %+v", dev, err, res)
	}
	var b bytes.Buffer
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// aclBlock179 is the entry bgp_acl_block writes into r2's running config.
const aclBlock179 = "10 deny tcp any any eq 179"

// askBGPACL is the draft's 4.4.2 up to the proposal: r2 drops BGP from r1
// on its interface to r1; the controller names the ACL entry and the
// interface with the evidence, proposes removing the entry as a diff, and
// nothing has changed on r2.
func askBGPACL(t *testing.T, l *testLab) *controller.Report {
	t.Helper()
	rep := l.ask(t, "why is BGP neighbor 10.0.12.2 down on r1")
	var text bytes.Buffer
	rep.WriteText(&text)
	if rep.Verified == nil || *rep.Verified || !slices.Equal(rep.RootCauseName, []string{"bgp_acl_block"}) || !slices.Equal(rep.FaultyDevices, []string{"r2"}) {
		t.Fatalf("verified %v, causes %v on %v\n%s", rep.Verified, rep.RootCauseName, rep.FaultyDevices, text.String())
	}
	c := rep.RootCauses[0]
	if c.Where != "r2:GigabitEthernet0/0/0/0 in" || !strings.Contains(c.Summary, "NIKA-BGP-BLOCK") || !strings.Contains(c.Summary, "entry 10 deny tcp any any dst-port 179") {
		t.Errorf("cause at %q: %s", c.Where, c.Summary)
	}
	var sawSession, sawACL bool
	for _, e := range c.Evidence {
		sawSession = sawSession || e.Device == "r1" && strings.Contains(e.Showed, "neighbor 10.0.12.2: session ACTIVE")
		sawACL = sawACL || e.Device == "r2" && strings.Contains(e.Showed, "bound in on GigabitEthernet0/0/0/0: 10 deny tcp any any dst-port 179")
		if e.Call < 1 || e.Call > len(rep.Calls) || rep.Calls[e.Call-1].Device != e.Device {
			t.Errorf("evidence %+v does not name a call of the report", e)
		}
	}
	if !sawSession || !sawACL {
		t.Errorf("evidence lacks the session state on r1 or the ACL on r2: %+v", c.Evidence)
	}
	// The capture on port 179 is taken where the ACL drops it, on r2's
	// interface toward r1, over a connect-retry interval
	// (TestBGPACLCaptureEvidence: what it shows).
	if !slices.ContainsFunc(rep.Calls, func(c controller.Call) bool {
		return c.Device == "r2" && c.Tool == "capture" && c.Args["port"] == 179 && c.Args["interface"] == "GigabitEthernet0/0/0/0" && c.Args["durationSeconds"] == 130
	}) {
		t.Errorf("no 130 s capture on port 179 on r2's interface toward r1")
	}
	if len(rep.ProposedChanges) != 1 {
		t.Fatalf("changes %+v", rep.ProposedChanges)
	}
	ch := rep.ProposedChanges[0]
	if ch.Device != "r2" || ch.Cause != "bgp_acl_block" || !strings.Contains(ch.Diff, "-  10 deny tcp any any dst-port 179") || ch.Applied != nil {
		t.Errorf("change %+v", ch)
	}
	if !strings.Contains(l.runningConfig(t, "r2"), aclBlock179) {
		t.Fatal("r2's ACL entry is gone before any consent")
	}
	return rep
}

// remediate applies the report's change with the operator's consent.
func (l *testLab) remediate(t *testing.T, rep *controller.Report) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := l.ctl.Remediate(ctx, rep, "operator"); err != nil {
		t.Fatal(err)
	}
}

// TestRemediationBGPACLConfirmed is the draft's 4.4.2 end to end: found,
// proposed, unchanged before consent, applied as a confirmed commit with
// it, the intent verified again (the session Established) and the commit
// confirmed: the entry stays removed.
func TestRemediationBGPACLConfirmed(t *testing.T) {
	l := newTestLab(t, "bgp_acl_block r2:GigabitEthernet0/0/0/0")
	rep := askBGPACL(t, l)
	l.remediate(t, rep)
	ch := rep.ProposedChanges[0]
	if rem := rep.Remediation; rem == nil || rem.Consent != "operator" || !rem.Applied || !rem.Verified || ch.Applied == nil || !ch.Applied.Committed || !ch.Applied.Confirmed || ch.Applied.Rolled {
		t.Fatalf("remediation %+v, change %+v", rep.Remediation, ch.Applied)
	}
	if strings.Contains(l.runningConfig(t, "r2"), aclBlock179) {
		t.Error("the ACL entry is still in r2's running config after the confirmed fix")
	}
	again := l.ask(t, "why is BGP neighbor 10.0.12.2 down on r1")
	if again.Verified == nil || !*again.Verified || again.IsAnomaly {
		t.Fatalf("after the fix: %s", again.Diagnosis)
	}
	if st := l.bgpSessionState(t, "r1", "10.0.12.2"); st != "ESTABLISHED" {
		t.Errorf("r1's session to 10.0.12.2 is %s after the fix", st)
	}
}

// TestRemediationBGPACLRolledBack: the peer's AS goes wrong on r1 between
// the diagnosis and the consent, so removing the ACL entry does not bring
// the session up: the verification fails, the confirmed commit is
// cancelled and the entry is back in r2's running config.
func TestRemediationBGPACLRolledBack(t *testing.T) {
	l := newTestLab(t, "bgp_acl_block r2:GigabitEthernet0/0/0/0")
	rep := askBGPACL(t, l)
	f, err := topology.ParseFault("bgp_asn_misconfig r1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.lab.Inject(f); err != nil {
		t.Fatal(err)
	}
	l.remediate(t, rep)
	ch := rep.ProposedChanges[0]
	if rem := rep.Remediation; rem == nil || !rem.Applied || rem.Verified || ch.Applied == nil || !ch.Applied.Committed || ch.Applied.Confirmed || !ch.Applied.Rolled {
		t.Fatalf("remediation %+v, change %+v", rep.Remediation, ch.Applied)
	}
	if !strings.Contains(rep.Remediation.Result, "rolled back") {
		t.Errorf("result %q", rep.Remediation.Result)
	}
	if !strings.Contains(l.runningConfig(t, "r2"), aclBlock179) {
		t.Error("the ACL entry is not back in r2's running config after the rollback")
	}
	if st := l.bgpSessionState(t, "r1", "10.0.12.2"); st == "ESTABLISHED" {
		t.Error("r1's session to 10.0.12.2 is Established after the rollback")
	}
}

// bgpSessionState reads a neighbour's session-state from the device's YANG.
func (l *testLab) bgpSessionState(t testing.TB, dev, peer string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	path := "/openconfig-network-instance:network-instances/network-instance[name=default]/protocols/protocol[identifier=openconfig-policy-types:BGP][name=bgp]/bgp/neighbors/neighbor[neighbor-address=" + peer + "]/state/session-state"
	res, err := l.fleet.Device(dev).CallTool(ctx, "network.yang.get", map[string]any{"path": path})
	if err != nil || res.IsError {
		t.Fatalf("yang get on %s: %v %+v", dev, err, res)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	for _, s := range []string{"ESTABLISHED", "OPENCONFIRM", "OPENSENT", "ACTIVE", "CONNECT", "IDLE"} {
		if strings.Contains(b.String(), s) {
			return s
		}
	}
	t.Fatalf("no session-state in %s", b.String())
	return ""
}

// TestBGPACLCaptureEvidence: asked a while after r2's ACL began to drop
// BGP, the controller's capture on port 179 of r2's interface reaches back
// over a connect-retry interval, sees r1's connection attempts arrive and
// r2 answer none, and cites it as evidence of the ACL cause (draft 4.4.2:
// "a capture on port 179"). The lab's clock is moved on so the fault has
// lasted past r1's next connect retry, as it has when an operator notices
// a session down (a simulated capture reports the window that ends now; a
// real one runs that long).
func TestBGPACLCaptureEvidence(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after time.Duration
	}{
		{"three minutes after the fault", 3 * time.Minute},
		{"ten minutes after the fault", 10 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newTestLab(t, "bgp_acl_block r2:GigabitEthernet0/0/0/0")
			l.advance(tc.after)
			rep := l.ask(t, "why is BGP neighbor 10.0.12.2 down on r1")
			if len(rep.RootCauses) != 1 || rep.RootCauses[0].Name != "bgp_acl_block" {
				t.Fatalf("causes %+v", rep.RootCauses)
			}
			var got *controller.Evidence
			for i, e := range rep.RootCauses[0].Evidence {
				if e.Tool == "capture" {
					got = &rep.RootCauses[0].Evidence[i]
				}
			}
			if got == nil {
				t.Fatalf("no capture among the evidence: %+v", rep.RootCauses[0].Evidence)
			}
			t.Logf("evidence: %s", got.Showed)
			if got.Device != "r2" || !strings.Contains(got.Showed, "capture on r2 GigabitEthernet0/0/0/0 port 179") ||
				!strings.Contains(got.Showed, "SYNs from 10.0.12.1 to port 179 arrived and none was answered with a SYN-ACK") {
				t.Errorf("capture evidence %+v", got)
			}
			if got.Call < 1 || got.Call > len(rep.Calls) || rep.Calls[got.Call-1].Tool != "capture" || rep.Calls[got.Call-1].Device != "r2" {
				t.Errorf("evidence %+v does not name the capture call of the report", got)
			}
			var text bytes.Buffer
			rep.WriteText(&text)
			if !strings.Contains(text.String(), "none was answered with a SYN-ACK") {
				t.Errorf("the report's text does not cite the capture:\n%s", text.String())
			}
		})
	}
}
