package agent

import (
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/agent/discover"
	"github.com/netmcp/netmcp/d2d/report"
	"github.com/netmcp/netmcp/d2d/sign"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/pki"
)

const countersPath = "/openconfig-interfaces:interfaces/interface[name=GigabitEthernet0/0/0/0]/state/counters"

// TestCalleeEnforces: the callee (r2) refuses what the session is not
// authorised for: a tool outside the intersection (r1 offers no
// traceroute), any write, a read-only tool that is not neighbour-callable,
// and a YANG read outside the counters when only counters are authorised.
func TestCalleeEnforces(t *testing.T) {
	d := newDomain(t, domainOpts{offer: map[string][]string{
		"r1": {CapPing, CapCounters, CapNeighbors},
		"r3": {CapPing, CapCounters, CapNeighbors},
	}})
	a := d.agents["r1"]
	ctx := context.Background()
	if _, err := a.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	p, err := a.Connect(ctx, "r2")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(p.Authorised, ",") != "ietf-d2d-neighbors,ietf-interface-counters,ietf-ping" {
		t.Fatalf("authorised %v", p.Authorised)
	}
	tl, err := p.Session().ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, tool := range tl.Tools {
		listed = append(listed, tool.Name)
	}
	if strings.Join(listed, ",") != "d2d.neighbors,network.yang.get,ping" {
		t.Fatalf("tools listed to r1: %v", listed)
	}
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		refused    bool
	}{
		{"counters", netproto.ToolYangGet, map[string]any{"path": countersPath}, false},
		{"ping", netproto.ToolPing, map[string]any{"destination": "10.0.12.1", "count": 1, "intervalMs": 200}, false},
		{"outside the intersection", netproto.ToolTraceroute, map[string]any{"destination": "10.0.12.1"}, true},
		{"a write: yang edit", netproto.ToolYangEdit, map[string]any{"edits": []any{}}, true},
		{"a write: cli configure", netproto.ToolCLIConfigure, map[string]any{"commands": []string{"shutdown"}}, true},
		{"a write: commit", netproto.ToolCommit, map[string]any{}, true},
		{"not neighbour-callable: cli exec", netproto.ToolCLIExec, map[string]any{"cmd": "show version"}, true},
		{"yang read outside counters", netproto.ToolYangGet, map[string]any{"path": "/openconfig-system:system"}, true},
		{"candidate datastore", netproto.ToolYangGet, map[string]any{"path": countersPath, "datastore": "candidate"}, true},
	} {
		res, err := p.Session().CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if !tc.refused {
			if err != nil || res.IsError {
				t.Errorf("%s: %v %v", tc.name, err, res)
				continue
			}
			if _, err := a.checkResult(res, "r2", tc.tool, tc.args); err != nil {
				t.Errorf("%s: signed result refused: %v", tc.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "Network.AccessDenied") {
			t.Errorf("%s: not refused: %v %v", tc.name, err, res)
		}
	}
}

// TestReplayedResult: a genuine result of r2 presented twice is refused
// the second time, as is one made for another call.
func TestReplayedResult(t *testing.T) {
	d := newDomain(t, domainOpts{})
	a := d.agents["r1"]
	ctx := context.Background()
	a.Discover(ctx)
	p, err := a.Connect(ctx, "r2")
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"path": countersPath}
	res, err := p.Session().CallTool(ctx, &mcp.CallToolParams{Name: netproto.ToolYangGet, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.checkResult(res, "r2", netproto.ToolYangGet, args); err != nil {
		t.Fatal(err)
	}
	var se *sign.Error
	if _, err := a.checkResult(res, "r2", netproto.ToolYangGet, args); !errors.As(err, &se) || se.Reason != sign.ReasonReplayed {
		t.Fatalf("replay: %v", err)
	}
	res2, _ := p.Session().CallTool(ctx, &mcp.CallToolParams{Name: netproto.ToolYangGet, Arguments: args})
	other := map[string]any{"path": countersPath + "/in-pkts"}
	if _, err := a.checkResult(res2, "r2", netproto.ToolYangGet, other); !errors.As(err, &se) || se.Reason != sign.ReasonIdentity {
		t.Fatalf("result for another call: %v", err)
	}
	if _, err := a.checkResult(res2, "r3", netproto.ToolYangGet, args); !errors.As(err, &se) || se.Reason != sign.ReasonIdentity {
		t.Fatalf("r2's result presented as r3's: %v", err)
	}
}

// TestWrongThumbprint: a neighbour whose certificate is not the one its
// TLV advertised is refused in the TLS handshake, both ways, and marked
// untrusted.
func TestWrongThumbprint(t *testing.T) {
	d := newDomain(t, domainOpts{})
	ctx := context.Background()
	// r1 hears, for r2, a TLV with another certificate's thumbprint.
	r1 := d.agents["r1"]
	ns, _ := d.disc["r1"].Neighbors(ctx)
	for i := range ns {
		if ns[i].Name == "r2" {
			ns[i].Advert.Thumbprint[0] ^= 0xff
		}
	}
	d.disc["r1"].set(ns)
	r1.Discover(ctx)
	_, err := r1.Call(ctx, "r2", netproto.ToolPing, map[string]any{"destination": "10.0.12.1"})
	var te *ThumbprintError
	if !errors.As(err, &te) {
		t.Fatalf("caller side: %v", err)
	}
	if _, bad := r1.Untrusted()["r2"]; !bad {
		t.Fatal("r2 not marked untrusted")
	}
	// r3 hears r2 with a wrong thumbprint: r2's calls to r3 are refused by r3.
	ns3, _ := d.disc["r3"].Neighbors(ctx)
	for i := range ns3 {
		if ns3[i].Name == "r2" {
			ns3[i].Advert.Thumbprint[0] ^= 0xff
		}
	}
	d.disc["r3"].set(ns3)
	d.agents["r3"].Discover(ctx)
	d.agents["r2"].Discover(ctx)
	if _, err := d.agents["r2"].Call(ctx, "r3", netproto.ToolPing, map[string]any{"destination": "10.0.23.1"}); err == nil {
		t.Fatal("callee side: r3 accepted r2")
	}
	if _, bad := d.agents["r3"].Untrusted()["r2"]; !bad {
		t.Fatal("r3 did not mark r2 untrusted")
	}
}

// TestNotAnAgent: a device certificate that states no D2D offer at
// initialize is refused; so is a certificate of another CA.
func TestNotAnAgent(t *testing.T) {
	d := newDomain(t, domainOpts{})
	certPEM, keyPEM, _ := d.ca.Issue("r9", pki.KindServer, time.Hour)
	cfg, _ := pki.ClientTLSConfig(d.ca.CertPEM, certPEM, keyPEM, "r2")
	_, err := mcp.NewClient(&mcp.Implementation{Name: "x", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: "https://" + d.lns["r2"].Addr().String() + "/mcp", HTTPClient: httpClient(cfg), MaxRetries: -1}, nil)
	if err == nil || !strings.Contains(err.Error(), "not a D2D agent") {
		t.Fatalf("no offer: %v", err)
	}
	other, _ := pki.NewCA("other")
	c2, k2, _ := other.Issue("r1", pki.KindServer, time.Hour)
	cfg2, _ := pki.ClientTLSConfig(d.ca.CertPEM, c2, k2, "r2")
	_, err = mcp.NewClient(&mcp.Implementation{Name: "x", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: "https://" + d.lns["r2"].Addr().String() + "/mcp", HTTPClient: httpClient(cfg2), MaxRetries: -1}, nil)
	if err == nil {
		t.Fatal("certificate of another CA accepted")
	}
}

// TestTamperedReport: every alteration of a sealed report is caught.
func TestTamperedReport(t *testing.T) {
	topo := withEgressACL("r2", "GigabitEthernet0/0/0/1")
	d := newDomain(t, domainOpts{topo: &topo})
	rep := askVerified(t, d, "r1")
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(d.ca.CertPEM)
	bv := func(b sign.Binding) (ed25519.PublicKey, error) { return b.Verify(roots, time.Now()) }
	clone := func() report.Report {
		var c report.Report
		b, _ := json.Marshal(rep)
		json.Unmarshal(b, &c)
		return c
	}
	other, _ := pki.NewCA("other")
	oc, ok, _ := other.Issue("r2", pki.KindServer, time.Hour)
	okey, _ := sign.ParseCertKey(ok)
	impostor, _ := sign.NewEphemeralSigner("r2")
	fakeBinding, _ := impostor.Bind(oc, okey)
	for _, tc := range []struct {
		name   string
		mutate func(r *report.Report)
	}{
		{"hypothesis changed", func(r *report.Report) { r.Hypothesis.Device = "r3" }},
		{"finding dropped", func(r *report.Report) { r.Findings = r.Findings[:0] }},
		{"evidence body changed", func(r *report.Report) {
			for i := range r.Evidence {
				if r.Evidence[i].Signer == "r2" {
					r.Evidence[i].Body = json.RawMessage(`{"data":{}}`)
					break
				}
			}
		}},
		{"evidence duplicated (replayed nonce)", func(r *report.Report) { r.Evidence = append(r.Evidence, r.Evidence[1]) }},
		{"creator signature removed", func(r *report.Report) { delete(r.Signatures, "r1") }},
		{"r2's countersignature replaced by r3's", func(r *report.Report) { r.Signatures["r2"] = r.Signatures["r3"] }},
		{"a countersignature by a non-participant", func(r *report.Report) { r.Signatures["r9"] = r.Signatures["r3"] }},
		{"participant certificate of another CA", func(r *report.Report) { r.Participants["r2"] = fakeBinding }},
		{"participant dropped", func(r *report.Report) { delete(r.Participants, "r3") }},
	} {
		r := clone()
		func() {
			defer func() { recover() }()
			tc.mutate(&r)
		}()
		if _, err := report.Verify(r, bv); err == nil {
			t.Errorf("%s: verified", tc.name)
		}
	}
	if _, err := report.Verify(clone(), bv); err != nil {
		t.Fatalf("the untouched report: %v", err)
	}
}

// TestAttestRefused: a participant refuses to countersign a report that
// carries, under its name, a result it did not issue to the caller.
func TestAttestRefused(t *testing.T) {
	d := newDomain(t, domainOpts{})
	ctx := context.Background()
	a := d.agents["r1"]
	a.Discover(ctx)
	r, err := a.Call(ctx, "r2", netproto.ToolYangGet, map[string]any{"path": countersPath})
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := a.bindingOf("r2")
	rep := report.Report{Version: report.Version, ID: "attest", Creator: "r1", Evidence: []sign.Result{r},
		Participants: map[string]sign.Binding{"r1": a.binding, "r2": b2}}
	if sigs, refused := a.countersign(ctx, &rep); sigs["r2"] == "" {
		t.Fatalf("a genuine result was not countersigned: %v", refused)
	}
	forged := r
	forged.Body = json.RawMessage(`{"data":{"out-pkts":"0"}}`)
	rep.Evidence = []sign.Result{forged}
	sigs, refused := a.countersign(ctx, &rep)
	if sigs["r2"] != "" {
		t.Fatal("r2 countersigned a result it never issued")
	}
	t.Logf("r2: %s", refused["r2"])
	// Another report carrying r2's genuine result: refused too, the
	// result being vouched for in the first.
	rep.ID, rep.Evidence = "attest-again", []sign.Result{r}
	if sigs, _ := a.countersign(ctx, &rep); sigs["r2"] != "" {
		t.Fatal("r2 countersigned its result in a second report")
	}
}

// TestNeighbourTimesOut: r3 accepts connections and never answers. The run
// completes within the call timeout, r3 is marked untrusted, the r2-r3
// link is reported as not measured, and the report still verifies.
func TestNeighbourTimesOut(t *testing.T) {
	d := newDomain(t, domainOpts{callTimeout: 3 * time.Second})
	addr := d.lns["r3"].Addr().String()
	d.cancel["r3"]()
	time.Sleep(100 * time.Millisecond) // the listener closes
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ {
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
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
			defer c.Close() // held open, never answered
		}
	}()
	rep := askVerified0(t, d, "r1")
	if _, bad := rep.Untrusted["r3"]; !bad {
		t.Fatalf("r3 not untrusted: %v", rep.Untrusted)
	}
	var notMeasured bool
	for _, f := range rep.Findings {
		if f.Cause == "not-measured" && strings.Contains(f.Direction, "r3") {
			notMeasured = true
		}
		if f.Cause != "not-measured" {
			t.Errorf("a fault invented: %+v", f)
		}
	}
	if !notMeasured {
		t.Fatalf("findings %s", findingsJSON(rep))
	}
}

// askVerified0 is askVerified without requiring a hypothesis.
func askVerified0(t *testing.T, d *testDomain, from string) report.Report {
	t.Helper()
	r, err := d.agents[from].Ask(context.Background(), pathIntent)
	if err != nil {
		t.Fatal(err)
	}
	verifyReport(t, d, r)
	return r
}

// TestOperatorAsk: an operator's session runs d2d.ask and reads the report
// resource; it cannot reach the neighbour tools, and a neighbour cannot
// call d2d.ask.
func TestOperatorAsk(t *testing.T) {
	d := newDomain(t, domainOpts{})
	ctx := context.Background()
	op := d.operator("r1")
	res, err := op.CallTool(ctx, &mcp.CallToolParams{Name: ToolAsk, Arguments: map[string]any{"intent": pathIntent}})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	var rep report.Report
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &rep)
	verifyReport(t, d, rep)
	rr, err := op.ReadResource(ctx, &mcp.ReadResourceParams{URI: rep.URI})
	if err != nil {
		t.Fatal(err)
	}
	var again report.Report
	json.Unmarshal([]byte(rr.Contents[0].Text), &again)
	if again.ID != rep.ID || !strings.HasPrefix(rep.URI, "urn:ietf:params:xml:ns:yang:ietf-mcp/report/") {
		t.Fatalf("resource %s", rep.URI)
	}
	lr, err := op.ListResources(ctx, nil)
	if err != nil || len(lr.Resources) != 1 || lr.Resources[0].URI != rep.URI {
		t.Fatalf("resources %v %v", lr, err)
	}
	if _, err := op.CallTool(ctx, &mcp.CallToolParams{Name: netproto.ToolPing, Arguments: map[string]any{"destination": "10.0.12.2"}}); err == nil {
		t.Fatal("operator reached a neighbour tool")
	}
	if _, err := op.CallTool(ctx, &mcp.CallToolParams{Name: ToolRevoke, Arguments: map[string]any{"peer": "r3"}}); err != nil {
		t.Fatal(err)
	}
	if why := d.agents["r1"].Untrusted()["r3"]; !strings.Contains(why, "revoked: by operator alice") {
		t.Fatalf("r3 after d2d.revoke: %q", why)
	}
	a := d.agents["r2"]
	a.Discover(ctx)
	p, err := a.Connect(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Session().CallTool(ctx, &mcp.CallToolParams{Name: ToolAsk, Arguments: map[string]any{"intent": pathIntent}}); err == nil {
		t.Fatal("a neighbour ran d2d.ask")
	}
}

var _ = discover.Static{}

// TestNeighbourRestarts: r2's agent restarts (its sessions are gone); r1's
// next call reopens a session, renegotiates and succeeds, and r2 is not
// marked untrusted.
func TestNeighbourRestarts(t *testing.T) {
	d := newDomain(t, domainOpts{})
	ctx := context.Background()
	a := d.agents["r1"]
	a.Discover(ctx)
	args := map[string]any{"path": countersPath}
	if _, err := a.Call(ctx, "r2", netproto.ToolYangGet, args); err != nil {
		t.Fatal(err)
	}
	before, _ := a.Connect(ctx, "r2")
	addr := d.lns["r2"].Addr().String()
	d.cancel["r2"]()
	var err error
	for i := 0; i < 50; i++ {
		if d.lns["r2"], err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	d.serve("r2")
	if _, err := a.Call(ctx, "r2", netproto.ToolYangGet, args); err != nil {
		t.Fatalf("after r2's restart: %v", err)
	}
	if why, bad := a.Untrusted()["r2"]; bad {
		t.Fatalf("r2 untrusted: %s", why)
	}
	if after, _ := a.Connect(ctx, "r2"); after == before {
		t.Fatal("the lost session was not replaced")
	}
}

// TestNeighbourKilledMidRun: r3's agent dies while r1's probes run. The run
// completes, the report names r3 as unreachable, its directions are not
// measured (no fault is invented), and the report verifies.
func TestNeighbourKilledMidRun(t *testing.T) {
	d := newDomain(t, domainOpts{callTimeout: 5 * time.Second})
	a := d.agents["r1"]
	var once sync.Once
	a.onCall = func(peer, tool string) {
		if peer == "r3" && tool == netproto.ToolPing {
			once.Do(func() { go d.cancel["r3"]() })
		}
	}
	rep := askVerified0(t, d, "r1")
	if why := rep.Untrusted["r3"]; why == "" {
		t.Fatalf("r3 not reported: %v; findings %s", rep.Untrusted, findingsJSON(rep))
	}
	var measuredR3 bool
	for _, f := range rep.Findings {
		if f.Cause != "not-measured" {
			t.Errorf("a fault invented: %+v", f)
		}
		if strings.Contains(f.Direction, "r3") {
			measuredR3 = true
		}
	}
	if !measuredR3 {
		t.Fatalf("r3's directions not reported as not measured: %s", findingsJSON(rep))
	}
	t.Logf("r3: %s", rep.Untrusted["r3"])
}

// TestRequestBodyBounded: a request body above MaxRequestBytes is refused
// before it is buffered, even from an authenticated operator, and the
// agent goes on serving.
func TestRequestBodyBounded(t *testing.T) {
	d := newDomain(t, domainOpts{})
	op := d.operator("r1") // the session works before
	certPEM, keyPEM, err := d.ca.Issue("alice", pki.KindClient, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := pki.ClientTLSConfig(d.ca.CertPEM, certPEM, keyPEM, "r1")
	if err != nil {
		t.Fatal(err)
	}
	// An initialize, which the agent answers whatever else it carries.
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"experimental":{"pad":{"x":"` +
		strings.Repeat("x", MaxRequestBytes) + `"}}},"clientInfo":{"name":"pad","version":"1"}}}`
	req, _ := http.NewRequest(http.MethodPost, "https://"+d.lns["r1"].Addr().String()+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := httpClient(cfg).Do(req)
	if err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("a %d-byte body: %s, want 413", len(body), resp.Status)
		}
	}
	if _, err := op.ListTools(context.Background(), nil); err != nil {
		t.Fatalf("the agent stopped serving after an oversize body: %v", err)
	}
}
