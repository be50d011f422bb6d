package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// TestMain removes the binary netmcpBinary built, if any.
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// netmcpBinary builds this command once per test run, into a directory of
// its own: two test runs (two checkouts) never run each other's binary.
func netmcpBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "netmcp-test-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "netmcp")
		// Built as scripts/build.sh builds a release: static (no cgo),
		// which is also what the start-up benchmarks measure.
		build := exec.Command("go", "build", "-trimpath", "-o", binPath, ".")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := build.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// child is `netmcp serve --device sim://r1 --state-dir DIR` spoken to over stdio.
type child struct {
	cmd *exec.Cmd
	cs  *mcp.ClientSession
}

func startChild(t *testing.T, dir string) *child {
	t.Helper()
	cmd := exec.Command(netmcpBinary(t), "serve", "--device", "sim://r1", "--state-dir", dir)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "crashtest", Version: "1"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, nil)
	if err != nil {
		t.Fatalf("start netmcp serve: %v", err)
	}
	return &child{cmd: cmd, cs: cs}
}

// kill SIGKILLs the child: no chance to clean up.
func (c *child) kill() {
	_ = c.cmd.Process.Kill()
	_ = c.cmd.Wait()
	c.cs.Close()
}

// approved calls a write tool through the token path: the first call is
// refused pending approval, the identical call with the token runs.
func (c *child) approved(ctx context.Context, tool string, args map[string]any) (map[string]any, error) {
	res, out, err := c.call(ctx, tool, args)
	if err == nil && out["status"] == server.StatusApprovalRequired {
		with := map[string]any{"approvalToken": out["approvalToken"]}
		for k, v := range args {
			with[k] = v
		}
		res, out, err = c.call(ctx, tool, with)
	}
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, fmt.Errorf("%s: %s", tool, res.Content[0].(*mcp.TextContent).Text)
	}
	return out, nil
}

// call runs one tools/call and decodes its structured content; the error
// of a JSON-RPC error response carries the error's data.
func (c *child) call(ctx context.Context, tool string, args map[string]any) (*mcp.CallToolResult, map[string]any, error) {
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			return nil, nil, fmt.Errorf("%w: %s", err, je.Data)
		}
		return nil, nil, err
	}
	var out map[string]any
	_ = remarshal(res.StructuredContent, &out)
	return res, out, nil
}

const lo100 = "/openconfig-interfaces:interfaces/interface[name='LoopBack100']"

// hasLo100 reports whether running holds LoopBack100, and its description.
func (c *child) hasLo100(t *testing.T) (bool, string) {
	t.Helper()
	res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: netproto.ToolYangGet,
		Arguments: map[string]any{"path": lo100 + "/config/description", "datastore": "running"}})
	if err != nil {
		return false, "" // no data at the path
	}
	var out struct{ Data any }
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &out)
	return !res.IsError, fmt.Sprint(out.Data)
}

func (c *child) history(t *testing.T) []device.CommitInfo {
	t.Helper()
	res, err := c.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: server.URICommitHistory})
	if err != nil {
		t.Fatal(err)
	}
	var h struct{ Commits []device.CommitInfo }
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &h); err != nil {
		t.Fatal(err)
	}
	return h.Commits
}

// waitGone polls until LoopBack100 is no longer running or limit passes.
func (c *child) waitGone(t *testing.T, limit time.Time) bool {
	for time.Now().Before(limit) {
		if ok, _ := c.hasLo100(t); !ok {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// TestCrashConfirmedCommit: a confirmed commit survives SIGKILL; after a
// restart on the same state directory it is rolled back at its deadline,
// and the history keeps the commit.
func TestCrashConfirmedCommit(t *testing.T) {
	dir := t.TempDir()
	c := startChild(t, dir)
	ctx := context.Background()
	if _, err := c.approved(ctx, netproto.ToolYangEdit, map[string]any{"edit": []any{map[string]any{"path": lo100,
		"value": map[string]any{"config": map[string]any{"name": "LoopBack100", "type": "iana-if-type:softwareLoopback", "description": "crash"}}}}}); err != nil {
		t.Fatal(err)
	}
	out, err := c.approved(ctx, netproto.ToolCommit, map[string]any{"confirmed": 3, "comment": "before the crash"})
	if err != nil {
		t.Fatal(err)
	}
	deadline, _ := time.Parse(time.RFC3339Nano, out["deadline"].(string))
	id := out["commit-id"].(string)
	c.kill()

	c = startChild(t, dir)
	defer c.kill()
	if ok, desc := c.hasLo100(t); !ok || desc != "crash" {
		t.Fatalf("after restart before the deadline: running has LoopBack100 = %v (%q), want the pending commit", ok, desc)
	}
	if !c.waitGone(t, deadline.Add(3*time.Second)) {
		t.Fatal("the restarted server did not roll the pending commit back at its deadline")
	}
	if late := time.Since(deadline); late < -100*time.Millisecond {
		t.Fatalf("rolled back %v before the deadline", -late)
	}
	h := c.history(t)
	if len(h) != 1 || h[0].ID != id || h[0].Status != device.StatusRolledBack || h[0].Comment != "before the crash" {
		t.Fatalf("history after the crash: %+v", h)
	}
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: netproto.ToolCommit, Arguments: map[string]any{"confirm": true, "approvalToken": "x"}})
	if err == nil && !res.IsError {
		t.Fatal("a confirm after the automatic rollback succeeded")
	}
	// Killed again after the deadline: the rollback stays, the history too.
	c.kill()
	c = startChild(t, dir)
	if ok, _ := c.hasLo100(t); ok {
		t.Fatal("a rolled-back commit came back after a restart")
	}
	if h := c.history(t); len(h) != 1 {
		t.Fatalf("history after a second restart: %+v", h)
	}
}

// TestCrashStress kills the server at varied moments around a confirmed
// commit, 20 times over four state directories, and checks that no
// acknowledged commit is lost from the history, that running is the
// pending commit exactly until its deadline, and that nothing else is applied.
func TestCrashStress(t *testing.T) {
	const workers, perWorker = 4, 5
	start := time.Now()
	var mu sync.Mutex
	stats := map[string]int{}
	t.Run("workers", func(t *testing.T) {
		for w := range workers {
			t.Run(fmt.Sprint(w), func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				acked := map[string]bool{}
				for i := range perWorker {
					moment := []string{"before-commit", "during-commit", "after-ack", "after-ack", "during-commit"}[(w+i)%5]
					desc := fmt.Sprintf("w%d-i%d", w, i)
					c := startChild(t, dir)
					ctx := context.Background()
					if _, err := c.approved(ctx, netproto.ToolYangEdit, map[string]any{"edit": []any{map[string]any{"path": lo100,
						"value": map[string]any{"config": map[string]any{"name": "LoopBack100", "type": "iana-if-type:softwareLoopback", "description": desc}}}}}); err != nil {
						t.Error(err)
						c.kill()
						return
					}
					var deadline time.Time
					switch moment {
					case "before-commit":
						c.kill()
					case "during-commit":
						done := make(chan map[string]any, 1)
						go func() {
							out, _ := c.approved(ctx, netproto.ToolCommit, map[string]any{"confirmed": 2})
							done <- out
						}()
						time.Sleep(time.Duration(i*3) * time.Millisecond)
						c.kill()
						if out := <-done; out != nil && out["commit-id"] != nil {
							acked[out["commit-id"].(string)] = true
							deadline, _ = time.Parse(time.RFC3339Nano, out["deadline"].(string))
						}
					case "after-ack":
						out, err := c.approved(ctx, netproto.ToolCommit, map[string]any{"confirmed": 2})
						if err != nil {
							t.Error(err)
							c.kill()
							return
						}
						acked[out["commit-id"].(string)] = true
						deadline, _ = time.Parse(time.RFC3339Nano, out["deadline"].(string))
						c.kill()
					}
					c = startChild(t, dir)
					h := c.history(t)
					inHistory := map[string]bool{}
					for _, ci := range h {
						inHistory[ci.ID] = true
					}
					for id := range acked {
						if !inHistory[id] {
							t.Errorf("%s: acknowledged commit %s lost from the history", desc, id)
						}
					}
					ok, got := c.hasLo100(t)
					if ok && got != desc {
						t.Errorf("%s: running has LoopBack100 %q, a configuration never committed in this round", desc, got)
					}
					if !deadline.IsZero() && time.Until(deadline) > 300*time.Millisecond && !ok {
						t.Errorf("%s: the acknowledged pending commit is not running after the restart", desc)
					}
					if ok && len(h) == 0 {
						t.Errorf("%s: LoopBack100 runs with no commit in the history", desc)
					}
					if !c.waitGone(t, time.Now().Add(4*time.Second)) {
						t.Errorf("%s: not rolled back at the deadline after the restart", desc)
					}
					for _, ci := range c.history(t) {
						if ci.Status != device.StatusRolledBack {
							t.Errorf("%s: commit %s has status %s after its deadline", desc, ci.ID, ci.Status)
						}
					}
					c.kill()
					mu.Lock()
					stats[moment]++
					if ok {
						stats["pending-after-restart"]++
					}
					mu.Unlock()
				}
				mu.Lock()
				stats["acknowledged"] += len(acked)
				mu.Unlock()
			})
		}
	})
	t.Logf("%d kills in %v: %v", workers*perWorker, time.Since(start).Round(time.Millisecond), stats)
	if d := time.Since(start); d > 60*time.Second {
		t.Errorf("stress took %v, over the 60 s budget", d)
	}
	if !strings.Contains(fmt.Sprint(stats), "after-ack") {
		t.Error("no kill after an acknowledged commit")
	}
}

// remarshal copies from into to through JSON.
func remarshal(from, to any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, to)
}
