package server_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/approval"
	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/server/servertest"
)

// Paths of r1 (huawei-vrp) of the built-in lab used below.
const (
	pathLo100  = "/openconfig-interfaces:interfaces/interface[name='LoopBack100']"
	pathGE0    = "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0']"
	pathVLAN   = "/openconfig-vlan:vlans/vlan[vlan-id='%d']"
	loopConfig = `{"config":{"name":"LoopBack100","type":"iana-if-type:softwareLoopback","description":"%s"}}`
)

// simEnv is r1 of the built-in lab served by one MCP server, which any
// number of client sessions may dial.
type simEnv struct {
	lab *sim.Lab
	drv *sim.Driver
	srv *server.Server
}

func newSim(t testing.TB, dir string, opts server.Options) *simEnv {
	t.Helper()
	topo, err := sim.LoadTopology("")
	if err != nil {
		t.Fatal(err)
	}
	lab, err := sim.NewLab(topo, sim.LabOptions{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	drv, err := lab.Device("r1")
	if err != nil {
		t.Fatal(err)
	}
	if opts.User == "" {
		opts.User = "tester"
	}
	srv, err := server.New(drv, opts)
	if err != nil {
		t.Fatal(err)
	}
	e := &simEnv{lab: lab, drv: drv, srv: srv}
	t.Cleanup(func() { srv.Close(); lab.Close() })
	return e
}

// dial opens a new client session; copts with an ElicitationHandler makes
// the client declare the elicitation capability.
func (e *simEnv) dial(t testing.TB, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := e.srv.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "cfgtest", Version: "1"}, copts)
	if err := mcp.AddSendingCustomMethod[*server.WriteParams, *server.WriteResult](c, server.MethodResourcesWrite); err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// running returns r1's running value at path, or nil if there is none.
func (e *simEnv) running(t testing.TB, path string) any {
	t.Helper()
	v, err := e.drv.Get(context.Background(), device.Running, path)
	if errors.Is(err, device.ErrNotFound) {
		return nil
	}
	if err != nil {
		t.Fatalf("get %s: %v", path, err)
	}
	return v
}

// toolCall calls a tool; res is nil on a JSON-RPC error.
func toolCall(t testing.TB, cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, error) {
	t.Helper()
	if s, ok := args.(string); ok {
		args = json.RawMessage(s)
	}
	return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
}

// mustOK calls a tool that must succeed and returns its structuredContent.
func mustOK(t testing.TB, cs *mcp.ClientSession, name string, args any) map[string]any {
	t.Helper()
	res, err := toolCall(t, cs, name, args)
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			t.Fatalf("%s %v: %v %s", name, args, err, je.Data)
		}
		t.Fatalf("%s %v: %v", name, args, err)
	}
	if res.IsError {
		t.Fatalf("%s %v: tool error: %s", name, args, res.Content[0].(*mcp.TextContent).Text)
	}
	return structured(t, res)
}

func structured(t testing.TB, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	var m map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
	return m
}

// needApproval calls a tool that must be refused pending approval and
// returns the refusal.
func needApproval(t testing.TB, cs *mcp.ClientSession, name string, args any) server.ApprovalRequiredResult {
	t.Helper()
	res, err := toolCall(t, cs, name, args)
	if err != nil {
		t.Fatalf("%s: %v, want an approval-required result", name, err)
	}
	var ar server.ApprovalRequiredResult
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &ar); err != nil || !res.IsError || ar.Status != server.StatusApprovalRequired || ar.ApprovalToken == "" {
		t.Fatalf("%s: isError=%v %s, want an approval-required result", name, res.IsError, b)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, ar.ApprovalToken) || !strings.Contains(text, "APPROVAL REQUIRED") {
		t.Fatalf("text fallback does not tell the agent what to do:\n%s", text)
	}
	return ar
}

// wantCode asserts a JSON-RPC error with code whose data.detail contains substr.
func wantCode(t testing.TB, err error, code int64, substr string) map[string]any {
	t.Helper()
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != code {
		t.Fatalf("error %v, want code %d", err, code)
	}
	var data map[string]any
	_ = json.Unmarshal(je.Data, &data)
	if d, _ := data["detail"].(string); !strings.Contains(d, substr) {
		t.Fatalf("data.detail %q does not contain %q", d, substr)
	}
	return data
}

func withToken(args, token string) string {
	sep := ","
	if strings.TrimSpace(args) == "{}" {
		sep = ""
	}
	return strings.TrimSuffix(strings.TrimSpace(args), "}") + sep + `"approvalToken":"` + token + `"}`
}

func loopEdit(desc string) string {
	return `{"edit":[{"path":"` + pathLo100 + `","value":` + fmt.Sprintf(loopConfig, desc) + `}]}`
}

// The default gate with a client without elicitation: token path.
func TestApprovalTokenPath(t *testing.T) {
	e := newSim(t, t.TempDir(), server.Options{})
	cs := e.dial(t, nil)
	edit := loopEdit("via token")

	ar := needApproval(t, cs, netproto.ToolYangEdit, edit)
	if !strings.Contains(ar.Summary, pathLo100) || !strings.Contains(ar.Summary, "via token") || ar.ExpiresAt.Before(time.Now()) {
		t.Fatalf("summary/expiry: %+v", ar)
	}
	if d := mustOK(t, cs, netproto.ToolCommit, `{"dryRun":true}`); d["diff"].(map[string]any)["unified"] != "" {
		t.Fatalf("refused edit changed the candidate: %v", d)
	}
	// Token for other arguments: refused, the token stays valid.
	_, err := toolCall(t, cs, netproto.ToolYangEdit, withToken(loopEdit("other"), ar.ApprovalToken))
	wantCode(t, err, netproto.CodeAccessDenied, "other arguments")
	// Another session cannot use it.
	cs2 := e.dial(t, nil)
	_, err = toolCall(t, cs2, netproto.ToolYangEdit, withToken(edit, ar.ApprovalToken))
	wantCode(t, err, netproto.CodeAccessDenied, "another session")
	// The identical call with the token passes, once.
	mustOK(t, cs, netproto.ToolYangEdit, withToken(edit, ar.ApprovalToken))
	_, err = toolCall(t, cs, netproto.ToolYangEdit, withToken(edit, ar.ApprovalToken))
	wantCode(t, err, netproto.CodeAccessDenied, "already used")

	// Commit: the summary is the diff and the rollback window.
	ar = needApproval(t, cs, netproto.ToolCommit, `{"confirmed":60,"comment":"add lo100"}`)
	if !strings.Contains(ar.Summary, "LoopBack100") || !strings.Contains(ar.Summary, "60 s") || ar.RollbackWindow != 60 {
		t.Fatalf("commit summary lacks the diff or window: %+v", ar)
	}
	if e.running(t, pathLo100) != nil {
		t.Fatal("a refused commit changed running")
	}
	out := mustOK(t, cs, netproto.ToolCommit, withToken(`{"confirmed":60,"comment":"add lo100"}`, ar.ApprovalToken))
	if out["status"] != "committed" || out["rollbackTimeout"] != float64(60) || e.running(t, pathLo100) == nil {
		t.Fatalf("commit: %v", out)
	}
	ar = needApproval(t, cs, netproto.ToolCommit, `{"confirm":true}`)
	if out := mustOK(t, cs, netproto.ToolCommit, withToken(`{"confirm":true}`, ar.ApprovalToken)); out["status"] != "confirmed" {
		t.Fatalf("confirm: %v", out)
	}
}

func TestApprovalTokenExpires(t *testing.T) {
	now := time.Now()
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	gate := server.NewMCPApprover(approval.New(approval.Options{TokenTTL: time.Minute, Now: clock}), nil)
	e := newSim(t, "", server.Options{Approver: gate})
	cs := e.dial(t, nil)
	ar := needApproval(t, cs, netproto.ToolYangEdit, loopEdit("late"))
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	_, err := toolCall(t, cs, netproto.ToolYangEdit, withToken(loopEdit("late"), ar.ApprovalToken))
	wantCode(t, err, netproto.CodeAccessDenied, "expired")
}

// An elicitation-capable client: the operator sees tool, arguments, diff
// and rollback window, and accepts or declines.
func TestApprovalElicitation(t *testing.T) {
	e := newSim(t, "", server.Options{})
	var mu sync.Mutex
	answer, messages := "accept", []string{}
	cs := e.dial(t, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		defer mu.Unlock()
		messages = append(messages, req.Params.Message)
		if answer != "accept" {
			return &mcp.ElicitResult{Action: answer}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	}})
	mustOK(t, cs, netproto.ToolYangEdit, loopEdit("elicited"))
	out := mustOK(t, cs, netproto.ToolCommit, `{"confirmed":90}`)
	if out["status"] != "committed" || e.running(t, pathLo100) == nil {
		t.Fatalf("accepted commit: %v", out)
	}
	mu.Lock()
	last := messages[len(messages)-1]
	mu.Unlock()
	for _, want := range []string{"Approve network.commit", `"confirmed": 90`, "LoopBack100", "elicited", "Rollback window: 90 s"} {
		if !strings.Contains(last, want) {
			t.Errorf("elicitation message lacks %q:\n%s", want, last)
		}
	}
	for _, a := range []string{"decline", "cancel"} {
		mu.Lock()
		answer = a
		mu.Unlock()
		_, err := toolCall(t, cs, netproto.ToolCommit, `{"cancel":true}`)
		wantCode(t, err, netproto.CodeAccessDenied, a)
		if e.running(t, pathLo100) == nil {
			t.Fatalf("%s: the cancel was applied", a)
		}
	}
}

// A signed consent from a trusted key (policy file), as an object and a JWT.
func TestApprovalSignedConsent(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	opts, err := parseApprovalPolicy([]byte("approval:\n  default: writes\n  tools:\n    network.cli.exec: always\ntrustedKeys:\n  alice: " +
		base64.StdEncoding.EncodeToString(pub) + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := newSim(t, "", server.Options{Approver: server.NewMCPApprover(approval.New(opts), nil)})
	cs := e.dial(t, nil)
	sign := func(args string, window int, nonce string, jwt bool) json.RawMessage {
		c := approval.Consent{Tool: netproto.ToolYangEdit, Parameters: json.RawMessage(args), ImpactWindow: window,
			User: "alice", Role: "admin", Timestamp: time.Now(), Nonce: nonce, Device: "r1", Expires: time.Now().Add(time.Minute)}
		if jwt {
			s, err := c.SignJWT("alice", priv)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(s)
			return b
		}
		b, err := c.Sign("alice", priv)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	edit := loopEdit("consented")
	with := func(args string, consent json.RawMessage) string {
		return strings.TrimSuffix(args, "}") + `,"consent":` + string(consent) + `}`
	}
	c1 := sign(edit, 0, "n1", false)
	mustOK(t, cs, netproto.ToolYangEdit, with(edit, c1))
	_, err = toolCall(t, cs, netproto.ToolYangEdit, with(edit, c1))
	wantCode(t, err, netproto.CodeAccessDenied, "replay")
	_, err = toolCall(t, cs, netproto.ToolYangEdit, with(loopEdit("other"), sign(edit, 0, "n2", false)))
	wantCode(t, err, netproto.CodeAccessDenied, "differ")
	mustOK(t, cs, netproto.ToolYangEdit, with(loopEdit("jwt"), sign(loopEdit("jwt"), 0, "n3", true)))
	// The policy makes a read tool ask too; its schema accepts the token.
	ar := needApproval(t, cs, netproto.ToolCLIExec, `{"cmd":"display version"}`)
	mustOK(t, cs, netproto.ToolCLIExec, withToken(`{"cmd":"display version"}`, ar.ApprovalToken))
}

func TestApprovalPolicyFile(t *testing.T) {
	pub, _, _ := ed25519.GenerateKey(nil)
	key := base64.StdEncoding.EncodeToString(pub)
	tests := []struct {
		name, yaml, err string
	}{
		{"empty", "", ""},
		{"modes", "approval: {default: writes, tools: {network.commit: always, ping: always}}\ntrustedKeys: {alice: " + key + "}", ""},
		{"policy members accepted", "roles: {x: [tool:ping]}\nidentities: []\napproval: {default: never}", ""},
		{"bad mode", "approval: {tools: {network.commit: sometimes}}", "network.commit"},
		{"unknown member", "aproval: {default: never}", "aproval"},
		{"bad key", "trustedKeys: {alice: bm90IGEga2V5}", "trustedKeys.alice"},
	}
	for _, tt := range tests {
		opts, err := parseApprovalPolicy([]byte(tt.yaml))
		if tt.err == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: err %v, want one naming %q (opts %+v)", tt.name, err, tt.err, opts)
		}
	}
	opts, _ := parseApprovalPolicy([]byte("approval: {default: writes, tools: {network.commit: never}}"))
	e := newSim(t, "", server.Options{Approver: server.NewMCPApprover(approval.New(opts), nil)})
	cs := e.dial(t, nil)
	needApproval(t, cs, netproto.ToolYangEdit, loopEdit("x"))
	if out := mustOK(t, cs, netproto.ToolCommit, `{}`); out["status"] != "no-changes" {
		t.Fatalf("commit in mode never: %v", out)
	}
}

func TestReadOnlyRefusesEveryWrite(t *testing.T) {
	e := newSim(t, "", server.Options{ReadOnly: true})
	cs := e.dial(t, nil)
	for _, c := range []struct{ tool, args string }{
		{netproto.ToolCLIConfigure, `{"lines":"sysname x"}`},
		{netproto.ToolYangEdit, loopEdit("ro")},
		{netproto.ToolCommit, `{"confirmed":60}`},
		{netproto.ToolRollback, `{}`},
		{netproto.ToolFilePush, `{"name":"startup-config","content":"sysname x\n"}`},
	} {
		_, err := toolCall(t, cs, c.tool, c.args)
		wantCode(t, err, netproto.CodeAccessDenied, "read-only")
	}
	text := "sysname x\n"
	err := writeResource(cs, &server.WriteParams{URI: netproto.URICandidateConfig, Text: &text})
	wantCode(t, err, netproto.CodeAccessDenied, "read-only")
}

// yang.edit validation: codes with paths; all or nothing; maxBulkEdit.
func TestYangEditValidation(t *testing.T) {
	e := newSim(t, "", server.Options{Approver: server.AllowAll})
	cs := e.dial(t, nil)
	tests := []struct {
		name  string
		edits string
		code  int64
		path  string
	}{
		{"type", `[{"path":"` + pathGE0 + `/config/mtu","value":"big"}]`, netproto.CodeYangSyntaxError, "mtu"},
		{"range", `[{"path":"` + fmt.Sprintf(pathVLAN, 4095) + `","value":{"vlan-id":4095,"config":{"vlan-id":4095}}}]`, netproto.CodeConfigIncompatible, "vlan-id"},
		{"key mismatch", `[{"path":"` + pathLo100 + `","value":{"name":"LoopBack7","config":{"name":"LoopBack7"}}}]`, netproto.CodeYangSyntaxError, "LoopBack"},
		{"unsupported node", `[{"path":"/foo-bar:baz","value":1}]`, netproto.CodeConfigIncompatible, ""},
		{"bad path", `[{"path":"/openconfig-interfaces:interfaces/interface[name=","value":1}]`, netproto.CodeYangSyntaxError, ""},
		{"interface ref", `[{"path":"/openconfig-acl:acl/interfaces/interface[id='GigabitEthernet9/9/9']","value":{"id":"GigabitEthernet9/9/9","config":{"id":"GigabitEthernet9/9/9"}}}]`, netproto.CodeYangSyntaxError, "GigabitEthernet9/9/9"},
		{"all or nothing", `[{"path":"` + pathLo100 + `","value":` + fmt.Sprintf(loopConfig, "ok") + `},{"path":"` + pathGE0 + `/config/mtu","value":-1}]`, netproto.CodeYangSyntaxError, "mtu"},
	}
	for _, tt := range tests {
		_, err := toolCall(t, cs, netproto.ToolYangEdit, `{"edit":`+tt.edits+`}`)
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != tt.code {
			t.Errorf("%s: %v, want code %d", tt.name, err, tt.code)
			continue
		}
		var data netproto.ErrorData
		_ = json.Unmarshal(je.Data, &data)
		if !strings.Contains(data.Path, tt.path) || data.Detail == "" {
			t.Errorf("%s: data %s, want a detail and a path containing %q", tt.name, je.Data, tt.path)
		}
	}
	if d := mustOK(t, cs, netproto.ToolCommit, `{"dryRun":true}`); d["diff"].(map[string]any)["unified"] != "" {
		t.Fatalf("refused edits left changes in the candidate: %v", d)
	}
	max := e.drv.Info().MaxBulkEdit
	var many []string
	for i := 0; i <= max; i++ {
		many = append(many, fmt.Sprintf(`{"path":"`+pathVLAN+`","value":{"vlan-id":%d,"config":{"vlan-id":%d}}}`, i%4000+1, i%4000+1, i%4000+1))
	}
	_, err := toolCall(t, cs, netproto.ToolYangEdit, `{"edit":[`+strings.Join(many, ",")+`]}`)
	wantCode(t, err, netproto.CodeConfigIncompatible, fmt.Sprintf("exceed maxBulkEdit %d; nothing was applied", max))
	if e.running(t, fmt.Sprintf(pathVLAN, 1)) != nil {
		t.Fatal("an oversized edit was applied")
	}
}

// dryRun is the diff before a commit: unified diff and changed paths.
func TestCommitDryRunDiff(t *testing.T) {
	e := newSim(t, "", server.Options{Approver: server.AllowAll})
	cs := e.dial(t, nil)
	mustOK(t, cs, netproto.ToolYangEdit, loopEdit("dry"))
	out := mustOK(t, cs, netproto.ToolCommit, `{"dryRun":true}`)
	d := out["diff"].(map[string]any)
	changes := d["changes"].([]any)
	if out["status"] != "dry-run" || !strings.Contains(d["unified"].(string), "+") || len(changes) == 0 ||
		!strings.Contains(changes[0].(map[string]any)["path"].(string), "LoopBack100") {
		t.Fatalf("dry run: %v", out)
	}
	if e.running(t, pathLo100) != nil {
		t.Fatal("dry run changed running")
	}
}

// Confirmed commit: timeout rolls back with a syslog event; a late confirm
// is -32086; cancel rolls back at once.
func TestConfirmedCommitTimeout(t *testing.T) {
	dir := t.TempDir()
	e := newSim(t, dir, server.Options{Approver: server.AllowAll})
	cs := e.dial(t, nil)
	mustOK(t, cs, netproto.ToolYangEdit, loopEdit("timed"))
	out := mustOK(t, cs, netproto.ToolCommit, `{"confirmed":1}`)
	id := out["commit-id"].(string)
	if e.running(t, pathLo100) == nil {
		t.Fatal("confirmed commit not applied")
	}
	deadline := time.Now().Add(5 * time.Second)
	for e.running(t, pathLo100) != nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if e.running(t, pathLo100) != nil {
		t.Fatal("not rolled back after the confirmed window")
	}
	_, err := toolCall(t, cs, netproto.ToolCommit, `{"confirm":true}`)
	wantCode(t, err, netproto.CodeConfirmedCommitTimeout, "")
	logs, _ := e.drv.Syslog(context.Background(), 50)
	found := false
	for _, l := range logs {
		found = found || strings.Contains(l.Text, id) && strings.Contains(strings.ToLower(l.Text), "roll")
	}
	if !found {
		t.Fatalf("no syslog event of the automatic rollback of %s in %v", id, logs)
	}
	hist := history(t, cs)
	if hist[0].ID != id || hist[0].Status != device.StatusRolledBack || hist[0].User != "tester" || hist[0].Session == "" {
		t.Fatalf("history: %+v", hist)
	}
	// cancel
	mustOK(t, cs, netproto.ToolYangEdit, loopEdit("cancelled"))
	mustOK(t, cs, netproto.ToolCommit, `{"confirmed":60}`)
	if out := mustOK(t, cs, netproto.ToolCommit, `{"cancel":true}`); out["status"] != "cancelled" || e.running(t, pathLo100) != nil {
		t.Fatalf("cancel: %v", out)
	}
}

func history(t testing.TB, cs *mcp.ClientSession) []device.CommitInfo {
	t.Helper()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: server.URICommitHistory})
	if err != nil {
		t.Fatal(err)
	}
	var h struct{ Commits []device.CommitInfo }
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &h); err != nil {
		t.Fatal(err)
	}
	return h.Commits
}

// Rollback to the previous commit and to an id; -32085 and -32087.
func TestRollback(t *testing.T) {
	dir := t.TempDir()
	e := newSim(t, dir, server.Options{Approver: server.AllowAll})
	cs := e.dial(t, nil)
	var ids []string
	for _, d := range []string{"one", "two", "three"} {
		mustOK(t, cs, netproto.ToolYangEdit, loopEdit(d))
		ids = append(ids, mustOK(t, cs, netproto.ToolCommit, `{"comment":"`+d+`"}`)["commit-id"].(string))
	}
	desc := func() any {
		return e.running(t, pathLo100+"/config/description")
	}
	mustOK(t, cs, netproto.ToolRollback, `{}`)
	if desc() != "two" {
		t.Fatalf("rollback to previous: description %v", desc())
	}
	mustOK(t, cs, netproto.ToolRollback, `{"commit-id":"`+ids[0]+`"}`)
	if desc() != "one" {
		t.Fatalf("rollback to %s: description %v", ids[0], desc())
	}
	_, err := toolCall(t, cs, netproto.ToolRollback, `{"commit-id":"1999-01-01-00-00-00"}`)
	wantCode(t, err, netproto.CodeRollbackFailed, "1999")
	mustOK(t, cs, netproto.ToolYangEdit, loopEdit("pending"))
	mustOK(t, cs, netproto.ToolCommit, `{"confirmed":60}`)
	_, err = toolCall(t, cs, netproto.ToolRollback, `{}`)
	wantCode(t, err, netproto.CodeRollbackFailed, "")
	mustOK(t, cs, netproto.ToolCommit, `{"confirm":true}`)
	// Every committed configuration is kept, with who and why.
	hist := history(t, cs)
	if len(hist) != 6 || hist[len(hist)-1].Comment != "one" {
		t.Fatalf("history %+v", hist)
	}
	// A driver that cannot roll back.
	cli := servertest.CLIOnly{D: servertest.New()}
	s2, err := server.New(cli, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s2.MCP().Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs2, err := mcp.NewClient(&mcp.Implementation{Name: "x", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs2.Close()
	_, err = toolCall(t, cs2, netproto.ToolRollback, `{}`)
	wantCode(t, err, netproto.CodeRollbackNotSupported, "")
}

// Two sessions on one server: the candidate lock names its holder and is
// released when the holder's session ends.
func TestTwoEditors(t *testing.T) {
	e := newSim(t, "", server.Options{Approver: server.AllowAll})
	a, b := e.dial(t, nil), e.dial(t, nil)
	mustOK(t, a, netproto.ToolYangEdit, loopEdit("alice"))
	for _, c := range []struct{ tool, args string }{
		{netproto.ToolYangEdit, loopEdit("bob")},
		{netproto.ToolCLIConfigure, `{"lines":"sysname bob"}`},
		{netproto.ToolCommit, `{}`},
		{netproto.ToolFilePush, `{"name":"candidate-config","content":"sysname bob\n","sha256":"ee728331d39975578c86ec1ec218b22b2a28e0749d530694088c5c1a3776454c"}`},
	} {
		_, err := toolCall(t, b, c.tool, c.args)
		data := wantCode(t, err, netproto.CodeAccessDenied, "locked by session")
		holder, _ := data["holder"].(map[string]any)
		if holder["session"] == "" || holder["user"] != "tester" || data["retryPossible"] != true {
			t.Fatalf("%s: data %v does not name the holder", c.tool, data)
		}
	}
	a.Close()
	deadline := time.Now().Add(3 * time.Second)
	for {
		res, err := toolCall(t, b, netproto.ToolYangEdit, loopEdit("bob"))
		if err == nil && !res.IsError {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("lock not released after the holder's session ended: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if out := mustOK(t, b, netproto.ToolCommit, `{}`); out["status"] != "committed" {
		t.Fatalf("bob's commit: %v", out)
	}
}

// cli.configure and resources/write use the same candidate, validation,
// gate and commit.
func TestConfigureAndResourcesWrite(t *testing.T) {
	e := newSim(t, "", server.Options{})
	cs := e.dial(t, nil)
	// An invalid change is refused before any approval is asked for.
	_, err := toolCall(t, cs, netproto.ToolCLIConfigure, `{"lines":"interface GigabitEthernet0/0/0\nmtu 99999"}`)
	wantCode(t, err, netproto.CodeConfigIncompatible, "")
	args := `{"lines":"interface GigabitEthernet0/0/0\ndescription via-cli"}`
	mustOK(t, cs, netproto.ToolCLIConfigure, withToken(args, needApproval(t, cs, netproto.ToolCLIConfigure, args).ApprovalToken))
	ar := needApproval(t, cs, netproto.ToolCommit, `{}`)
	if !strings.Contains(ar.Summary, "via-cli") {
		t.Fatalf("commit summary lacks the CLI change: %s", ar.Summary)
	}
	mustOK(t, cs, netproto.ToolCommit, withToken(`{}`, ar.ApprovalToken))

	// resources/write: approval as a -32083 error carrying the token.
	pulled := mustOK(t, cs, netproto.ToolFilePull, `{"name":"running-config"}`)["content"].(string)
	text := strings.Replace(pulled, "description via-cli", "description via-resource", 1)
	p := &server.WriteParams{URI: netproto.URICandidateConfig, Text: &text}
	err = writeResource(cs, p)
	data := wantCode(t, err, netproto.CodeAccessDenied, "needs approval")
	if data["status"] != server.StatusApprovalRequired || data["retryPossible"] != true {
		t.Fatalf("resources/write refusal data %v", data)
	}
	p.ApprovalToken = data["approvalToken"].(string)
	if err := writeResource(cs, p); err != nil {
		t.Fatal(err)
	}
	bad := "this is not a configuration {{{\n"
	p2 := &server.WriteParams{URI: netproto.URICandidateConfig, Text: &bad}
	err = writeResource(cs, p2)
	p2.ApprovalToken = wantCode(t, err, netproto.CodeAccessDenied, "")["approvalToken"].(string)
	if err := writeResource(cs, p2); err == nil {
		t.Fatal("invalid candidate-config accepted")
	}
	ar = needApproval(t, cs, netproto.ToolCommit, `{}`)
	if !strings.Contains(ar.Summary, "via-resource") {
		t.Fatalf("the written candidate is not what commit shows: %s", ar.Summary)
	}
}

// Chunked file transfer with whole-file SHA-256.
func TestFileChunks(t *testing.T) {
	e := newSim(t, "", server.Options{Approver: server.AllowAll})
	cs := e.dial(t, nil)
	var got strings.Builder
	off, sum := 0, ""
	for n := 0; ; n++ {
		out := mustOK(t, cs, netproto.ToolFilePull, fmt.Sprintf(`{"name":"running-config","offset":%d,"length":100}`, off))
		got.WriteString(out["content"].(string))
		sum = out["sha256"].(string)
		next, more := out["nextOffset"].(float64)
		if !more {
			if out["eof"] != true || n == 0 {
				t.Fatalf("last chunk %v after %d chunks", out, n)
			}
			break
		}
		off = int(next)
	}
	whole := mustOK(t, cs, netproto.ToolFilePull, `{"name":"running-config"}`)
	if got.String() != whole["content"] || sum != whole["sha256"] {
		t.Fatal("chunks do not assemble into the file")
	}
	// Push it back to the candidate in three chunks with a description changed.
	text := strings.Replace(got.String(), "sysname r1", "sysname r1-chunked", 1)
	parts := []string{text[:len(text)/3], text[len(text)/3 : 2*len(text)/3], text[2*len(text)/3:]}
	pos := 0
	for i, part := range parts {
		args := map[string]any{"name": "candidate-config", "content": part, "offset": pos, "more": i < 2}
		if i == 2 {
			args["sha256"] = fmt.Sprintf("%x", sha256Sum(text))
		}
		out := mustOK(t, cs, netproto.ToolFilePush, args)
		pos += len(part)
		if i < 2 && (out["status"] != "staged" || out["nextOffset"] != float64(pos)) {
			t.Fatalf("chunk %d: %v", i, out)
		}
		if i == 2 && (out["status"] != "written" || out["size"] != float64(len(text))) {
			t.Fatalf("last chunk: %v", out)
		}
	}
	if v := mustOK(t, cs, netproto.ToolYangGet, `{"path":"/openconfig-system:system/config/hostname","datastore":"candidate"}`); !strings.Contains(fmt.Sprint(v["data"]), "r1-chunked") {
		t.Fatalf("candidate hostname %v", v)
	}
	// Wrong offset, missing and wrong sha256: refused, nothing written.
	_, err := toolCall(t, cs, netproto.ToolFilePush, `{"name":"startup-config","content":"x","offset":5}`)
	wantCode(t, err, jsonrpc.CodeInvalidParams, "send offset 0")
	mustOK(t, cs, netproto.ToolFilePush, `{"name":"startup-config","content":"sysname r1\n","more":true}`)
	_, err = toolCall(t, cs, netproto.ToolFilePush, `{"name":"startup-config","content":"","offset":11}`)
	wantCode(t, err, jsonrpc.CodeInvalidParams, "needs \"sha256\"")
}

// The add-vlan prompt ends in a commit step that asks for confirmation,
// and following it goes through the gate.
func TestAddVLANPromptCommitGated(t *testing.T) {
	e := newSim(t, "", server.Options{})
	cs := e.dial(t, nil)
	res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: netproto.PromptAddVLAN,
		Arguments: map[string]string{"vlan_id": "300", "name": "lab"}})
	if err != nil {
		t.Fatal(err)
	}
	calls, _ := json.Marshal(res.Meta["toolCalls"])
	var steps []struct {
		Name                 string         `json:"tool"`
		Arguments            map[string]any `json:"arguments"`
		RequiresConfirmation bool           `json:"requiresConfirmation"`
	}
	if err := json.Unmarshal(calls, &steps); err != nil || len(steps) < 3 {
		t.Fatalf("toolCalls %s: %v", calls, err)
	}
	text := res.Messages[0].Content.(*mcp.TextContent).Text
	for _, st := range steps {
		if st.Name == netproto.ToolCommit && st.Arguments["confirmed"] != nil && !st.RequiresConfirmation {
			t.Fatalf("commit step without requiresConfirmation: %s", calls)
		}
	}
	if !strings.Contains(text, "explicit confirmation") {
		t.Fatalf("prompt text does not ask for confirmation:\n%s", text)
	}
	for _, st := range steps {
		if st.Name == netproto.ToolCommit && st.Arguments["dryRun"] == true {
			mustOK(t, cs, st.Name, st.Arguments)
			continue
		}
		// An agent following the prompt is stopped at every write.
		ar := needApproval(t, cs, st.Name, st.Arguments)
		if st.Name == netproto.ToolYangEdit {
			mustOK(t, cs, st.Name, withToken(mustJSON(st.Arguments), ar.ApprovalToken))
		}
		if st.Name == netproto.ToolCommit && st.Arguments["confirmed"] != nil {
			if !strings.Contains(ar.Summary, "300") || ar.RollbackWindow == 0 {
				t.Fatalf("commit step approval summary: %+v", ar)
			}
			break
		}
	}
	if e.running(t, fmt.Sprintf(pathVLAN, 300)) != nil {
		t.Fatal("VLAN 300 committed without approval")
	}
}

// History and the state directory survive a restart.
func TestHistorySurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	e := newSim(t, dir, server.Options{Approver: server.AllowAll})
	cs := e.dial(t, nil)
	mustOK(t, cs, netproto.ToolYangEdit, loopEdit("kept"))
	id := mustOK(t, cs, netproto.ToolCommit, `{"comment":"keep me"}`)["commit-id"].(string)
	cs.Close()
	e.srv.Close()
	e.lab.Close()
	e2 := newSim(t, dir, server.Options{Approver: server.AllowAll})
	cs2 := e2.dial(t, nil)
	h := history(t, cs2)
	if len(h) != 1 || h[0].ID != id || h[0].Comment != "keep me" || h[0].User != "tester" || h[0].Time.IsZero() {
		t.Fatalf("history after restart: %+v", h)
	}
	if e2.running(t, pathLo100+"/config/description") != "kept" {
		t.Fatal("running lost on restart")
	}
}

// BenchmarkCommitStateDir measures an edit plus a commit through an MCP
// session with the state directory on disk (fsync'ed).
func BenchmarkCommitStateDir(b *testing.B) {
	e := newSim(b, b.TempDir(), server.Options{Approver: server.AllowAll})
	cs := e.dial(b, nil)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		mustOK(b, cs, netproto.ToolYangEdit, loopEdit(fmt.Sprintf("bench %d", i)))
		mustOK(b, cs, netproto.ToolCommit, `{}`)
	}
}

func sha256Sum(s string) [32]byte { return sha256.Sum256([]byte(s)) }

// writeResource sends resources/write.
func writeResource(cs *mcp.ClientSession, p *server.WriteParams) error {
	_, err := mcp.CallCustomMethod[*server.WriteParams, *server.WriteResult](context.Background(), cs, server.MethodResourcesWrite, p)
	return err
}
