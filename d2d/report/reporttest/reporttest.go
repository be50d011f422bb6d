// Package reporttest builds genuine signed D2D reports for the tests of
// the packages that store, list and verify them.
package reporttest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/netmcp/netmcp/d2d/report"
	"github.com/netmcp/netmcp/d2d/sign"
	"github.com/netmcp/netmcp/pki"
)

// Signed returns report id by creator, holding one ping result signed by
// peer and one finding on peer ("peer drops toward creator"), sealed by
// creator and countersigned by peer, both with server certificates of ca:
// a report report.VerifyJSON accepts under ca.
func Signed(t testing.TB, ca *pki.CA, id, creator, peer string) report.Report {
	t.Helper()
	party := func(name string) (*sign.Signer, sign.Binding) {
		c, k, err := ca.Issue(name, pki.KindServer, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		key, err := sign.ParseCertKey(k)
		if err != nil {
			t.Fatal(err)
		}
		s, err := sign.NewEphemeralSigner(name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.Bind(c, key)
		if err != nil {
			t.Fatal(err)
		}
		return s, b
	}
	s1, b1 := party(creator)
	s2, b2 := party(peer)
	res := sign.Result{Caller: creator, Tool: "ping", Args: json.RawMessage(`{}`), Body: json.RawMessage(`{"loss":100}`)}
	if err := s2.Sign(&res); err != nil {
		t.Fatal(err)
	}
	f := report.Finding{Rule: "one-way-loss", Device: peer, Direction: peer + "->" + creator, Cause: "egress-filter",
		Statement: peer + " drops toward " + creator, Evidence: []int{0}}
	r := report.Report{Version: report.Version, ID: id, URI: report.URIPrefix + id, Creator: creator,
		Created: time.Now().UTC().Format(time.RFC3339Nano), Intent: "loss " + creator + " " + peer,
		Path: []string{creator, peer}, Hypothesis: &f, Findings: []report.Finding{f}, Evidence: []sign.Result{res},
		Participants: map[string]sign.Binding{creator: b1, peer: b2}}
	cs, err := report.Countersign(s2, r)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Seal(s1, map[string]string{peer: cs}); err != nil {
		t.Fatal(err)
	}
	return r
}
