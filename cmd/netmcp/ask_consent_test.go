package main

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/controller"
)

// TestOperatorConsent: on a terminal the operator is shown the diff and
// answers; without one only a policy with --yes consents; device
// elicitations are accepted without a terminal only after consent.
func TestOperatorConsent(t *testing.T) {
	rep := &controller.Report{ProposedChanges: []controller.Change{{Device: "r3", Summary: "remove entry 10 of ACL X", Cause: "icmp_acl_block",
		Diff: "--- r3 running\n+++ r3 proposed\n acl X\n-  10 deny icmp any any\n"}}}
	cases := []struct {
		name   string
		op     *operator
		answer string
		want   string
		ok     bool
	}{
		{"terminal yes", &operator{tty: true}, "y\n", "operator", true},
		{"terminal default no", &operator{tty: true}, "\n", "declined by the operator", false},
		{"no terminal", &operator{}, "", "not asked", false},
		{"policy allows", &operator{yes: true, policy: &controller.Policy{AutoApprove: true, RootCauses: []string{"icmp_acl_block"}}}, "", "policy", true},
		{"policy other device", &operator{yes: true, policy: &controller.Policy{AutoApprove: true, Devices: []string{"r1"}}}, "", "declined by policy", false},
		{"policy off", &operator{yes: true, policy: &controller.Policy{}}, "", "declined by policy", false},
	}
	for _, c := range cases {
		var out bytes.Buffer
		op := c.op
		op.in, op.out = bufio.NewReader(strings.NewReader(c.answer)), &out
		got, ok := op.consent(rep)
		if ok != c.ok || !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: %q %v, want %q %v", c.name, got, ok, c.want, c.ok)
		}
		if c.op.tty && !strings.Contains(out.String(), "-  10 deny icmp any any") {
			t.Errorf("%s: the diff was not shown:\n%s", c.name, out.String())
		}
		// A device's elicitation after that answer: accepted without a
		// terminal only once the fix was consented to.
		if !c.op.tty {
			res := op.answer("r3", "approve the commit?")
			if (res.Action == "accept") != c.ok {
				t.Errorf("%s: elicitation answered %s", c.name, res.Action)
			}
		}
	}
}
