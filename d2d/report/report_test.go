package report

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/d2d/sign"
	"github.com/netmcp/netmcp/pki"
)

// TestVerify builds a two-participant report by hand and checks that
// Verify accepts it and names each alteration.
func TestVerify(t *testing.T) {
	ca, _ := pki.NewCA("ca")
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.CertPEM)
	party := func(name string) (*sign.Signer, sign.Binding) {
		c, k, err := ca.Issue(name, pki.KindServer, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		key, _ := sign.ParseCertKey(k)
		s, _ := sign.NewEphemeralSigner(name)
		b, err := s.Bind(c, key)
		if err != nil {
			t.Fatal(err)
		}
		return s, b
	}
	s1, b1 := party("r1")
	s2, b2 := party("r2")
	res := sign.Result{Caller: "r1", Tool: "ping", Args: json.RawMessage(`{}`), Body: json.RawMessage(`{"loss":0}`)}
	if err := s2.Sign(&res); err != nil {
		t.Fatal(err)
	}
	base := Report{ID: "x", URI: URIPrefix + "x", Creator: "r1", Created: time.Now().UTC().Format(time.RFC3339), Path: []string{"r1", "r2"},
		Findings: []Finding{}, Evidence: []sign.Result{res}, Participants: map[string]sign.Binding{"r1": b1, "r2": b2}}
	d, _ := base.Digest()
	if err := base.Seal(s1, map[string]string{"r2": s2.SignBytes(AttestBytes(d))}); err != nil {
		t.Fatal(err)
	}
	if err := base.Seal(s2, nil); err == nil {
		t.Fatal("a non-creator sealed the report")
	}
	bv := func(b sign.Binding) (ed25519.PublicKey, error) { return b.Verify(roots, time.Now()) }
	clone := func() Report {
		var c Report
		b, _ := json.Marshal(base)
		json.Unmarshal(b, &c)
		return c
	}
	checks, err := Verify(clone(), bv)
	if err != nil || len(checks) != 3 {
		t.Fatalf("%v %v", checks, err)
	}
	for _, tc := range []struct {
		name, want string
		mutate     func(*Report)
	}{
		{"intent changed", "altered", func(r *Report) { r.Intent = "x" }},
		{"evidence for another caller", "altered", func(r *Report) { r.Evidence[0].Caller = "r3" }},
		{"binding under another name", "carries the binding", func(r *Report) { r.Participants["r1"] = b2 }},
		{"finding cites missing evidence", "altered", func(r *Report) { r.Findings = []Finding{{Rule: "x", Evidence: []int{7}}} }},
	} {
		r := clone()
		tc.mutate(&r)
		if _, err := Verify(r, bv); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// A finding citing missing evidence, sealed by the creator, is still refused.
	r := clone()
	r.Findings = []Finding{{Rule: "x", Evidence: []int{7}}}
	r.Seal(s1, nil)
	if _, err := Verify(r, bv); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("dangling evidence index: %v", err)
	}
}
