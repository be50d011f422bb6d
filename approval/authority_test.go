package approval

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/netproto"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

var t0 = time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)

func newAuthority(t *testing.T, modes map[string]Mode) (*Authority, *fakeClock, ed25519.PrivateKey) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	clk := &fakeClock{t: t0}
	g := New(Options{Modes: modes, TrustedKeys: map[string]ed25519.PublicKey{"alice-key": pub}, Now: clk.now})
	return g, clk, priv
}

func commitReq(session, args string) Request {
	return Request{Session: session, Tool: netproto.ToolCommit, Arguments: json.RawMessage(args), Write: true, RollbackWindow: 120, Device: "r1"}
}

// wantDenied asserts err is an -32083 refusal whose detail contains substr.
func wantDenied(t *testing.T, err error, substr string) {
	t.Helper()
	var ne *netproto.Error
	if !errors.As(err, &ne) || ne.Code != netproto.CodeAccessDenied {
		t.Fatalf("err = %v, want Network.AccessDenied", err)
	}
	if !strings.Contains(ne.Detail, substr) {
		t.Fatalf("detail %q does not contain %q", ne.Detail, substr)
	}
}

func TestModes(t *testing.T) {
	g, _, _ := newAuthority(t, map[string]Mode{"ping": Always, netproto.ToolRollback: Never})
	tests := []struct {
		tool  string
		write bool
		want  bool
	}{
		{"ping", false, true},                // always
		{netproto.ToolRollback, true, false}, // never
		{netproto.ToolCommit, true, true},    // default: writes
		{netproto.ToolCLIExec, false, false}, // default: reads pass
		{netproto.ToolYangEdit, true, true},
	}
	for _, tt := range tests {
		if got := g.Needs(tt.tool, tt.write); got != tt.want {
			t.Errorf("Needs(%s, write=%v) = %v, want %v", tt.tool, tt.write, got, tt.want)
		}
	}
	d, err := g.Approve(context.Background(), Request{Tool: netproto.ToolCLIExec, Arguments: json.RawMessage(`{"cmd":"show version"}`)}, Evidence{})
	if err != nil || d.Method != "not-required" {
		t.Fatalf("read call: %v %v", d, err)
	}
	if _, err := ParseMode("sometimes"); err == nil {
		t.Fatal("ParseMode accepted an unknown mode")
	}
}

func TestTokenTwoPhase(t *testing.T) {
	ctx := context.Background()
	g, clk, _ := newAuthority(t, nil)
	args := `{"confirmed":120}`
	_, err := g.Approve(ctx, commitReq("s1", args), Evidence{})
	var ar *ApprovalRequired
	if !errors.As(err, &ar) || ar.Token == "" || ar.RollbackWindow != 120 {
		t.Fatalf("first call: err = %v, want ApprovalRequired with a token", err)
	}
	// The token travels inside the arguments; it does not change the hash.
	withTok := `{"confirmed":120,"approvalToken":"` + ar.Token + `"}`
	ev, err := EvidenceFromArguments(json.RawMessage(withTok))
	if err != nil || ev.Token != ar.Token {
		t.Fatalf("EvidenceFromArguments = %+v, %v", ev, err)
	}

	cases := []struct {
		name string
		req  Request
		want string // "" = approved
	}{
		{"other arguments", commitReq("s1", `{"confirmed":600}`), "other arguments"},
		{"other session", commitReq("s2", args), "another session"},
		{"other tool", Request{Session: "s1", Tool: netproto.ToolRollback, Arguments: json.RawMessage(args), Write: true}, "issued for network.commit"},
		{"right call", commitReq("s1", withTok), ""},
		{"replayed", commitReq("s1", withTok), "already used"},
	}
	for _, c := range cases {
		d, err := g.Approve(ctx, c.req, ev)
		if c.want == "" {
			if err != nil || d.Method != "token" {
				t.Fatalf("%s: %v %v", c.name, d, err)
			}
			continue
		}
		wantDenied(t, err, c.want)
	}

	// Expiry.
	_, err = g.Approve(ctx, commitReq("s1", args), Evidence{})
	errors.As(err, &ar)
	clk.t = clk.t.Add(3 * time.Minute)
	_, err = g.Approve(ctx, commitReq("s1", args), Evidence{Token: ar.Token})
	wantDenied(t, err, "expired")
}

type fakeElicitor struct {
	action  string
	content map[string]any
	err     error
	message string
}

func (f *fakeElicitor) Elicit(_ context.Context, msg string, schema map[string]any) (string, map[string]any, error) {
	f.message = msg
	if schema["type"] != "object" {
		panic("schema must be an object")
	}
	return f.action, f.content, f.err
}

func TestElicitation(t *testing.T) {
	g, _, _ := newAuthority(t, nil)
	req := commitReq("s1", `{"confirmed":120}`)
	req.Summary = "+ interface Loopback100"
	tests := []struct {
		name string
		e    *fakeElicitor
		want string
	}{
		{"accept", &fakeElicitor{action: "accept", content: map[string]any{"approve": true}}, ""},
		{"accept without approve", &fakeElicitor{action: "accept", content: map[string]any{"approve": false}}, "approve=true"},
		{"decline", &fakeElicitor{action: "decline"}, "declined"},
		{"cancel", &fakeElicitor{action: "cancel"}, "cancelled"},
		{"error", &fakeElicitor{err: errors.New("client went away")}, "elicitation failed"},
	}
	for _, tt := range tests {
		d, err := g.Approve(context.Background(), req, Evidence{Elicitor: tt.e})
		if tt.want == "" {
			if err != nil || d.Method != "elicitation" {
				t.Fatalf("%s: %v %v", tt.name, d, err)
			}
		} else {
			wantDenied(t, err, tt.want)
		}
		for _, s := range []string{"network.commit", `"confirmed": 120`, "+ interface Loopback100", "Rollback window: 120 s"} {
			if !strings.Contains(tt.e.message, s) {
				t.Errorf("%s: message lacks %q:\n%s", tt.name, s, tt.e.message)
			}
		}
	}
}

func TestSignedConsent(t *testing.T) {
	ctx := context.Background()
	_, otherKey, _ := ed25519.GenerateKey(nil)
	base := Consent{Tool: netproto.ToolCommit, Parameters: json.RawMessage(`{"confirmed":120}`),
		ImpactWindow: 300, User: "alice", Role: "admin", Timestamp: t0.Add(-time.Minute), Nonce: "n-1",
		Device: "r1", Expires: t0.Add(3 * time.Minute)}

	tests := []struct {
		name   string
		mutate func(c *Consent)
		signer string // "obj", "jwt", "other-key", "tamper"
		want   string
	}{
		{"valid object", nil, "obj", ""},
		{"valid JWT", func(c *Consent) { c.Nonce = "n-2" }, "jwt", ""},
		{"replayed nonce", nil, "obj", "replay"},
		{"untrusted key", func(c *Consent) { c.Nonce = "n-3" }, "other-key", "does not verify"},
		{"tampered parameters", func(c *Consent) { c.Nonce = "n-4" }, "tamper", "does not verify"},
		{"wrong tool", func(c *Consent) { c.Nonce = "n-5"; c.Tool = netproto.ToolRollback }, "obj", "consent is for network.rollback"},
		{"too old", func(c *Consent) { c.Nonce = "n-6"; c.Timestamp = t0.Add(-time.Hour) }, "obj", "older than"},
		{"future", func(c *Consent) { c.Nonce = "n-7"; c.Timestamp = t0.Add(time.Hour) }, "obj", "in the future"},
		{"window too small", func(c *Consent) { c.Nonce = "n-8"; c.ImpactWindow = 60 }, "obj", "impact window of 60"},
		{"other parameters", func(c *Consent) { c.Nonce = "n-9"; c.Parameters = json.RawMessage(`{"confirmed":30}`) }, "obj", "differ"},
		{"no nonce", func(c *Consent) { c.Nonce = "" }, "obj", "no nonce"},
		{"other device", func(c *Consent) { c.Nonce = "n-10"; c.Device = "r2" }, "obj", `consent is for device "r2"`},
		{"other device, JWT", func(c *Consent) { c.Nonce = "n-11"; c.Device = "r2" }, "jwt", `consent is for device "r2"`},
		{"no device", func(c *Consent) { c.Nonce = "n-12"; c.Device = "" }, "obj", "names no device"},
		{"no expiry", func(c *Consent) { c.Nonce = "n-13"; c.Expires = time.Time{} }, "obj", "no expiry"},
		{"expired", func(c *Consent) { c.Nonce = "n-14"; c.Expires = t0.Add(-time.Second) }, "obj", "expired at"},
		{"expired JWT", func(c *Consent) { c.Nonce = "n-15"; c.Expires = t0.Add(-time.Second) }, "jwt", "expired"},
		{"certificate identity", func(c *Consent) { c.Nonce = "n-16"; c.Device = "r1.lab.example" }, "obj", ""},
	}
	g, _, priv := newAuthority(t, nil)
	g.opts.DeviceIDs = []string{"r1.lab.example"}
	for _, tt := range tests {
		c := base
		if tt.mutate != nil {
			tt.mutate(&c)
		}
		var raw json.RawMessage
		var err error
		switch tt.signer {
		case "obj":
			raw, err = c.Sign("alice-key", priv)
		case "jwt":
			var s string
			s, err = c.SignJWT("alice-key", priv)
			raw, _ = json.Marshal(s)
		case "other-key":
			raw, err = c.Sign("alice-key", otherKey)
		case "tamper":
			raw, err = c.Sign("alice-key", priv)
			raw = json.RawMessage(strings.Replace(string(raw), `"confirmed":120`, `"confirmed":9999`, 1))
		}
		if err != nil {
			t.Fatal(err)
		}
		req := commitReq("s1", `{"confirmed":120,"consent":`+string(raw)+`}`)
		ev, err := EvidenceFromArguments(req.Arguments)
		if err != nil {
			t.Fatal(err)
		}
		d, err := g.Approve(ctx, req, ev)
		if tt.want == "" {
			if err != nil || d.Method != "consent" || d.Approver != "alice" {
				t.Fatalf("%s: %v %v", tt.name, d, err)
			}
			continue
		}
		wantDenied(t, err, tt.want)
	}
}

func TestArgumentsHashIgnoresOrderAndEvidence(t *testing.T) {
	a, _ := ArgumentsHash(json.RawMessage(`{"b":1,"a":{"y":2,"x":1}}`))
	b, _ := ArgumentsHash(json.RawMessage(`{"a":{"x":1,"y":2},"b":1,"approvalToken":"apv_x","consent":null}`))
	c, _ := ArgumentsHash(json.RawMessage(`{"a":{"x":1,"y":3},"b":1}`))
	if a != b || a == c {
		t.Fatalf("hashes: %s %s %s", a, b, c)
	}
	if _, err := ArgumentsHash(json.RawMessage(`{"a":`)); err == nil {
		t.Fatal("broken JSON hashed")
	}
}

// A token is bound to Request.Binding (a commit's candidate): redeemed for
// another binding it is refused and spent.
func TestTokenBoundToBinding(t *testing.T) {
	ctx := context.Background()
	g, _, _ := newAuthority(t, nil)
	req := commitReq("s1", `{}`)
	req.Binding = "candidate-A"
	_, err := g.Approve(ctx, req, Evidence{})
	var ar *ApprovalRequired
	if !errors.As(err, &ar) {
		t.Fatalf("first call: %v", err)
	}
	req.Binding = "candidate-A+B"
	_, err = g.Approve(ctx, req, Evidence{Token: ar.Token})
	wantDenied(t, err, "candidate changed since this approval was given")
	req.Binding = "candidate-A"
	_, err = g.Approve(ctx, req, Evidence{Token: ar.Token})
	wantDenied(t, err, "unknown or was already used")
}

// Used consent nonces are kept in the state directory: the same consent is
// refused by another gate on the directory, open before the consent was
// used (another server process), and by a new gate (a restart); an
// unreadable nonce file refuses every consent rather than risk a replay.
func TestConsentNoncesSurviveRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	pub, priv, _ := ed25519.GenerateKey(nil)
	clk := &fakeClock{t: t0}
	opts := Options{TrustedKeys: map[string]ed25519.PublicKey{"alice-key": pub}, Now: clk.now, StateDir: dir}
	c := Consent{Tool: netproto.ToolCommit, Parameters: json.RawMessage(`{}`), User: "alice", Timestamp: t0,
		Nonce: "once", Device: "r1", Expires: t0.Add(4 * time.Minute)}
	raw, err := c.Sign("alice-key", priv)
	if err != nil {
		t.Fatal(err)
	}
	req := commitReq("s1", `{}`)
	req.RollbackWindow = 0
	g, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	other, err := Open(opts) // another process on the same directory
	if err != nil {
		t.Fatal(err)
	}
	if d, err := g.Approve(ctx, req, Evidence{Consent: raw}); err != nil || d.Method != "consent" {
		t.Fatalf("first use: %v %v", d, err)
	}
	_, err = other.Approve(ctx, req, Evidence{Consent: raw})
	wantDenied(t, err, "already used (replay)")
	g2, err := Open(opts) // the restarted server
	if err != nil {
		t.Fatal(err)
	}
	_, err = g2.Approve(ctx, req, Evidence{Consent: raw})
	wantDenied(t, err, "already used (replay)")

	// Pruned once the consent could not be accepted anyway.
	clk.t = t0.Add(time.Hour)
	if _, err := Open(opts); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, NonceFile))
	if strings.Contains(string(b), "alice-key/once") {
		t.Fatalf("expired nonce kept: %s", b)
	}

	if err := os.WriteFile(filepath.Join(dir, NonceFile), []byte("{broken"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(opts); err == nil {
		t.Fatal("Open accepted an unreadable nonce file")
	}
	clk.t = t0
	_, err = New(opts).Approve(ctx, req, Evidence{Consent: raw})
	wantDenied(t, err, "cannot be read from the state directory")
}

// Pending tokens are pooled per identity: a caller over its cap loses its
// own oldest token, and a full gate refuses new tokens instead of evicting
// anyone's.
func TestTokenPoolPerIdentity(t *testing.T) {
	ctx := context.Background()
	g := New(Options{MaxPending: 6, MaxPendingPerIdentity: 3})
	ask := func(user string, n int) (string, error) {
		req := commitReq("s-"+user, fmt.Sprintf(`{"comment":"%d"}`, n))
		req.User = user
		_, err := g.Approve(ctx, req, Evidence{})
		var ar *ApprovalRequired
		if errors.As(err, &ar) {
			return ar.Token, nil
		}
		return "", err
	}
	admin, err := ask("admin", 0)
	if err != nil {
		t.Fatal(err)
	}
	var first string
	for i := 0; i < 10; i++ {
		tok, err := ask("flood", i)
		if err != nil {
			t.Fatalf("flood %d: %v", i, err)
		}
		if i == 0 {
			first = tok
		}
	}
	redeem := func(user, tok string, n int) error {
		req := commitReq("s-"+user, fmt.Sprintf(`{"comment":"%d"}`, n))
		req.User = user
		_, err := g.Approve(ctx, req, Evidence{Token: tok})
		return err
	}
	if err := redeem("flood", first, 0); err == nil {
		t.Fatal("the flooder's oldest token survived its own cap")
	}
	if err := redeem("admin", admin, 0); err != nil {
		t.Fatalf("admin's token was evicted by another identity: %v", err)
	}
	// Fill the gate with other identities: the next token is refused.
	for _, u := range []string{"a", "b"} {
		for i := 0; i < 3; i++ {
			if _, err := ask(u, i); err != nil && u == "a" {
				t.Fatal(err)
			}
		}
	}
	_, err = ask("late", 0)
	wantDenied(t, err, "approvals are pending on this server")
}
