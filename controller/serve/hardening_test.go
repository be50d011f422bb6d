package serve_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/controller/serve"
	"github.com/netmcp/netmcp/d2d/report"
	"github.com/netmcp/netmcp/lab/labtest"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/pki"
	"github.com/netmcp/netmcp/policy"
)

// hardeningPolicy is the controller's policy of the tests below: the NOC
// host reads and asks on site a (r1, r2) without the secrets scope; the
// ops host is an admin everywhere.
const hardeningPolicy = `
roles:
  noc:
    - tool:network.yang.get
    - tool:network.cli.exec
    - tool:network.file.pull
    - tool:ask
    - resource:*
    - yang:*
    - device:site=a
identities:
  - {subject: noc, source: mtls, roles: [noc]}
  - {subject: ops, source: mtls, roles: [admin]}
`

// r1Secrets are the secrets of r1's configuration in the default lab: its
// users' passwords and its SNMP community.
var r1Secrets = []string{"Huawei@123", "N3tOps!2025", "s3cr3t-ro"}

// newHardenedLab serves the default lab's routers, each with netmcp's
// security layer and an audit log and giving the controller the admin
// role (it sees every secret), through the controller with pol (nil: no
// policy file) over HTTPS; mtls requires client certificates. r1 and r2
// are at site a, r3 at site b.
func newHardenedLab(t *testing.T, pol string, mtls bool) (*labtest.Lab, *policyServer) {
	t.Helper()
	l := labtest.New(t, labtest.Options{Audit: true, Role: policy.RoleAdmin})
	var p *policy.Policy
	if pol != "" {
		var err error
		if p, err = policy.Parse([]byte(pol)); err != nil {
			t.Fatal(err)
		}
	}
	return l, servePolicy(t, sited(l.Inventory()), controller.HostsOf(l.Topology()), p, mtls)
}

// callDevice calls a device's tool through call_device_tool; a tool error
// result is returned as an error.
func callDevice(ctx context.Context, cs *mcp.ClientSession, device, tool string, args map[string]any, meta mcp.Meta) (*mcp.CallToolResult, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: serve.ToolCallDeviceTool, Meta: meta,
		Arguments: map[string]any{"device": device, "tool": tool, "arguments": args}})
	if err == nil && res.IsError {
		err = errors.New(textOf(res))
	}
	return res, err
}

// leaked returns the secrets found in v (a result, as JSON).
func leaked(v any, secrets []string) []string {
	b, _ := json.Marshal(v)
	var out []string
	for _, s := range secrets {
		if strings.Contains(string(b), s) {
			out = append(out, s)
		}
	}
	return out
}

// wantDenied fails unless err is a -32083 refusal whose message holds every
// word of want.
func wantDenied(t *testing.T, what string, err error, want ...string) {
	t.Helper()
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != netproto.CodeAccessDenied {
		t.Errorf("%s: want a -32083 refusal, got %v", what, err)
		return
	}
	for _, w := range want {
		if !strings.Contains(je.Message, w) {
			t.Errorf("%s: refusal %q does not name %q", what, je.Message, w)
		}
	}
}

// TestControllerServeMasksSecrets: the devices give the controller their
// secrets; a host without the secrets scope gets none of them through
// call_device_tool (a chunked file pull, CLI output with and without an
// output filter, a YANG read of the whole tree) or an mcp:// resource, and
// may not select list entries by a secret; the admin host sees them. The
// same holds for an unauthenticated host of a controller without a policy
// file.
func TestControllerServeMasksSecrets(t *testing.T) {
	_, ps := newHardenedLab(t, hardeningPolicy, true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	noc, ops := ps.connect(t, ctx, "noc"), ps.connect(t, ctx, "ops")

	res, err := callDevice(ctx, ops, "r1", netproto.ToolYangGet, map[string]any{"path": "/"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := leaked(res, r1Secrets); len(got) != len(r1Secrets) {
		t.Fatalf("the admin host sees %v of r1's secrets %v: the test does not reach them", got, r1Secrets)
	}

	checkMasked(t, ctx, noc)

	// No policy file: an unauthenticated host (any local process) is an
	// http-host, which has no secrets scope either.
	_, anon := newHardenedLab(t, "", false)
	checkMasked(t, ctx, anon.connect(t, ctx, ""))
}

// checkMasked reads r1 as cs in every way that shows its configuration
// and fails on any secret of r1 in what it gets.
func checkMasked(t *testing.T, ctx context.Context, cs *mcp.ClientSession) {
	t.Helper()
	for _, tc := range []struct {
		name string
		tool string
		args map[string]any
	}{
		{"yang.get of /", netproto.ToolYangGet, map[string]any{"path": "/"}},
		{"yang.get of the running system", netproto.ToolYangGet, map[string]any{"path": "/openconfig-system:system", "datastore": "running"}},
		{"cli.exec", netproto.ToolCLIExec, map[string]any{"cmd": "display current-configuration"}},
		{"cli.exec with a filter", netproto.ToolCLIExec, map[string]any{"cmd": "display current-configuration | include s3cr3t|Huawei|N3tOps"}},
		{"file.pull", netproto.ToolFilePull, map[string]any{"name": "running-config"}},
	} {
		res, err := callDevice(ctx, cs, "r1", tc.tool, tc.args, nil)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := leaked(res, r1Secrets); len(got) > 0 {
			t.Errorf("%s: the host gets r1's secrets %v", tc.name, got)
		}
	}

	// A file pulled in small chunks: no secret, whole or split across two
	// chunks, and the hash and size describe what the host got.
	var file strings.Builder
	var size int
	var sum string
	for off, n := 0, 0; n < 1000; n++ {
		res, err := callDevice(ctx, cs, "r1", netproto.ToolFilePull, map[string]any{"name": "running-config", "offset": off, "length": 37}, nil)
		if err != nil {
			t.Fatalf("file.pull at %d: %v", off, err)
		}
		var out struct {
			Content    string `json:"content"`
			SHA256     string `json:"sha256"`
			Size       int    `json:"size"`
			NextOffset *int   `json:"nextOffset"`
			EOF        bool   `json:"eof"`
		}
		remarshal(t, res.StructuredContent, &out)
		file.WriteString(out.Content)
		size, sum = out.Size, out.SHA256
		if out.EOF || out.NextOffset == nil {
			break
		}
		off = *out.NextOffset
	}
	got := sha256.Sum256([]byte(file.String()))
	if file.Len() != size || hex.EncodeToString(got[:]) != sum {
		t.Errorf("chunked pull: %d bytes with sha256 %x, but the device's answer says %d bytes, %s", file.Len(), got, size, sum)
	}
	if got := leaked(file.String(), r1Secrets); len(got) > 0 || !strings.Contains(file.String(), "local-user") {
		t.Errorf("chunked pull: the host gets r1's secrets %v (or not the file: %.200q)", got, file.String())
	}

	// Selecting a list entry by a secret would answer whether a guess is right.
	_, err := callDevice(ctx, cs, "r1", netproto.ToolYangGet,
		map[string]any{"path": "/openconfig-system:system/aaa/authentication/users/user[password='Huawei@123']"}, nil)
	wantDenied(t, "selection by a secret", err, "secret")

	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mcp://r1/openconfig-system:system"})
	if err != nil {
		t.Fatalf("mcp://r1/openconfig-system:system: %v", err)
	}
	if got := leaked(rr, r1Secrets); len(got) > 0 || !strings.Contains(rr.Contents[0].Text, "community") {
		t.Errorf("mcp://r1/openconfig-system:system: the host gets r1's secrets %v (or no community list)", got)
	}
}

// TestControllerServeApprovalGoesToItsHost: the ops host edits r1 eight
// times and declines every approval, while the NOC host, which would
// approve anything, keeps calling r2. Each of r1's approval questions
// reaches the ops host, never the NOC host, so no edit is applied; r1's
// audit log records the ops host as the one who answered.
func TestControllerServeApprovalGoesToItsHost(t *testing.T) {
	l, ps := newHardenedLab(t, hardeningPolicy, true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var mu sync.Mutex
	asked := map[string][]string{}
	answer := func(host, action string) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			asked[host] = append(asked[host], r.Params.Message)
			mu.Unlock()
			if action == "accept" {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
			}
			return &mcp.ElicitResult{Action: action}, nil
		}
	}
	ops := ps.connectWith(t, ctx, "ops", answer("ops", "decline"))
	noc := ps.connectWith(t, ctx, "noc", answer("noc", "accept"))

	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				_, _ = callDevice(ctx, noc, "r2", netproto.ToolYangGet, map[string]any{"path": hostnamePathTest}, nil)
			}
		}()
	}
	const edits = 8
	var applied int
	for i := range edits {
		args := editArgs("r1")["arguments"].(map[string]any)
		args["edit"].([]any)[0].(map[string]any)["value"] = map[string]any{"description": "declined " + string(rune('a'+i))}
		if _, err := callDevice(ctx, ops, "r1", netproto.ToolYangEdit, args, nil); err == nil {
			applied++
		}
	}
	close(done)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(asked["noc"]) > 0 {
		t.Errorf("the NOC host was asked to approve the ops host's edits %d times: %q", len(asked["noc"]), asked["noc"][0])
	}
	if len(asked["ops"]) != edits || applied > 0 {
		t.Errorf("the ops host was asked %d times for %d edits; %d edits it declined were applied", len(asked["ops"]), edits, applied)
	}
	for _, m := range asked["ops"] {
		if !strings.HasPrefix(m, "[r1] ") {
			t.Errorf("the question does not name r1: %.80q", m)
		}
	}
	var answers int
	for _, r := range l.Audit("r1") {
		if r.Method == "elicitation/create" && r.Kind == audit.KindNotification {
			answers++
			if !strings.Contains(string(r.Arguments), `"mtls:ops"`) {
				t.Errorf("r1's record of an approval answer does not name the ops host: %s", r.Arguments)
			}
		}
	}
	if answers != edits {
		t.Errorf("r1 recorded %d approval answers, want %d", answers, edits)
	}
}

// TestControllerServeApprovalPromptMasksSecrets: the ops host writes a
// password and an SNMP community to r1 with network.yang.edit and approves
// it. The approval question it reads and r1's audit log hold neither.
func TestControllerServeApprovalPromptMasksSecrets(t *testing.T) {
	const planted = "Pl4nted-Secret!77"
	l, ps := newHardenedLab(t, hardeningPolicy, true)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var mu sync.Mutex
	var asked []string
	ops := ps.connectWith(t, ctx, "ops", func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		asked = append(asked, r.Params.Message)
		mu.Unlock()
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	})
	for _, e := range []map[string]any{
		{"path": "/openconfig-system:system/aaa/authentication/users/user[username='admin']/config/password", "value": planted},
		{"path": "/openconfig-system:system/aaa/authentication/users/user[username='admin']/config", "value": map[string]any{"password": planted}},
		{"path": "/openconfig-system:system/snmp/communities/community[name='community1']/config/community-string", "value": planted},
	} {
		e["operation"] = "merge"
		if _, err := callDevice(ctx, ops, "r1", netproto.ToolYangEdit, map[string]any{"target": "candidate", "edit": []any{e}}, nil); err != nil {
			t.Fatalf("edit of %s: %v", e["path"], err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 3 {
		t.Fatalf("%d approval questions for 3 edits", len(asked))
	}
	for _, m := range asked {
		if strings.Contains(m, planted) {
			t.Errorf("the approval question shows the secret: %s", m)
		}
		if !strings.Contains(m, "Arguments:") {
			t.Errorf("the approval question shows no arguments: %s", m)
		}
	}
	b, err := os.ReadFile(l.AuditFile("r1"))
	if err != nil {
		t.Fatal(err)
	}
	if i := strings.Index(string(b), planted); i >= 0 {
		t.Errorf("r1's audit log holds the secret: ...%s...", b[max(0, i-200):i+len(planted)])
	}
	if !strings.Contains(string(b), "elicitation/create") {
		t.Error("r1's audit log records no approval question: the test did not reach it")
	}
}

// TestControllerServeClearCountersByEffect: a clear command is a write
// (clear-counters) whatever tool carries it. The NOC host, which may run
// network.cli.exec but not clear-counters, is refused `clear counters`
// and its spellings before any device sees them; so is an unauthenticated
// host of a controller without a policy file.
func TestControllerServeClearCountersByEffect(t *testing.T) {
	l, ps := newHardenedLab(t, hardeningPolicy, true)
	_, anonPS := newHardenedLab(t, "", false)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	hosts := map[string]*mcp.ClientSession{"noc": ps.connect(t, ctx, "noc"), "anonymous": anonPS.connect(t, ctx, "")}
	m := marks(l)
	for name, cs := range hosts {
		for _, cmd := range []string{"clear counters", "reset counters interface GigabitEthernet0/0/1", "CL counters", "clear counters | include x"} {
			_, err := callDevice(ctx, cs, "r1", netproto.ToolCLIExec, map[string]any{"cmd": cmd}, nil)
			wantDenied(t, name+": "+cmd, err, netproto.ToolClearCounters)
		}
		if _, err := callDevice(ctx, cs, "r1", netproto.ToolCLIExec, map[string]any{"cmd": "display version"}, nil); err != nil {
			t.Errorf("%s: display version: %v", name, err)
		}
	}
	for _, r := range since(l, m, "r1") {
		if r.Kind == audit.KindRequest && strings.Contains(string(r.Arguments), "counters") {
			t.Errorf("r1 received a clear command: %s", r.Arguments)
		}
	}
}

// TestControllerServeReportsFollowScopes: a report the ops host's ask saved
// cites r3 (site b); the NOC host (site a) neither lists nor reads it, and
// its netmcp://reports/last is its own report; the ops host reads both.
func TestControllerServeReportsFollowScopes(t *testing.T) {
	_, ps := newHardenedLab(t, hardeningPolicy, true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	noc, ops := ps.connect(t, ctx, "noc"), ps.connect(t, ctx, "ops")
	ask := func(cs *mcp.ClientSession) string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: serve.ToolAsk, Arguments: map[string]any{"intent": "what is wrong with the network?"}})
		if err != nil || res.IsError {
			t.Fatalf("ask: %v %+v", err, res)
		}
		var rep controller.Report
		remarshal(t, res.StructuredContent, &rep)
		return rep.ID
	}
	read := func(cs *mcp.ClientSession, uri string) (string, error) {
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			return "", err
		}
		return rr.Contents[0].Text, nil
	}
	opsID := ask(ops)
	for _, uri := range []string{"netmcp://reports/last", "netmcp://reports/" + opsID, "netmcp://reports/" + opsID[:10]} {
		if text, err := read(noc, uri); err == nil {
			t.Errorf("noc reads %s, a report citing r3: %.200s", uri, text)
		}
	}
	if list, err := read(noc, "netmcp://reports"); err != nil || strings.Contains(list, opsID) {
		t.Errorf("noc's list of reports: %v %s, want one without %s", err, list, opsID)
	}
	nocID := ask(noc)
	if text, err := read(noc, "netmcp://reports/last"); err != nil || !strings.Contains(text, nocID) {
		t.Errorf("noc's last report: %v %.200s, want its own %s", err, text, nocID)
	}
	for _, id := range []string{opsID, nocID} {
		if _, err := read(ops, "netmcp://reports/"+id); err != nil {
			t.Errorf("ops reads report %s: %v", id, err)
		}
	}
}

// TestControllerServeAuditsHTTPRefusals: an HTTP request refused with 401
// (a bearer token the controller does not accept) or 403 (another host's
// session) is in the controller's audit log.
func TestControllerServeAuditsHTTPRefusals(t *testing.T) {
	_, ps := newHardenedLab(t, hardeningPolicy, true)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ops := ps.connect(t, ctx, "ops")
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_devices","arguments":{}}}`
	for _, tc := range []struct {
		name     string
		header   map[string]string
		status   int
		identity string
	}{
		{"bearer token", map[string]string{"Authorization": "Bearer not-a-token"}, http.StatusUnauthorized, ""},
		{"another host's session", map[string]string{"Mcp-Session-Id": ops.ID()}, http.StatusForbidden, "mtls:noc"},
	} {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, ps.url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		for k, v := range tc.header {
			req.Header.Set(k, v)
		}
		resp, err := (&http.Client{Transport: &http.Transport{TLSClientConfig: ps.clientTLS(t, "noc")}}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Fatalf("%s: HTTP %d, want %d", tc.name, resp.StatusCode, tc.status)
		}
		var found bool
		for _, r := range ps.records(t) {
			if r.ErrorCode == tc.status && r.Outcome == audit.OutcomeError && r.Identity == tc.identity {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no record of the HTTP %d refusal in the controller's audit log", tc.name, tc.status)
		}
	}
	if _, err := audit.Verify(ps.auditPath); err != nil {
		t.Error(err)
	}
}

// TestControllerServeBoundsCorrelationID: a host's correlation id longer
// than 128 bytes, or not printable ASCII, is replaced by one the
// controller makes: it is in no audit record of the controller or the
// device, which share the replacement.
func TestControllerServeBoundsCorrelationID(t *testing.T) {
	l, ps := newHardenedLab(t, hardeningPolicy, true)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ops := ps.connect(t, ctx, "ops")
	for _, id := range []string{strings.Repeat("x", 200<<10), "bad id\nwith a newline", strings.Repeat("y", netproto.MaxCorrelationID+1)} {
		before := len(ps.records(t))
		m := marks(l)
		if _, err := callDevice(ctx, ops, "r1", netproto.ToolYangGet, map[string]any{"path": hostnamePathTest}, mcp.Meta{netproto.MetaCorrelationID: id}); err != nil {
			t.Fatal(err)
		}
		recs := ps.records(t)[before:]
		if len(recs) == 0 {
			t.Fatal("the call is not in the controller's audit log")
		}
		got := recs[0].Correlation
		if got == "" || len(got) > netproto.MaxCorrelationID || strings.ContainsAny(got, " \n") || strings.Contains(got, "xxxx") || strings.Contains(got, "yyyy") {
			t.Errorf("the controller recorded correlation id %.60q (%d bytes)", got, len(got))
		}
		for _, r := range since(l, m, "r1") {
			if r.Correlation != got {
				t.Errorf("r1 recorded correlation id %.60q, the controller %.60q", r.Correlation, got)
			}
		}
	}
	fi, err := os.Stat(ps.auditPath)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 64<<10 {
		t.Errorf("the controller's audit log grew to %d bytes", fi.Size())
	}
}

// TestControllerServeD2DReportsFollowScopes: of two D2D reports the ops
// host submitted, one between r1 and r2 (site a) and one by r3 (site b),
// the NOC host (site a) lists and reads only the first; reading the other
// is as for a report that does not exist. The ops host reads both.
func TestControllerServeD2DReportsFollowScopes(t *testing.T) {
	_, ps := newHardenedLab(t, hardeningPolicy, true)
	ca, err := pki.NewCA("d2d-ca")
	if err != nil {
		t.Fatal(err)
	}
	if err := ps.srv.EnableD2D(ca.CertPEM); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	noc, ops := ps.connect(t, ctx, "noc"), ps.connect(t, ctx, "ops")
	for _, rep := range []report.Report{d2dReportBy(t, ca, "site-a", "r1", "r2"), d2dReportBy(t, ca, "site-b", "r3", "r1")} {
		if res := submit(t, ops, rep); res.IsError {
			t.Fatalf("ops submits %s: %s", rep.ID, textOf(res))
		}
	}
	read := func(cs *mcp.ClientSession, uri string) (string, error) {
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			return "", err
		}
		return rr.Contents[0].Text, nil
	}
	for _, tc := range []struct {
		host *mcp.ClientSession
		who  string
		list string
		read []string // readable ids
		hide []string // ids that read as missing
	}{
		{noc, "noc", `["site-a"]`, []string{"site-a"}, []string{"site-b"}},
		{ops, "ops", `["site-a","site-b"]`, []string{"site-a", "site-b"}, nil},
	} {
		if list, err := read(tc.host, serve.D2DReportsURI); err != nil || !strings.Contains(list, tc.list) {
			t.Errorf("%s lists %s: %v, want %s", tc.who, list, err, tc.list)
		}
		for _, id := range tc.read {
			if text, err := read(tc.host, serve.D2DReportsURI+"/"+id); err != nil || !strings.Contains(text, `"id": "`+id+`"`) {
				t.Errorf("%s reads %s: %v %.100s", tc.who, id, err, text)
			}
		}
		for _, id := range tc.hide {
			text, err := read(tc.host, serve.D2DReportsURI+"/"+id)
			var je, missing *jsonrpc.Error
			errors.As(mcp.ResourceNotFoundError(""), &missing)
			if !errors.As(err, &je) || je.Code != missing.Code || je.Message != missing.Message {
				t.Errorf("%s reads %s, a report of r3: %v %.200s, want resource not found", tc.who, id, err, text)
			}
		}
	}
}
