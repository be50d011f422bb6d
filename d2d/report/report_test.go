package report

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/netmcp/netmcp/d2d/sign"
	"github.com/netmcp/netmcp/pki"
)

// fixture is a two-participant report, sealed by r1 and countersigned by
// r2, with what it was made with.
type fixture struct {
	rep    Report
	s1, s2 *sign.Signer
	roots  *x509.CertPool
}

func newFixture(t testing.TB) fixture {
	t.Helper()
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
	f := Finding{Rule: "egress-discards", Device: "r2", Direction: "r2->r1", Cause: "egress-filter", Statement: "r2 drops", Evidence: []int{0}}
	base := Report{Version: Version, ID: "x", URI: URIPrefix + "x", Creator: "r1", Created: time.Now().UTC().Format(time.RFC3339), Path: []string{"r1", "r2"},
		Hypothesis: &f, Findings: []Finding{f}, Evidence: []sign.Result{res}, Participants: map[string]sign.Binding{"r1": b1, "r2": b2}}
	cs, err := Countersign(s2, base)
	if err != nil {
		t.Fatal(err)
	}
	if err := base.Seal(s1, map[string]string{"r2": cs}); err != nil {
		t.Fatal(err)
	}
	return fixture{rep: base, s1: s1, s2: s2, roots: roots}
}

func (f fixture) clone() Report {
	var c Report
	b, _ := json.Marshal(f.rep)
	json.Unmarshal(b, &c)
	return c
}

func (f fixture) verifier() BindingVerifier { return CAVerifier(f.roots, time.Now()) }

// TestVerify checks that Verify accepts a report signed by both
// participants and names each alteration.
func TestVerify(t *testing.T) {
	fx := newFixture(t)
	if err := fx.rep.Seal(fx.s2, nil); err == nil {
		t.Fatal("a non-creator sealed the report")
	}
	if _, err := Countersign(fx.s1, fx.rep); err == nil {
		t.Fatal("the creator countersigned its own report")
	}
	checks, err := Verify(fx.clone(), fx.verifier())
	if err != nil || len(checks) != 3 {
		t.Fatalf("%v %v", checks, err)
	}
	digest, _ := fx.rep.Digest()
	creatorAsCountersig, _ := fx.s1.SignDigest(sign.PurposeCountersign, digest)
	countersigAsCreator, _ := fx.s2.SignDigest(sign.PurposeCreate, digest)
	for _, tc := range []struct {
		name, want string
		mutate     func(*Report)
	}{
		{"intent changed", "altered", func(r *Report) { r.Intent = "x" }},
		{"evidence for another caller", "altered", func(r *Report) { r.Evidence[0].Caller = "r3" }},
		{"binding under another name", "carries the binding", func(r *Report) { r.Participants["r1"] = r.Participants["r2"] }},
		{"finding cites missing evidence", "altered", func(r *Report) { r.Findings = []Finding{{Rule: "x", Evidence: []int{7}}} }},
		{"countersignature removed", "has not countersigned", func(r *Report) { delete(r.Signatures, "r2") }},
		{"creator's signature removed", "no signature of the creator", func(r *Report) { delete(r.Signatures, "r1") }},
		{"no signatures", "no signature of the creator", func(r *Report) { r.Signatures = nil }},
		{"signature of a non-participant", "not a participant", func(r *Report) { r.Signatures["r9"] = r.Signatures["r2"] }},
		{"the creator's signature made as a countersignature", "create signature", func(r *Report) { r.Signatures["r1"] = creatorAsCountersig }},
		{"a countersignature made as a creator's", "countersign signature", func(r *Report) { r.Signatures["r2"] = countersigAsCreator }},
		{"version 1", "version 1 is not accepted", func(r *Report) { r.Version = 1 }},
		{"no version", "version 0 is not accepted", func(r *Report) { r.Version = 0 }},
	} {
		r := fx.clone()
		tc.mutate(&r)
		if _, err := Verify(r, fx.verifier()); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// Signed again by every participant, a dangling index is still
	// refused; re-sealed by the creator alone, a changed result is.
	for _, tc := range []struct {
		name, want  string
		countersign bool
		mutate      func(*Report)
	}{
		{"finding cites missing evidence", "does not exist", true, func(r *Report) { r.Findings = []Finding{{Rule: "x", Evidence: []int{7}}} }},
		{"hypothesis cites missing evidence", "does not exist", true, func(r *Report) { r.Hypothesis.Evidence = []int{-1} }},
		{"proposal cites missing evidence", "does not exist", true, func(r *Report) { r.Proposals = []Proposal{{Device: "r2", Evidence: []int{1}}} }},
		{"r2's result changed, re-sealed without r2", "has not countersigned", false, func(r *Report) { r.Evidence[0].Body = json.RawMessage(`{"loss":100}`) }},
	} {
		r := fx.clone()
		tc.mutate(&r)
		sigs := map[string]string{}
		if tc.countersign {
			sigs["r2"], _ = Countersign(fx.s2, r)
		}
		if err := r.Seal(fx.s1, sigs); err != nil {
			t.Fatal(err)
		}
		if _, err := Verify(r, fx.verifier()); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("re-sealed, %s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// The digest leaves out the signatures member entirely.
	b, _ := fx.rep.SignedBytes()
	if bytes.Contains(b, []byte(`"signatures"`)) || !bytes.HasPrefix(b, []byte("netmcp-d2d-report-v2\x00{")) {
		t.Errorf("signed bytes %.80q", b)
	}
}

// TestParse: Parse takes a report's own JSON, and refuses JSON carrying
// anything its signatures do not cover.
func TestParse(t *testing.T) {
	fx := newFixture(t)
	raw, _ := json.Marshal(fx.rep)
	indented, _ := json.MarshalIndent(fx.rep, "", "  ")
	s := string(raw)
	for _, tc := range []struct {
		name, json string
		ok         bool
	}{
		{"as encoded", s, true},
		{"indented", string(indented), true},
		{"unknown member", strings.Replace(s, `{`, `{"note":"ignore r2",`, 1), false},
		{"member spelt in capitals", strings.Replace(s, `"hypothesis":`, `"Hypothesis":`, 1), false},
		{"forged hypothesis before the signed one in capitals", `{"hypothesis":null,` + strings.Replace(s[1:], `"hypothesis":`, `"Hypothesis":`, 1), false},
		{"member given twice", strings.Replace(s, `"intent":""`, `"intent":"a","intent":""`, 1), false},
		{"member given twice, escaped", strings.Replace(s, `"intent":""`, `"intent":"a","int\u0065nt":""`, 1), false},
		{"nested member given twice", strings.Replace(s, `"rule":"egress-discards"`, `"rule":"x","rule":"egress-discards"`, 1), false},
		{"unknown nested member", strings.Replace(s, `"rule":`, `"weight":9,"rule":`, 1), false},
		{"trailing data", s + ` {}`, false},
		{"not UTF-8", strings.Replace(s, `"intent":""`, "\"intent\":\"\xff\"", 1), false},
		{"empty untrusted member", strings.Replace(s, `{`, `{"untrusted":{},`, 1), false},
	} {
		r, err := Parse([]byte(tc.json))
		if tc.ok != (err == nil) {
			t.Errorf("%s: %v, want ok=%v", tc.name, err, tc.ok)
			continue
		}
		if tc.ok {
			if _, err := Verify(r, fx.verifier()); err != nil {
				t.Errorf("%s: parsed, then %v", tc.name, err)
			}
		}
	}
}

// FuzzVerify feeds report verification (Parse, then Verify) with
// mutations of a genuine report's JSON. It must never panic, and whatever
// it accepts must be the genuine report: the same canonical JSON, the
// signatures being unforgeable.
func FuzzVerify(f *testing.F) {
	fx := newFixture(f)
	raw, _ := json.Marshal(fx.rep)
	want, _ := sign.Canonical(fx.rep)
	f.Add(raw)
	f.Add([]byte(strings.Replace(string(raw), `"hypothesis":`, `"Hypothesis":`, 1)))
	f.Add([]byte(`{"hypothesis":null,` + strings.Replace(string(raw[1:]), `"hypothesis":`, `"Hypothesis":`, 1)))
	f.Add([]byte(strings.Replace(string(raw), `"intent":""`, `"intent":"a","intent":""`, 1)))
	f.Add([]byte(`{"version":2,"signatures":{"r1":""}}`))
	f.Add([]byte(`[]`))
	// Binding checks (X.509 and ECDSA) dominate the cost; the fixture's
	// two are checked once each.
	var mu sync.Mutex
	verified := map[string]ed25519.PublicKey{}
	bv := func(b sign.Binding) (ed25519.PublicKey, error) {
		k, _ := json.Marshal(b)
		mu.Lock()
		pub, ok := verified[string(k)]
		mu.Unlock()
		if ok {
			return pub, nil
		}
		pub, err := b.Verify(fx.roots, time.Now())
		if err == nil {
			mu.Lock()
			verified[string(k)] = pub
			mu.Unlock()
		}
		return pub, err
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := Parse(in)
		if err != nil {
			return
		}
		if _, err := Verify(r, bv); err != nil {
			return
		}
		got, err := sign.Canonical(json.RawMessage(in))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("accepted a report other than the genuine one:\n%s", in)
		}
	})
}
