package agent

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/controller/serve"
	"github.com/netmcp/netmcp/d2d/report"
	"github.com/netmcp/netmcp/d2d/sign"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/pki"
)

// caVerifier checks bindings against the domain's CA now, as `netmcp
// report verify` does.
func caVerifier(d *testDomain) report.BindingVerifier {
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(d.ca.CertPEM)
	return report.CAVerifier(roots, time.Now())
}

func cloneReport(r report.Report) report.Report {
	var c report.Report
	b, _ := json.Marshal(r)
	if err := json.Unmarshal(b, &c); err != nil {
		panic(err)
	}
	return c
}

// TestAttestSignsOnlyWhatItChecked: r1 writes a report naming r2 its
// creator and asks r2, over their D2D session, to attest it, with a
// genuine result r2 issued to r1. Whatever r1 sends, it gets no signature
// of r2 under which the report verifies as r2's.
func TestAttestSignsOnlyWhatItChecked(t *testing.T) {
	d := newDomain(t, domainOpts{})
	ctx := context.Background()
	r1 := d.agents["r1"]
	r1.Discover(ctx)
	res, err := r1.Call(ctx, "r2", netproto.ToolYangGet, map[string]any{"path": countersPath})
	if err != nil {
		t.Fatal(err)
	}
	p, err := r1.Connect(ctx, "r2")
	if err != nil {
		t.Fatal(err)
	}
	f := report.Finding{Rule: "egress-discards", Device: "r3", Interface: "GigabitEthernet0/0/0/0", Direction: "r3->r2",
		Cause: "egress-filter", Statement: "r3 discarded every packet toward r2", Evidence: []int{}}
	forged := report.Report{Version: report.Version, ID: "forged", URI: report.URIPrefix + "forged", Creator: "r2", Created: time.Now().UTC().Format(time.RFC3339Nano),
		Intent: pathIntent, Path: []string{"r1", "r2", "r3"}, Hypothesis: &f, Findings: []report.Finding{f}, Evidence: []sign.Result{},
		Participants: map[string]sign.Binding{"r2": p.Binding}}
	digest, err := forged.Digest()
	if err != nil {
		t.Fatal(err)
	}
	h, _ := resultHash(res)
	item := map[string]any{"nonce": res.Nonce, "hash": hex.EncodeToString(h[:])}
	for _, args := range []map[string]any{
		{"digest": hex.EncodeToString(digest), "evidence": []any{item}},
		{"report": forged},
		{"report": forged, "digest": hex.EncodeToString(digest), "evidence": []any{item}},
	} {
		out, err := p.Session().CallTool(ctx, &mcp.CallToolParams{Name: ToolAttest, Arguments: args})
		if err != nil || out.IsError {
			t.Logf("refused: %v %v", err, out)
			continue
		}
		var got struct{ Sig string }
		b, _ := json.Marshal(out.StructuredContent)
		json.Unmarshal(b, &got)
		withSig := cloneReport(forged)
		withSig.Signatures = map[string]string{"r2": got.Sig}
		if _, err := report.Verify(withSig, caVerifier(d)); err == nil {
			t.Fatalf("r1 obtained r2's signature as the creator of a report r1 wrote (asked with %v)", keysOf(args))
		}
	}
}

func keysOf(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// recordingWriter is a write session that remembers the mitigation each
// write belongs to, as the agent's CLI writer reads it to decide.
type recordingWriter struct {
	Writer
	mu   sync.Mutex
	seen []Mitigation
}

func (w *recordingWriter) CallTool(ctx context.Context, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	if m, ok := MitigationOf(ctx); ok {
		w.mu.Lock()
		w.seen = append(w.seen, m)
		w.mu.Unlock()
	}
	return w.Writer.CallTool(ctx, p)
}

// TestMitigateAppliesOnlyItsOwnFix: r1, the report's creator, rewrites
// the proposal for r2 (an edit that plants a VLAN and deletes an
// interface description, under the label "remove entry 10") and signs it
// again, countersigned by r2 and r3 (their results are untouched). r2
// applies nothing of it. With the genuine edit under a false label, r2
// applies its own fix and its write session is told of the change r2
// computed, not of the label.
func TestMitigateAppliesOnlyItsOwnFix(t *testing.T) {
	topo := withEgressACL("r2", "GigabitEthernet0/0/0/1")
	d := newDomain(t, domainOpts{topo: &topo, writer: true})
	ctx := context.Background()
	rep := askVerified(t, d, "r1")
	if len(rep.Proposals) != 1 {
		t.Fatalf("proposals %+v", rep.Proposals)
	}
	r1, r2 := d.agents["r1"], d.agents["r2"]
	rw := &recordingWriter{Writer: r2.cfg.Writer}
	r2.cfg.Writer = rw
	reseal := func(r *report.Report) {
		t.Helper()
		sigs, refused := r1.countersign(ctx, r)
		if len(refused) > 0 {
			t.Fatalf("countersignatures refused: %v", refused)
		}
		if err := r.Seal(r1.cfg.Signer, sigs); err != nil {
			t.Fatal(err)
		}
		verifyReport(t, d, *r)
	}
	vlans := func() string {
		res, err := r2.cfg.Local.CallTool(ctx, &mcp.CallToolParams{Name: netproto.ToolYangGet,
			Arguments: map[string]any{"path": "/openconfig-vlan:vlans", "datastore": "running"}})
		if err != nil {
			return err.Error() // none
		}
		b, _ := json.Marshal(res.StructuredContent)
		return string(b)
	}
	before := vlans()

	forged := cloneReport(rep)
	forged.Proposals[0].Edit = []report.EditOp{
		{Operation: "merge", Path: "/openconfig-vlan:vlans/vlan[vlan-id='99']", Value: json.RawMessage(`{"vlan-id":99}`)},
		{Operation: "delete", Path: "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/0']/config/description"},
	}
	reseal(&forged)
	res, err := r2.Mitigate(ctx, forged, "operator:alice")
	if err == nil || res.Committed {
		t.Errorf("a rewritten edit was applied: %+v %v", res, err)
	}
	if got := vlans(); got != before || strings.Contains(got, "99") {
		t.Errorf("VLANs changed: %s", got)
	}
	if got := aclEntries(t, d, "r2", "NO-ICMP-OUT"); len(got) != 2 {
		t.Fatalf("NO-ICMP-OUT changed: %v", got)
	}
	t.Logf("rewritten edit: %v", err)

	relabelled := cloneReport(rep)
	relabelled.Proposals[0].Summary = "tidy the description of GigabitEthernet0/0/0/1"
	relabelled.Proposals[0].Cause = "cosmetic"
	relabelled.Proposals[0].Diff = ""
	reseal(&relabelled)
	rw.seen = nil
	res, err = r2.Mitigate(ctx, relabelled, "operator:alice")
	if err != nil || !res.Confirmed {
		t.Fatalf("the genuine edit under another label: %+v %v", res, err)
	}
	if len(rw.seen) == 0 {
		t.Fatal("no write told of its mitigation")
	}
	for _, m := range rw.seen {
		if m.Device != "r2" || m.Proposal.Device != "r2" || m.Proposal.Cause != "egress-filter" ||
			!strings.Contains(m.Proposal.Summary, "NO-ICMP-OUT") || !strings.Contains(m.Proposal.Diff, "10 deny icmp") {
			t.Fatalf("the write session was told of %+v, not of the change r2 computed", m.Proposal)
		}
	}
	if got := aclEntries(t, d, "r2", "NO-ICMP-OUT"); len(got) != 1 || got[0] != 20 {
		t.Fatalf("NO-ICMP-OUT after: %v", got)
	}
}

// otherCert is another certificate of the CA for name (valid, not the
// one name's agent uses or advertises), DER, and its key.
func otherCert(t *testing.T, d *testDomain, name string) ([]byte, *ecdsa.PrivateKey) {
	t.Helper()
	c, k, err := d.ca.Issue(name, pki.KindServer, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(c, k)
	if err != nil {
		t.Fatal(err)
	}
	return pair.Certificate[0], pair.PrivateKey.(*ecdsa.PrivateKey)
}

// TestThumbprintSpoofWithoutKey: a peer presents another valid
// certificate of r2, without its private key, to r3 (as a caller) and to
// r1 (answering at r2's advertised port). Neither handshake completes,
// and neither agent holds it against r2.
func TestThumbprintSpoofWithoutKey(t *testing.T) {
	d := newDomain(t, domainOpts{callTimeout: 5 * time.Second})
	ctx := context.Background()
	der, _ := otherCert(t, d, "r2")
	wrongKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	spoof := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: wrongKey}

	// As a caller, to r3 (which heard r2's TLV).
	r3 := d.agents["r3"]
	r3.Discover(ctx)
	conn, err := tls.Dial("tcp", d.lns["r3"].Addr().String(), &tls.Config{MinVersion: tls.VersionTLS13, InsecureSkipVerify: true,
		Certificates: []tls.Certificate{spoof}})
	if err == nil {
		// TLS 1.3: the client's certificate is judged after the client's
		// handshake returns; a read shows the server's verdict.
		conn.SetReadDeadline(time.Now().Add(2 * time.Second))
		_, err = conn.Read(make([]byte, 1))
		conn.Close()
	}
	t.Logf("spoofing caller: %v", err)
	if why, bad := r3.Untrusted()["r2"]; bad {
		t.Errorf("r3 marked r2 untrusted after a handshake that proved no key: %s", why)
	}
	if _, err := r3.Call(ctx, "r2", netproto.ToolPing, map[string]any{"destination": "10.0.12.1", "count": 1, "intervalMs": 200}); err != nil {
		t.Errorf("r3 cannot call r2 any more: %v", err)
	}

	// As a callee, at the port r1 dials for r2.
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{spoof},
		ClientAuth: tls.RequestClientCert})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { c.(*tls.Conn).Handshake(); c.Close() }()
		}
	}()
	r1 := d.agents["r1"]
	ns, _ := d.disc["r1"].Neighbors(ctx)
	saved := append(ns[:0:0], ns...)
	for i := range ns {
		if ns[i].Name == "r2" {
			ns[i].Advert.Port = uint16(ln.Addr().(*net.TCPAddr).Port)
		}
	}
	d.disc["r1"].set(ns)
	r1.Discover(ctx)
	_, err = r1.Call(ctx, "r2", netproto.ToolPing, map[string]any{"destination": "10.0.12.2", "count": 1, "intervalMs": 200})
	t.Logf("spoofing callee: %v", err)
	if err == nil {
		t.Fatal("r1 accepted the spoofing callee")
	}
	if why, bad := r1.Untrusted()["r2"]; bad {
		t.Errorf("r1 marked r2 untrusted after a handshake that proved no key: %s", why)
	}
	d.disc["r1"].set(saved)
	r1.Discover(ctx)
	if _, err := r1.Call(ctx, "r2", netproto.ToolPing, map[string]any{"destination": "10.0.12.2", "count": 1, "intervalMs": 200}); err != nil {
		t.Errorf("r1 cannot call r2 any more: %v", err)
	}
}

// TestUntrustedMarkExpires: a caller that completes the handshake with
// another certificate of r2 (and its key) gets r2 marked untrusted by r3,
// for a while: the mark expires.
func TestUntrustedMarkExpires(t *testing.T) {
	d := newDomain(t, domainOpts{})
	ctx := context.Background()
	r3 := d.agents["r3"]
	r3.Discover(ctx)
	der, key := otherCert(t, d, "r2")
	cfg := &tls.Config{MinVersion: tls.VersionTLS13, InsecureSkipVerify: true, Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: 5 * time.Second}
	resp, err := hc.Post("https://"+d.lns["r3"].Addr().String()+"/mcp", "application/json",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Fatalf("r3 served a session to r2's other certificate")
		}
	}
	if _, bad := r3.Untrusted()["r2"]; !bad {
		t.Fatalf("a completed handshake with another certificate of r2 did not mark r2 (%v)", err)
	}
	later := time.Now().Add(6 * time.Minute)
	r3.cfg.Now = func() time.Time { return later }
	if why, bad := r3.Untrusted()["r2"]; bad {
		t.Fatalf("r2 still untrusted six minutes later: %s", why)
	}
}

// TestExpiredCertificateReport: r1's certificate expired an hour ago; its
// agent dates its report back to when it was valid. The controller
// refuses the report at receipt, and it does not verify now.
func TestExpiredCertificateReport(t *testing.T) {
	now := time.Now()
	d := newDomain(t, domainOpts{certWindow: map[string][2]time.Time{"r1": {now.Add(-3 * time.Hour), now.Add(-time.Hour)}}})
	r1 := d.agents["r1"]
	r1.cfg.Now = func() time.Time { return time.Now().Add(-90 * time.Minute) }
	rep, err := r1.Ask(context.Background(), pathIntent)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := report.Verify(rep, caVerifier(d)); err == nil {
		t.Error("a report signed with an expired certificate verifies now")
	}
	srv := serve.New(&controller.Controller{}, controller.Store{Dir: t.TempDir()}, "test")
	if err := srv.EnableD2D(d.ca.CertPEM); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, nil))
	defer hs.Close()
	pusher := &ReportPusher{Endpoint: hs.URL, Dir: t.TempDir()}
	if err := pusher.Enqueue(rep); err != nil {
		t.Fatal(err)
	}
	res, err := pusher.Flush(context.Background())
	t.Logf("push: %+v %v; now %s created %s", res, err, time.Now().UTC(), rep.Created)
	if ids, _ := srv.D2DReports(); len(ids) != 0 {
		t.Fatalf("the controller accepted a report signed with an expired certificate: %v", ids)
	}
}

// TestReportNeedsEveryParticipant: a report without one participant's
// countersignature does not verify; nor does one whose result of r2 was
// replaced by r2's result of the same call in an earlier run and signed
// again by the creator; r2 will not countersign that one either.
func TestReportNeedsEveryParticipant(t *testing.T) {
	d := newDomain(t, domainOpts{})
	ctx := context.Background()
	r1 := d.agents["r1"]
	first := askVerified(t, d, "r1")
	second := askVerified(t, d, "r1")

	noR2 := cloneReport(second)
	delete(noR2.Signatures, "r2")
	if _, err := report.Verify(noR2, caVerifier(d)); err == nil {
		t.Error("a report without r2's countersignature verifies")
	}

	replayed := cloneReport(second)
	swapped := false
	for i, e := range replayed.Evidence {
		if e.Signer != "r2" || e.Tool != netproto.ToolYangGet {
			continue
		}
		for _, old := range first.Evidence {
			if old.Signer == "r2" && old.Tool == e.Tool && string(old.Args) == string(e.Args) {
				replayed.Evidence[i], swapped = old, true
				break
			}
		}
		if swapped {
			break
		}
	}
	if !swapped {
		t.Fatal("no result of r2 to swap")
	}
	if err := replayed.Seal(r1.cfg.Signer, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := report.Verify(replayed, caVerifier(d)); err == nil {
		t.Error("a result of an earlier run, re-signed by the creator, verifies")
	}
	sigs, refused := r1.countersign(ctx, &replayed)
	if sigs["r2"] != "" {
		t.Error("r2 countersigned a report carrying its result of an earlier run")
	}
	t.Logf("r2: %s", refused["r2"])
}

// TestOperatorAuthoredReport: an operator's (client-only) certificate
// authors a report blaming r2 with a proposal for it. r2's agent does not
// take it as a device's report, nor does the controller.
func TestOperatorAuthoredReport(t *testing.T) {
	topo := withEgressACL("r2", "GigabitEthernet0/0/0/1")
	d := newDomain(t, domainOpts{topo: &topo, writer: true})
	ctx := context.Background()
	genuine := askVerified(t, d, "r1")
	certPEM, keyPEM, err := d.ca.Issue("alice", pki.KindClient, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ck, _ := sign.ParseCertKey(keyPEM)
	alice, _ := sign.NewEphemeralSigner("alice")
	b, err := alice.Bind(certPEM, ck)
	if err != nil {
		t.Fatal(err)
	}
	h := *genuine.Hypothesis
	h.Evidence = []int{}
	p := genuine.Proposals[0]
	p.Evidence = []int{}
	rep := report.Report{Version: report.Version, ID: "by-alice", URI: report.URIPrefix + "by-alice", Creator: "alice", Created: time.Now().UTC().Format(time.RFC3339Nano),
		Intent: pathIntent, Path: []string{"r1", "r2", "r3"}, Hypothesis: &h, Findings: []report.Finding{h}, Evidence: []sign.Result{},
		Participants: map[string]sign.Binding{"alice": b}, Proposals: []report.Proposal{p}}
	if err := rep.Seal(alice, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := report.Verify(rep, caVerifier(d)); err == nil {
		t.Error("a report authored with an operator certificate verifies")
	}
	op := d.operator("r2")
	out, err := op.CallTool(ctx, &mcp.CallToolParams{Name: ToolMitigate, Arguments: map[string]any{"report": rep, "consent": true}})
	if err != nil {
		t.Fatal(err)
	}
	if !out.IsError || !strings.Contains(textOf(out), "does not verify") {
		t.Errorf("r2 took an operator's report: %s", textOf(out))
	}
	if got := aclEntries(t, d, "r2", "NO-ICMP-OUT"); len(got) != 2 {
		t.Fatalf("NO-ICMP-OUT changed: %v", got)
	}
}

// TestParticipantWithoutCountersignature: r3 answers every call but
// offers no ietf-d2d-attest, so it cannot countersign. The report leaves
// r3 out: none of its results, not a participant, listed as untrusted;
// the findings that rested on its results are no longer established; and
// the report verifies, signed by every participant left.
func TestParticipantWithoutCountersignature(t *testing.T) {
	topo := withEgressACL("r2", "GigabitEthernet0/0/0/1")
	noAttest := []string{CapPing, CapTraceroute, CapCounters, CapYangRead, CapCapture, CapNeighbors}
	d := newDomain(t, domainOpts{topo: &topo, offer: map[string][]string{"r3": noAttest}})
	rep := askVerified0(t, d, "r1")
	if _, ok := rep.Participants["r3"]; ok || len(rep.Signatures) != 2 {
		t.Fatalf("participants %v, signatures %v", keysOfBindings(rep.Participants), rep.Signatures)
	}
	if why := rep.Untrusted["r3"]; !strings.Contains(why, "did not countersign") {
		t.Fatalf("r3 untrusted for %q", why)
	}
	for _, e := range rep.Evidence {
		if e.Signer == "r3" {
			t.Fatalf("a result of r3 left in the evidence: %s", e.Tool)
		}
	}
	var dropped bool
	for _, f := range rep.Findings {
		if f.Rule == "not-countersigned" {
			dropped = true
			if f.Cause != "not-measured" || !strings.Contains(f.Statement, "r3 did not countersign") {
				t.Errorf("finding %+v", f)
			}
		}
	}
	if !dropped {
		t.Errorf("no finding said it rested on r3's results: %s", findingsJSON(rep))
	}
	if h := rep.Hypothesis; h != nil {
		for _, p := range rep.Proposals {
			if p.Device != h.Device || p.Cause != h.Cause {
				t.Errorf("proposal %+v does not fit the hypothesis %+v", p, h)
			}
		}
	}
	t.Logf("r3: %s; hypothesis %+v", rep.Untrusted["r3"], rep.Hypothesis)
}

func keysOfBindings(m map[string]sign.Binding) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
