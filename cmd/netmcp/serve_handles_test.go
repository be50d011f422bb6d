package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/internal/syncbuf"
	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
)

// startHTTPServe starts `netmcp serve` with args plus --listen
// 127.0.0.1:0 and returns the process and its /mcp URL.
func startHTTPServe(t *testing.T, args ...string) (*exec.Cmd, string) {
	t.Helper()
	var stderr syncbuf.Buffer
	srv := exec.Command(netmcpBinary(t), append(append([]string{"serve"}, args...), "--listen", "127.0.0.1:0")...)
	srv.Stderr = &stderr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	re := regexp.MustCompile(`at (http://[0-9.:]+/mcp)`)
	var url string
	testwait.Until(t, 20*time.Second, "netmcp serve announces its address", func() (bool, string) {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			url = m[1]
		}
		return url != "", stderr.String()
	})
	return srv, url
}

// TestServeHandleSurvivesRestart: the official Go SDK client in its
// default mode (protocol 2026-07-28 over HTTP, no session) edits the
// candidate of `netmcp serve` through the approval gate (input_required,
// answered by its elicitation handler); the server is SIGKILLed; a new
// process on the same state directory commits the handle's candidate,
// and the commit re-sent with the same idempotency key is answered from
// the first without a second commit or a second question.
func TestServeHandleSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	var asked atomic.Int32
	connect := func(url string) *mcp.ClientSession {
		t.Helper()
		c := mcp.NewClient(&mcp.Implementation{Name: "handle-test", Version: "1"}, &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked.Add(1)
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
			},
		})
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
			t.Fatalf("negotiated %s, want 2026-07-28", v)
		}
		return cs
	}
	call := func(cs *mcp.ClientSession, p *mcp.CallToolParams) (map[string]any, *mcp.CallToolResult) {
		t.Helper()
		res, err := cs.CallTool(context.Background(), p)
		if err != nil {
			var je *jsonrpc.Error
			if errors.As(err, &je) {
				t.Fatalf("%s: %v: %s", p.Name, err, je.Data)
			}
			t.Fatalf("%s: %v", p.Name, err)
		}
		if res.IsError {
			b, _ := json.Marshal(res.Content)
			t.Fatalf("%s: %s", p.Name, b)
		}
		var out map[string]any
		b, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(b, &out)
		return out, res
	}

	a, url := startHTTPServe(t, "--device", "sim://r1", "--state-dir", dir, "--local-role", "operator")
	out, _ := call(connect(url), &mcp.CallToolParams{Name: netproto.ToolYangEdit, Arguments: map[string]any{"edit": []any{map[string]any{
		"path": lo100, "value": map[string]any{"config": map[string]any{"name": "LoopBack100", "type": "iana-if-type:softwareLoopback", "description": "across a restart"}}}}}})
	handle, _ := out["handle"].(string)
	if handle == "" || asked.Load() != 1 {
		t.Fatalf("edit: %v after %d questions", out, asked.Load())
	}
	_ = a.Process.Kill()
	_ = a.Wait()

	_, url = startHTTPServe(t, "--device", "sim://r1", "--state-dir", dir, "--local-role", "operator")
	cs := connect(url)
	commit := &mcp.CallToolParams{Name: netproto.ToolCommit, Arguments: map[string]any{"handle": handle, "comment": "handle test"},
		Meta: mcp.Meta{server.MetaIdempotencyKey: "restart-commit-1"}}
	first, _ := call(cs, commit)
	if first["status"] != "committed" || asked.Load() != 2 {
		t.Fatalf("commit on the restarted server: %v after %d questions", first, asked.Load())
	}
	again, res := call(cs, commit)
	if again["commit-id"] != first["commit-id"] || res.Meta[server.MetaIdempotentReplay] != true || asked.Load() != 2 {
		t.Fatalf("commit re-sent: %v (meta %v) after %d questions, want the first commit %v replayed", again, res.Meta, asked.Load(), first["commit-id"])
	}
	got, _ := call(cs, &mcp.CallToolParams{Name: netproto.ToolYangGet, Arguments: map[string]any{"path": lo100 + "/config/description", "datastore": "running"}})
	if fmt.Sprint(got["data"]) != "across a restart" {
		t.Errorf("running description %v, want the handle's edit", got["data"])
	}
	hist, _ := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: server.URICommitHistory})
	var h struct{ Commits []struct{ Comment string } }
	_ = json.Unmarshal([]byte(hist.Contents[0].Text), &h)
	n := 0
	for _, c := range h.Commits {
		if c.Comment == "handle test" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d commits with the test's comment, want 1: %+v", n, h.Commits)
	}
}
