package agent

import (
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/json"
	"testing"
	"time"

	"github.com/netmcp/netmcp/d2d/report"
	"github.com/netmcp/netmcp/d2d/sign"
)

// verifyReportErr checks every signature of rep against the domain's CA.
func verifyReportErr(d *testDomain, rep report.Report) ([]report.Check, error) {
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(d.ca.CertPEM)
	return report.Verify(rep, func(b sign.Binding) (ed25519.PublicKey, error) { return b.Verify(roots, time.Now()) })
}

func verifyReport(t testing.TB, d *testDomain, rep report.Report) []report.Check {
	t.Helper()
	checks, err := verifyReportErr(d, rep)
	if err != nil {
		t.Fatalf("report does not verify: %v", err)
	}
	return checks
}

func TestAskHealthy(t *testing.T) {
	d := newDomain(t, domainOpts{})
	start := time.Now()
	rep, err := d.agents["r1"].Ask(context.Background(), "verify packet loss on the path from r1 to r3 via r2")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("intent to report: %s", time.Since(start))
	b, _ := json.MarshalIndent(rep.Findings, "", " ")
	t.Logf("findings: %s; evidence %d; untrusted %v", b, len(rep.Evidence), rep.Untrusted)
	if rep.Hypothesis != nil || len(rep.Findings) != 0 {
		t.Fatalf("healthy lab: findings %s", b)
	}
	if len(rep.Signatures) != 3 {
		t.Fatalf("report signed by %v, want r1, r2 and r3", rep.Signatures)
	}
	checks := verifyReport(t, d, rep)
	signers := map[string]bool{}
	for _, c := range checks {
		signers[c.Signer] = true
	}
	if len(signers) != 3 {
		t.Fatalf("signatures from %v, want r1, r2, r3", signers)
	}
}
