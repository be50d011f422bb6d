package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/redact"
	"github.com/netmcp/netmcp/server"
)

// collector is a TCP syslog collector that keeps everything it receives.
type collector struct {
	ln  net.Listener
	mu  sync.Mutex
	buf strings.Builder
	wg  sync.WaitGroup
}

func newCollector(t *testing.T) *collector {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{ln: ln}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c.wg.Add(1)
			go func() {
				defer c.wg.Done()
				b, _ := io.ReadAll(conn)
				c.mu.Lock()
				c.buf.Write(b)
				c.mu.Unlock()
			}()
		}
	}()
	return c
}

func (c *collector) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

// TestSecretsNeverReachAudit plants a plain secret through
// network.yang.edit at a secret leaf (and through CLI lines and a file push)
// as a viewer (refused), an operator (held for approval) and an admin
// (held for approval): the audit log, its syslog export and the server's
// log must not carry it. An oversized request is recorded
// as a bounded digest.
func TestSecretsNeverReachAudit(t *testing.T) {
	col := newCollector(t)
	sink, err := audit.NewSyslog(audit.SyslogConfig{Network: "tcp", Addr: col.ln.Addr().String(), Hostname: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	env := newSecEnv(t, envConfig{file: matrixPolicy, sinks: []audit.Sink{sink}})
	const planted = "Pl4nted-Secret!77"
	edits := []map[string]any{
		{"edit": []any{map[string]any{"path": "/openconfig-system:system/aaa/authentication/users/user[username='admin']/config/password", "value": planted}}},
		{"edit": []any{map[string]any{"path": "/openconfig-system:system/aaa/authentication/users/user[username='admin']/config", "value": map[string]any{"password": planted}}}},
		{"edit": []any{map[string]any{"path": "/ietf-snmp:snmp/community[index='c9']/text-name", "value": planted}}},
	}
	for _, who := range []string{"vera", "otto", "ada"} {
		cs, _ := env.session(env.token(who, "", time.Hour), nil)
		for _, e := range edits {
			callTool(cs, netproto.ToolYangEdit, e)
		}
		callTool(cs, netproto.ToolCLIConfigure, map[string]any{"commands": []string{"local-user admin password irreversible-cipher " + planted}})
		callTool(cs, netproto.ToolFilePush, map[string]any{"name": "candidate-config", "content": "snmp-agent community read cipher " + planted + "\n"})
	}
	// An oversized request: its record is a digest, not its 3 MB.
	viewer, _ := env.session(env.token("vera", "", time.Hour), nil)
	before := fileSize(t, env.auditPath)
	big := strings.Repeat("display version ", 3<<20/16)
	for range 5 {
		callTool(viewer, netproto.ToolCLIConfigure, map[string]any{"lines": big})
	}
	if grown := fileSize(t, env.auditPath) - before; grown > 5*4*server.MaxAuditArguments {
		t.Errorf("5 refused 3 MB requests grew the audit log by %d bytes", grown)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := sink.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	sink.Close()
	b, err := os.ReadFile(env.auditPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"digest"`) {
		t.Error("no digest recorded for the oversized requests")
	}
	if !strings.Contains(string(b), "text-name") || !strings.Contains(string(b), "netmcp/approval") {
		t.Fatal("the audit log lacks the edits and approval decisions: the test did not reach them")
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(col.String(), "text-name") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	for what, text := range map[string]string{"audit log": string(b), "syslog export": col.String(), "server log": env.logs.String()} {
		if strings.Contains(text, planted) {
			i := strings.Index(text, planted)
			t.Errorf("the planted secret is in the %s: ...%s...", what, text[max(0, i-300):i])
		}
	}
	if !strings.Contains(col.String(), "text-name") {
		t.Error("the syslog collector received no record of the edits")
	}
	if _, err := audit.Verify(env.auditPath); err != nil {
		t.Errorf("audit chain: %v", err)
	}
	var rec map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("audit line is not JSON: %v", err)
		}
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestAuditCorrelationID checks that the correlation id a controller puts
// in a request's _meta is recorded on the request and response records, and
// that an id that is not printable ASCII of a sane length is not.
func TestAuditCorrelationID(t *testing.T) {
	env := newSecEnv(t, envConfig{file: matrixPolicy})
	cs, _ := env.session(env.token("vera", "", time.Hour), nil)
	for _, id := range []string{"intent-7f3a", "bad id\nwith newline", strings.Repeat("x", netproto.MaxCorrelationID+1)} {
		p := &mcp.CallToolParams{Name: netproto.ToolYangGet, Arguments: map[string]any{"path": "/ietf-interfaces:interfaces"}}
		p.Meta = mcp.Meta{netproto.MetaCorrelationID: id}
		if _, err := cs.CallTool(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(env.auditPath)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec audit.Record
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		switch rec.Correlation {
		case "":
		case "intent-7f3a":
			n++
		default:
			t.Errorf("recorded correlation id %q", rec.Correlation)
		}
	}
	if n != 2 {
		t.Errorf("%d records carry the correlation id, want 2 (request and response)", n)
	}
	if _, err := audit.Verify(env.auditPath); err != nil {
		t.Fatal(err)
	}
}

// TestApprovalQuestionMasksSecrets: an admin whose client answers
// elicitations writes a password and an SNMP community with
// network.yang.edit and approves each. The approval question shows the
// arguments with those values masked, names in its _meta the correlation
// id of the call it asks about, and the audit log holds neither value; an
// answer a proxy attributes to its own caller (the controller) is recorded
// with that caller.
func TestApprovalQuestionMasksSecrets(t *testing.T) {
	env := newSecEnv(t, envConfig{file: matrixPolicy})
	const planted = "Pl4nted-Secret!77"
	type question struct {
		message, corr string
	}
	var mu sync.Mutex
	var asked []question
	rt := &bearerRT{base: http.DefaultTransport.(*http.Transport).Clone()}
	rt.token.Store(env.token("ada", "", time.Hour))
	host := mcp.NewClient(&mcp.Implementation{Name: "approver", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			corr, _ := r.Params.GetMeta()[netproto.MetaCorrelationID].(string)
			mu.Lock()
			asked = append(asked, question{r.Params.Message, corr})
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true},
				Meta: mcp.Meta{netproto.MetaAnsweredBy: "mtls:ops"}}, nil
		}})
	cs, err := host.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: env.url, HTTPClient: &http.Client{Transport: rt}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}) // elicitation needs a session
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	edits := []map[string]any{
		{"path": "/openconfig-system:system/aaa/authentication/users/user[username='admin']/config/password", "value": planted},
		{"path": "/openconfig-system:system/aaa/authentication/users/user[username='admin']/config", "value": map[string]any{"password": planted}},
		{"path": "/openconfig-system:system/snmp/communities/community[name='community1']/config/community-string", "value": planted},
	}
	for i, e := range edits {
		p := &mcp.CallToolParams{Name: netproto.ToolYangEdit, Arguments: map[string]any{"edit": []any{e}},
			Meta: mcp.Meta{netproto.MetaCorrelationID: fmt.Sprintf("edit-%d", i)}}
		if res, err := cs.CallTool(context.Background(), p); err != nil || res.IsError {
			t.Fatalf("edit %d: %v %+v", i, err, res)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != len(edits) {
		t.Fatalf("%d approval questions for %d edits", len(asked), len(edits))
	}
	for i, q := range asked {
		if strings.Contains(q.message, planted) || !strings.Contains(q.message, "Arguments:") || !strings.Contains(q.message, redact.Mask) {
			t.Errorf("question %d does not show the arguments masked: %s", i, q.message)
		}
		if want := fmt.Sprintf("edit-%d", i); q.corr != want {
			t.Errorf("question %d names correlation id %q, want the call's %q", i, q.corr, want)
		}
	}
	b, err := os.ReadFile(env.auditPath)
	if err != nil {
		t.Fatal(err)
	}
	if i := strings.Index(string(b), planted); i >= 0 {
		t.Errorf("the audit log holds the secret: ...%s", b[max(0, i-200):i])
	}
	if n := strings.Count(string(b), `"answeredBy":"mtls:ops"`); n != len(edits) {
		t.Errorf("%d answers recorded with the proxy's caller, want %d", n, len(edits))
	}
}
