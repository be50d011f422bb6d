package server_test

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/server/servertest"
	"github.com/netmcp/netmcp/transport"
)

// rawClient speaks protocol 2026-07-28 over HTTP as raw JSON-RPC: no
// initialize, no session; version, capabilities and client info in _meta.
type rawClient struct {
	t     testing.TB
	url   string
	token string // bearer token, "" for none
	caps  string // client capabilities JSON
	id    int
}

// rawReply is one JSON-RPC response.
type rawReply struct {
	Result map[string]any `json:"result"`
	Error  *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

// structured returns the result's structuredContent.
func (r rawReply) structured() map[string]any {
	m, _ := r.Result["structuredContent"].(map[string]any)
	return m
}

// send posts one request whose params are params (a JSON object without
// _meta) plus meta's members in _meta.
func (c *rawClient) send(method, params, meta string) rawReply {
	c.t.Helper()
	c.id++
	caps := c.caps
	if caps == "" {
		caps = "{}"
	}
	m := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps +
		`,"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}`
	if meta != "" {
		m += "," + meta
	}
	p := strings.TrimSpace(params)
	if p == "" || p == "{}" {
		p = `{"_meta":{` + m + `}}`
	} else {
		p = strings.TrimSuffix(p, "}") + `,"_meta":{` + m + `}}`
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": json.RawMessage(p)})
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, p, err)
	}
	req, _ := http.NewRequest(http.MethodPost, c.url, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	if err := transport.SetStandardHeaders(req.Header, body); err != nil {
		c.t.Fatal(err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var r rawReply
	if err := json.Unmarshal(b, &r); err != nil {
		c.t.Fatalf("%s: status %d: %v: %s (sent %s)", method, resp.StatusCode, err, b, body)
	}
	return r
}

// call calls a tool and fails the test on a JSON-RPC or tool error.
func (c *rawClient) call(tool, args string) map[string]any {
	c.t.Helper()
	r := c.send("tools/call", `{"name":"`+tool+`","arguments":`+args+`}`, "")
	if r.Error != nil {
		c.t.Fatalf("%s %s: error %d %s %v", tool, args, r.Error.Code, r.Error.Message, r.Error.Data)
	}
	if r.Result["isError"] == true {
		c.t.Fatalf("%s %s: tool error %v", tool, args, r.Result)
	}
	return r.structured()
}

// callErr calls a tool that must fail with code, its detail containing want.
func (c *rawClient) callErr(tool, args string, code int, want string) {
	c.t.Helper()
	r := c.send("tools/call", `{"name":"`+tool+`","arguments":`+args+`}`, "")
	if r.Error == nil {
		c.t.Fatalf("%s %s: result %v, want error %d", tool, args, r.Result, code)
	}
	detail, _ := r.Error.Data["detail"].(string)
	if r.Error.Code != code || !strings.Contains(r.Error.Message+" "+detail, want) {
		c.t.Fatalf("%s %s: error %d %q %q, want %d naming %q", tool, args, r.Error.Code, r.Error.Message, detail, code, want)
	}
}

// serveHTTP serves s over Streamable HTTP for the test and returns /mcp's URL.
func serveHTTP(t testing.TB, s *server.Server) string {
	t.Helper()
	ts := httptest.NewServer(transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return s.MCP() }, transport.HTTPOptions{}))
	t.Cleanup(ts.Close)
	return ts.URL + transport.Path
}

func newHandleServer(t *testing.T, drv *servertest.Device, opts server.Options) *server.Server {
	t.Helper()
	if opts.Approver == nil {
		opts.Approver = server.AllowAll
	}
	s, err := server.New(drv, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func withHandle(args, handle string) string {
	if args == "{}" {
		return `{"handle":"` + handle + `"}`
	}
	return strings.TrimSuffix(args, "}") + `,"handle":"` + handle + `"}`
}

// TestStatelessHandleWorkflow: on protocol 2026-07-28 over HTTP, each
// request a session of its own, the candidate lives under a handle the
// first edit mints: edits, a dry run, a confirmed commit and its confirm
// act on it, and the commit applies the handle's edits once.
func TestStatelessHandleWorkflow(t *testing.T) {
	drv := servertest.New()
	dir := t.TempDir()
	s := newHandleServer(t, drv, server.Options{StateDir: dir})
	c := &rawClient{t: t, url: serveHTTP(t, s)}

	edit := `{"edit":[{"path":"/openconfig-interfaces:interfaces/interface[name='Lo1']/config/description","value":"one"}]}`
	res := c.call(netproto.ToolYangEdit, edit)
	h, _ := res["handle"].(string)
	if !strings.HasPrefix(h, "nh_") {
		t.Fatalf("yang.edit result %v: no handle", res)
	}
	if exp, err := time.Parse(time.RFC3339, res["handleExpires"].(string)); err != nil || !exp.After(time.Now()) {
		t.Errorf("handleExpires %v: %v", res["handleExpires"], err)
	}
	// The record is in the state directory, named by the token's digest:
	// the directory does not hold the handle itself.
	// (beside it: the lock file that orders the handle's changes)
	ents, _ := filepath.Glob(filepath.Join(dir, "handles", "*.json"))
	if len(ents) != 1 {
		t.Fatalf("state directory holds %d handle records, want 1", len(ents))
	}
	rec, _ := os.ReadFile(ents[0])
	if strings.Contains(string(rec), h) || strings.Contains(filepath.Base(ents[0]), h[3:]) {
		t.Errorf("the handle record holds the handle itself: %s", rec)
	}

	res = c.call(netproto.ToolCLIConfigure, withHandle(`{"commands":["interface Lo2","description two"]}`, h))
	if res["handle"] != h {
		t.Errorf("cli.configure with the handle returned handle %v, want the same", res["handle"])
	}
	if got := drv.Locker(); !strings.HasPrefix(got, "h-") {
		t.Errorf("candidate locked by %q, want the handle's owner", got)
	}
	if r := c.call(netproto.ToolCommit, withHandle(`{"dryRun":true}`, h)); r["status"] != "dry-run" {
		t.Errorf("dry run: %v", r)
	}
	// Without its handle a commit does not know which candidate to commit.
	c.callErr(netproto.ToolCommit, `{"confirmed":60}`, -32602, "handle")

	r := c.call(netproto.ToolCommit, withHandle(`{"confirmed":60}`, h))
	if r["status"] != "committed" {
		t.Fatalf("confirmed commit: %v", r)
	}
	if r := c.call(netproto.ToolCommit, `{"confirm":true}`); r["status"] != "confirmed" {
		t.Errorf("confirm: %v", r)
	}
	hist, _ := drv.History(t.Context())
	if len(hist) != 1 || !strings.HasPrefix(hist[0].Session, "h-") {
		t.Fatalf("history %+v, want one commit by the handle's owner", hist)
	}
	// The commit consumed the candidate: a second one has nothing to apply.
	if r := c.call(netproto.ToolCommit, withHandle(`{}`, h)); r["status"] != "no-changes" {
		t.Errorf("second commit: %v, want no-changes", r)
	}
	if r := c.call(netproto.ToolRollback, `{}`); r["status"] != "rolled-back" {
		t.Errorf("rollback: %v", r)
	}

	// Handles this server did not issue.
	c.callErr(netproto.ToolCommit, withHandle(`{}`, "nope"), -32602, "not a handle")
	c.callErr(netproto.ToolCommit, withHandle(`{}`, "nh_"+strings.Repeat("A", 26)), netproto.CodeConfigIncompatible, "unknown or expired")
	// resources/write stages a candidate no handle carries.
	if r := c.send("resources/write", `{"uri":"network:///config/candidate","text":"x"}`, ""); r.Error == nil || r.Error.Code != netproto.CodeConfigIncompatible {
		t.Errorf("resources/write: %+v, want -32084", r)
	}
}

// TestHandleContinuesOnAnotherServer: a candidate started on one server is
// committed through another run of the server with the same state
// directory (a restart, or another copy behind a load balancer), which
// rebuilds the candidate from the handle's record.
func TestHandleContinuesOnAnotherServer(t *testing.T) {
	dir := t.TempDir()
	drv1, drv2 := servertest.New(), servertest.New()
	c1 := &rawClient{t: t, url: serveHTTP(t, newHandleServer(t, drv1, server.Options{StateDir: dir}))}
	c2 := &rawClient{t: t, url: serveHTTP(t, newHandleServer(t, drv2, server.Options{StateDir: dir}))}

	res := c1.call(netproto.ToolYangEdit, `{"edit":[{"path":"/a","value":1}]}`)
	h := res["handle"].(string)
	c1.call(netproto.ToolYangEdit, withHandle(`{"edit":[{"path":"/b","value":2}]}`, h))

	// The second server rebuilds the candidate from the record: both
	// edits, once each.
	c2.call(netproto.ToolCommit, withHandle(`{"dryRun":true}`, h))
	d, _ := drv2.Diff(t.Context(), device.Owner{})
	if len(d.Changes) != 2 || d.Changes[0].Path != "/a" || d.Changes[1].Path != "/b" {
		t.Fatalf("second server's candidate %+v, want the edits /a and /b", d.Changes)
	}
	r := c2.call(netproto.ToolCommit, withHandle(`{}`, h))
	if r["status"] != "committed" {
		t.Fatalf("commit on the second server: %v", r)
	}
	if hist, _ := drv2.History(t.Context()); len(hist) != 1 {
		t.Fatalf("second server's device: %d commits, want 1", len(hist))
	}
	if hist, _ := drv1.History(t.Context()); len(hist) != 0 {
		t.Errorf("first server's device: %d commits, want 0", len(hist))
	}
}

// TestHandleExpires: a handle unused past Options.HandleTTL is refused and
// its candidate released.
func TestHandleExpires(t *testing.T) {
	drv := servertest.New()
	c := &rawClient{t: t, url: serveHTTP(t, newHandleServer(t, drv, server.Options{StateDir: t.TempDir(), HandleTTL: time.Nanosecond}))}
	h := c.call(netproto.ToolYangEdit, `{"edit":[{"path":"/a","value":1}]}`)["handle"].(string)
	c.callErr(netproto.ToolCommit, withHandle(`{}`, h), netproto.CodeConfigIncompatible, "unknown or expired")
	if got := drv.Locker(); got != "" {
		t.Errorf("candidate still locked by %q after its handle expired", got)
	}
}

// TestHandleBoundToIdentity: a handle acts only for the identity it was
// issued to; another caller presenting it is refused and changes nothing,
// and its owner then commits the change on the simulated device.
func TestHandleBoundToIdentity(t *testing.T) {
	env := newSecEnv(t, envConfig{file: matrixPolicy, server: func(o *server.Options) {
		o.Approver, o.StateDir = server.AllowAll, t.TempDir()
	}})
	otto := &rawClient{t: t, url: env.url, token: env.token("otto", "", time.Hour)}
	ada := &rawClient{t: t, url: env.url, token: env.token("ada", "", time.Hour)}

	h := otto.call(netproto.ToolYangEdit, loopEdit("by otto"))["handle"].(string)
	ada.callErr(netproto.ToolYangEdit, withHandle(loopEdit("by ada"), h), netproto.CodeAccessDenied, "another identity")
	ada.callErr(netproto.ToolCommit, withHandle(`{}`, h), netproto.CodeAccessDenied, "another identity")

	if r := otto.call(netproto.ToolCommit, withHandle(`{}`, h)); r["status"] != "committed" {
		t.Fatalf("commit by the handle's owner: %v", r)
	}
	got := otto.call(netproto.ToolYangGet, `{"path":"`+pathLo100+`/config/description","datastore":"running"}`)
	if b, _ := json.Marshal(got["data"]); !strings.Contains(string(b), "by otto") || strings.Contains(string(b), "by ada") {
		t.Errorf("running description %s, want otto's only", b)
	}
}

// TestHandleChunkedUpload: on protocol 2026-07-28 over HTTP a chunked
// network.file.push gathers its chunks under a handle, across two copies
// of the server with one state directory (or in memory); the last chunk
// writes the candidate-config as the handle's candidate, and the other
// copy commits it, rebuilding the candidate from the file kept with the
// handle.
func TestHandleChunkedUpload(t *testing.T) {
	for _, mode := range []string{"state-dir", "memory"} {
		t.Run(mode, func(t *testing.T) { testChunkedUpload(t, mode == "memory") })
	}
}

// testChunkedUpload runs TestHandleChunkedUpload with two copies of the
// server on a state directory or, in memory, with one.
func testChunkedUpload(t *testing.T, memory bool) {
	dir := t.TempDir()
	if memory {
		dir = ""
	}
	serve := func() *rawClient {
		s, err := server.New(simR1(t), server.Options{Approver: server.AllowAll, StateDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return &rawClient{t: t, url: serveHTTP(t, s)}
	}
	c1, c2 := serve(), (*rawClient)(nil)
	if c2 = c1; !memory {
		c2 = serve()
	}
	running := c1.call(netproto.ToolFilePull, `{"name":"running-config"}`)["content"].(string)
	text := strings.Replace(running, "sysname r1", "sysname r1-chunked", 1)
	parts := []string{text[:len(text)/3], text[len(text)/3 : 2*len(text)/3], text[2*len(text)/3:]}
	push := func(c *rawClient, i, offset int, handle string) map[string]any {
		t.Helper()
		args := map[string]any{"name": "candidate-config", "content": parts[i], "offset": offset, "more": i < 2}
		if i == 2 {
			args["sha256"] = fmt.Sprintf("%x", sha256.Sum256([]byte(text)))
		}
		if handle != "" {
			args["handle"] = handle
		}
		b, _ := json.Marshal(args)
		return c.call(netproto.ToolFilePush, string(b))
	}
	out := push(c1, 0, 0, "")
	h, _ := out["handle"].(string)
	if out["status"] != "staged" || h == "" {
		t.Fatalf("first chunk: %v", out)
	}
	// A chunk at the wrong offset is refused, on either copy.
	c2.callErr(netproto.ToolFilePush, withHandle(`{"name":"candidate-config","content":"x","offset":1,"more":true}`, h), -32602, "received so far")
	if out := push(c2, 1, len(parts[0]), h); out["status"] != "staged" || out["nextOffset"] != float64(len(parts[0])+len(parts[1])) {
		t.Fatalf("second chunk on the other copy: %v", out)
	}
	if out := push(c1, 2, len(parts[0])+len(parts[1]), h); out["status"] != "written" || out["size"] != float64(len(text)) {
		t.Fatalf("last chunk: %v", out)
	}
	if r := c2.call(netproto.ToolCommit, withHandle(`{}`, h)); r["status"] != "committed" {
		t.Fatalf("commit on the other copy: %v", r)
	}
	got := c2.call(netproto.ToolYangGet, `{"path":"/openconfig-system:system/config/hostname","datastore":"running"}`)
	if !strings.Contains(fmt.Sprint(got["data"]), "r1-chunked") {
		t.Errorf("running hostname %v, want the uploaded one", got["data"])
	}
}
