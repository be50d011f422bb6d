package sign

import (
	"crypto/x509"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/netmcp/netmcp/pki"
)

func mustSigner(t testing.TB, id string) *Signer {
	t.Helper()
	s, err := NewEphemeralSigner(id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func signed(t testing.TB, s *Signer, caller, body string) Result {
	t.Helper()
	r := Result{Caller: caller, Tool: "ping", Args: json.RawMessage(`{"destination":"10.0.12.1"}`), Body: json.RawMessage(body)}
	if err := s.Sign(&r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCanonical(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"b":1,"a":{"d":2,"c":[3,"<x>"]}}`, `{"a":{"c":[3,"<x>"],"d":2},"b":1}`},
		{` { "n" : 1.50 } `, `{"n":1.50}`},
		{`[]`, `[]`},
	} {
		got, err := Canonical(json.RawMessage(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("Canonical(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	if _, err := Canonical(json.RawMessage(`{} {}`)); err == nil {
		t.Error("trailing data accepted")
	}
}

func TestVerify(t *testing.T) {
	r2 := mustSigner(t, "r2")
	evil := mustSigner(t, "r2") // another key claiming r2's identity
	first := signed(t, r2, "r1", `{"loss":0}`)
	second := signed(t, r2, "r1", `{"loss":0}`)
	forgedBody := second
	forgedBody.Body = json.RawMessage(`{"loss":100}`)
	forgedNonce := second
	forgedNonce.Nonce += 1000
	byEvil := signed(t, evil, "r1", `{"loss":0}`)
	badSig := second
	badSig.Sig = "AAAA"
	forOther := signed(t, r2, "r3", `{"loss":0}`)
	third := signed(t, r2, "r1", `{"n":3}`)
	fourth := signed(t, r2, "r1", `{"n":4}`)
	var belowWindow Result
	for i := 0; i < ReplayWindow; i++ {
		r := signed(t, r2, "r1", `{}`)
		if i == 0 {
			belowWindow = r
		}
	}
	far := signed(t, r2, "r1", `{}`)

	cases := []struct {
		name           string
		r              Result
		signer, caller string
		want           string // "" = accepted
	}{
		{"first result", first, "r2", "r1", ""},
		{"replay of the first", first, "r2", "r1", ReasonReplayed},
		{"tampered body", forgedBody, "r2", "r1", ReasonForged},
		{"raised nonce", forgedNonce, "r2", "r1", ReasonForged},
		{"another key claiming r2", byEvil, "r2", "r1", ReasonForged},
		{"malformed signature", badSig, "r2", "r1", ReasonForged},
		{"expected r3", second, "r3", "r1", ReasonIdentity},
		{"made for r3", forOther, "r2", "r1", ReasonIdentity},
		{"second result", second, "r2", "r1", ""},
		{"second again", second, "r2", "r1", ReasonReplayed},
		{"later result first", fourth, "r2", "r1", ""},
		{"earlier result arriving late (concurrent calls)", third, "r2", "r1", ""},
		{"the late one replayed", third, "r2", "r1", ReasonReplayed},
		{"far beyond", far, "r2", "r1", ""},
		{"below the window", belowWindow, "r2", "r1", ReasonReplayed},
		{"unknown signer", signed(t, mustSigner(t, "r9"), "r1", `{}`), "r9", "r1", ReasonUnknown},
	}
	v := NewVerifier()
	v.Trust("r2", r2.PublicKey())
	for _, tc := range cases {
		err := v.Verify(tc.r, tc.signer, tc.caller)
		var se *Error
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.want != "" && !errors.As(err, &se):
			t.Errorf("%s: got %v, want refusal %s", tc.name, err, tc.want)
		case tc.want != "" && se.Reason != tc.want:
			t.Errorf("%s: refused for %s (%v), want %s", tc.name, se.Reason, err, tc.want)
		}
	}
}

func TestNonceSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	s1, err := OpenSigner(dir, "r1")
	if err != nil {
		t.Fatal(err)
	}
	var last uint64
	for i := 0; i < 3; i++ {
		r := signed(t, s1, "r2", `{}`)
		if r.Nonce <= last {
			t.Fatalf("nonce %d after %d", r.Nonce, last)
		}
		last = r.Nonce
	}
	// A restart (crash, no clean close) opens the same directory.
	s2, err := OpenSigner(dir, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if !s2.PublicKey().Equal(s1.PublicKey()) {
		t.Fatal("key not persisted")
	}
	r := signed(t, s2, "r2", `{}`)
	if r.Nonce <= last {
		t.Fatalf("nonce reused after restart: %d <= %d", r.Nonce, last)
	}
	v := NewVerifier()
	v.Trust("r1", s1.PublicKey())
	old := signed(t, s1, "r2", `{}`)
	if err := v.Verify(r, "r1", "r2"); err != nil {
		t.Fatal(err)
	}
	if old.Nonce > r.Nonce {
		t.Fatalf("the first instance went on above the restarted one: %d > %d", old.Nonce, r.Nonce)
	}
	// A corrupt nonce file is refused, never reset to zero.
	if err := os.WriteFile(filepath.Join(dir, NonceFile), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenSigner(dir, "r1"); err == nil {
		t.Fatal("corrupt nonce file accepted")
	}
}

func TestBinding(t *testing.T) {
	ca, err := pki.NewCA("lab")
	if err != nil {
		t.Fatal(err)
	}
	other, _ := pki.NewCA("other")
	certPEM, keyPEM, err := ca.Issue("r2", pki.KindServer, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ParseCertKey(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.CertPEM)
	otherRoots := x509.NewCertPool()
	otherRoots.AppendCertsFromPEM(other.CertPEM)

	r2 := mustSigner(t, "r2")
	b, err := r2.Bind(certPEM, key)
	if err != nil {
		t.Fatal(err)
	}
	r3 := mustSigner(t, "r3")
	claimR3, _ := r3.Bind(certPEM, key) // r2's certificate, r3's name
	swapped := b
	swapped.PublicKey = claimR3.PublicKey
	opCert, opKeyPEM, _ := ca.Issue("r2", pki.KindClient, time.Hour)
	opKey, _ := ParseCertKey(opKeyPEM)
	byOperator, _ := r2.Bind(opCert, opKey)
	now := time.Now()
	for _, tc := range []struct {
		name  string
		b     Binding
		roots *x509.CertPool
		at    time.Time
		ok    bool
	}{
		{"valid", b, roots, now, true},
		{"other CA", b, otherRoots, now, false},
		{"certificate of another name", claimR3, roots, now, false},
		{"key swapped", swapped, roots, now, false},
		{"operator (client-only) certificate", byOperator, roots, now, false},
		{"expired within the clock skew", b, roots, now.Add(time.Hour + MaxClockSkew - time.Minute), true},
		{"expired beyond the clock skew", b, roots, now.Add(time.Hour + MaxClockSkew + time.Minute), false},
		{"not yet valid, within the clock skew", b, roots, now.Add(-MaxClockSkew + 30*time.Second), true},
		{"not yet valid, beyond the clock skew", b, roots, now.Add(-time.Minute - MaxClockSkew - time.Minute), false},
	} {
		pub, err := tc.b.Verify(tc.roots, tc.at)
		if tc.ok != (err == nil) {
			t.Errorf("%s: err = %v, want ok=%v", tc.name, err, tc.ok)
		}
		if tc.ok && !pub.Equal(r2.PublicKey()) {
			t.Errorf("%s: wrong key", tc.name)
		}
	}
}

// TestSignDigest: a report signature verifies for its own purpose only,
// and only over a SHA-256 digest.
func TestSignDigest(t *testing.T) {
	s := mustSigner(t, "r2")
	d := make([]byte, 32)
	d[0] = 1
	for _, p := range []Purpose{PurposeCreate, PurposeCountersign} {
		sig, err := s.SignDigest(p, d)
		if err != nil {
			t.Fatal(err)
		}
		if err := VerifyDigest(s.PublicKey(), p, d, sig); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		other := PurposeCreate + PurposeCountersign - p
		if err := VerifyDigest(s.PublicKey(), other, d, sig); err == nil {
			t.Errorf("a %s signature verifies as %s", p, other)
		}
		d2 := append([]byte(nil), d...)
		d2[31] ^= 1
		if err := VerifyDigest(s.PublicKey(), p, d2, sig); err == nil {
			t.Errorf("%s: verifies over another digest", p)
		}
	}
	if _, err := s.SignDigest(PurposeCreate, []byte("a whole report, not a digest")); err == nil {
		t.Error("signed something that is not a digest")
	}
	if _, err := s.SignDigest(Purpose(9), d); err == nil {
		t.Error("signed for an unknown purpose")
	}
}

// BenchmarkSign is the cost of signing one result (nonces in memory).
func BenchmarkSign(b *testing.B) {
	s := mustSigner(b, "r2")
	body := json.RawMessage(`{"data":{"in-discards":"0","in-errors":"0","in-octets":"420","in-pkts":"5","out-discards":"0","out-errors":"0","out-octets":"420","out-pkts":"5"}}`)
	for b.Loop() {
		r := Result{Caller: "r1", Tool: "network.yang.get", Body: body}
		if err := s.Sign(&r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerify is the cost of verifying one result.
func BenchmarkVerify(b *testing.B) {
	s := mustSigner(b, "r2")
	body := json.RawMessage(`{"data":{"in-discards":"0","in-errors":"0","in-octets":"420","in-pkts":"5","out-discards":"0","out-errors":"0","out-octets":"420","out-pkts":"5"}}`)
	rs := make([]Result, b.N)
	for i := range rs {
		rs[i] = Result{Caller: "r1", Tool: "network.yang.get", Body: body}
		if err := s.Sign(&rs[i]); err != nil {
			b.Fatal(err)
		}
	}
	v := NewVerifier()
	v.Trust("r2", s.PublicKey())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := v.Verify(rs[i], "r2", "r1"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSignPersisted is BenchmarkSign with nonces persisted in a
// file: one durable write per NonceBlock results.
func BenchmarkSignPersisted(b *testing.B) {
	s, err := OpenSigner(b.TempDir(), "r2")
	if err != nil {
		b.Fatal(err)
	}
	body := json.RawMessage(`{"data":{"in-pkts":"5","out-pkts":"5"}}`)
	for b.Loop() {
		r := Result{Caller: "r1", Tool: "network.yang.get", Body: body}
		if err := s.Sign(&r); err != nil {
			b.Fatal(err)
		}
	}
}
