package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/internal/syncbuf"
)

// tsClient locates Node 22 and @modelcontextprotocol/client, which
// scripts/install-deps.sh installs into .tools/; it skips the test when
// they are absent, and fails it under CI, which installs them.
func tsClient(t *testing.T) (node, clientDir string) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	node = filepath.Join(root, ".tools", "node22", "node_modules", ".bin", "node")
	clientDir = filepath.Join(root, ".tools", "mcp", "node_modules", "@modelcontextprotocol", "client")
	missing := func(what string) {
		msg := what + "; run scripts/install-deps.sh"
		if v := strings.ToLower(os.Getenv("CI")); v != "" && v != "false" && v != "0" {
			t.Fatal(msg + " (CI is set: this check must run)")
		}
		t.Skip(msg)
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil || !strings.HasPrefix(strings.TrimSpace(string(out)), "v22.") {
		missing("Node 22 is not installed at " + node)
	}
	if _, err := os.Stat(filepath.Join(clientDir, "dist", "index.mjs")); err != nil {
		missing("@modelcontextprotocol/client is not installed in " + clientDir)
	}
	return node, clientDir
}

// tsOutcome is the JSON line testdata/tsclient.mjs prints.
type tsOutcome struct {
	ProtocolVersion string   `json:"protocolVersion"`
	Resources       []string `json:"resources"`
	Read            *struct {
		URI      string `json:"uri"`
		Contents int    `json:"contents"`
	} `json:"read"`
	Tools int `json:"tools"`
	Call  *struct {
		IsError    bool `json:"isError"`
		Structured bool `json:"structured"`
	} `json:"call"`
	Error string `json:"error"`
}

// runNodeScript runs testdata/SCRIPT with node, env (beside this
// process's, node's directory first on PATH) and args, decodes the last
// line it prints into out, and returns what it wrote to stderr.
func runNodeScript(t *testing.T, node, script string, env []string, out any, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join("testdata", script)}, args...)...)
	cmd.Env = append(append(os.Environ(), env...), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.WaitDelay = 5 * time.Second
	var stderr syncbuf.Buffer
	cmd.Stderr = &stderr
	stdout, _ := cmd.Output()
	lines := strings.Split(strings.TrimSpace(string(stdout)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), out); err != nil {
		t.Fatalf("%s printed no outcome: %v\nstdout: %s\nstderr: %s", script, err, stdout, stderr.String())
	}
	return stderr.String()
}

// runTSClient runs testdata/tsclient.mjs with the client's version
// negotiation ("" for the 2025 handshake) and returns its outcome.
func runTSClient(t *testing.T, node, clientDir, version string, args ...string) tsOutcome {
	t.Helper()
	var o tsOutcome
	runNodeScript(t, node, "tsclient.mjs", []string{"MCP_CLIENT_DIR=" + clientDir, "MCP_VERSION=" + version}, &o, args...)
	return o
}

// TestTypeScriptClientRead connects the official TypeScript SDK 2 client
// to `netmcp serve` (the simulated r1) over stdio and HTTP, lists the
// resources, reads network:///interfaces, lists the tools and calls
// network.yang.get. The client pins protocol 2026-07-28, where it refuses
// any result without resultType, or negotiates it (server/discover); over
// HTTP, 2026-07-28 is served without a session beside the 2025 handshake's
// sessions on the same endpoint.
func TestTypeScriptClientRead(t *testing.T) {
	node, clientDir := tsClient(t)
	bin := netmcpBinary(t)
	serve := []string{bin, "serve", "--device", "sim://r1", "--no-state"}

	check := func(name string, o tsOutcome, wantVersion string) {
		t.Helper()
		if o.Error != "" || o.Read == nil || o.Read.Contents == 0 || o.Tools == 0 || o.Call == nil || o.Call.IsError || !o.Call.Structured {
			t.Errorf("%s: the read, the tool list or the call was refused or empty: %+v", name, o)
			return
		}
		if o.ProtocolVersion != wantVersion {
			t.Errorf("%s: protocol %q, want %q", name, o.ProtocolVersion, wantVersion)
		}
	}
	check("stdio, 2026-07-28 pinned", runTSClient(t, node, clientDir, "2026-07-28", append([]string{"stdio"}, serve...)...), "2026-07-28")
	check("stdio, automatic negotiation", runTSClient(t, node, clientDir, "auto", append([]string{"stdio"}, serve...)...), "2026-07-28")

	var stderr syncbuf.Buffer
	srv := exec.Command(bin, "serve", "--device", "sim://r1", "--no-state", "--listen", "127.0.0.1:0")
	srv.Stderr = &stderr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	re := regexp.MustCompile(`at (http://[0-9.:]+/mcp)`)
	var url string
	for deadline := time.Now().Add(20 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		t.Fatalf("no address announced: %q", stderr.String())
	}
	check("http, automatic negotiation", runTSClient(t, node, clientDir, "auto", "http", url), "2026-07-28")
	check("http, 2026-07-28 pinned", runTSClient(t, node, clientDir, "2026-07-28", "http", url), "2026-07-28")
	check("http, 2025 handshake", runTSClient(t, node, clientDir, "", "http", url), "2025-11-25")
}

// TestTypeScriptClientWrite: the official TypeScript SDK 2 client in its
// default mode over HTTP (protocol 2026-07-28, no session) edits the
// candidate of `netmcp serve` and commits it under the handle the edit
// returned, each write approved through input_required: the SDK answers
// with its elicitation handler and repeats the call. Between the edit and
// the commit, the client reads its handle in network:///handles.
func TestTypeScriptClientWrite(t *testing.T) {
	node, clientDir := tsClient(t)
	_, url := startHTTPServe(t, "--device", "sim://r1", "--state-dir", t.TempDir(), "--local-role", "operator")
	var o struct {
		ProtocolVersion string `json:"protocolVersion"`
		Asked           int    `json:"asked"`
		Prompt          string `json:"prompt"`
		Handle          string `json:"handle"`
		HandlesText     string `json:"handlesText"`
		Commit          string `json:"commit"`
		Description     any    `json:"description"`
		Error           string `json:"error"`
	}
	stderr := runNodeScript(t, node, "tswrite.mjs", []string{"MCP_CLIENT_DIR=" + clientDir}, &o, url)
	if o.Error != "" || o.ProtocolVersion != "2026-07-28" || o.Asked != 2 || o.Handle == "" || o.Commit != "committed" || o.Description != "from typescript" {
		t.Fatalf("TypeScript client: %+v\nstderr: %s", o, stderr)
	}
	if !strings.Contains(o.Prompt, "commit") {
		t.Errorf("the operator was asked %q, not about the commit", o.Prompt)
	}
	// network:///handles, read between the edit and the commit, lists the
	// edit's handle (its kind, device, identity and expiry), never the token.
	var listed struct {
		Handles []struct{ ID, Kind, Device, Identity, Expires string } `json:"handles"`
	}
	if err := json.Unmarshal([]byte(o.HandlesText), &listed); err != nil || len(listed.Handles) != 1 {
		t.Fatalf("network:///handles read %q (%v), want one handle", o.HandlesText, err)
	}
	if h := listed.Handles[0]; h.Kind != "candidate" || h.Device != "r1" || h.Identity == "" || h.Expires == "" || !strings.HasPrefix(h.ID, "h-") {
		t.Errorf("network:///handles lists %+v, want the candidate on r1 with its identity and expiry", h)
	}
	if strings.Contains(o.HandlesText, o.Handle) || strings.Contains(o.HandlesText, strings.TrimPrefix(o.Handle, "nh_")) {
		t.Errorf("network:///handles shows the token: %s", o.HandlesText)
	}
}

// TestTypeScriptClientTask: the official TypeScript SDK 2 client, with
// the official Tasks extension client (@modelcontextprotocol/ext-tasks),
// runs a long ping of `netmcp serve` (the simulator paced in real time)
// as a task on protocol 2026-07-28 over HTTP, sees its first reply as the
// task's status message, and cancels it: the server then reports the task
// cancelled. How long that took is logged, not asserted.
func TestTypeScriptClientTask(t *testing.T) {
	node, clientDir := tsClient(t)
	tasksDir := filepath.Join(filepath.Dir(clientDir), "ext-tasks")
	if _, err := os.Stat(filepath.Join(tasksDir, "dist", "client", "index.js")); err != nil {
		if v := strings.ToLower(os.Getenv("CI")); v != "" && v != "false" && v != "0" {
			t.Fatal("@modelcontextprotocol/ext-tasks is not installed in " + tasksDir + " (CI is set: this check must run)")
		}
		t.Skip("@modelcontextprotocol/ext-tasks is not installed in " + tasksDir + "; run scripts/install-deps.sh")
	}
	_, url := startHTTPServe(t, "--device", "sim://r1?realtime=1", "--no-state", "--local-role", "operator")
	var o struct {
		ProtocolVersion string `json:"protocolVersion"`
		Kind            string `json:"kind"`
		StatusMessage   string `json:"statusMessage"`
		Outcome         string `json:"outcome"`
		ServerStatus    string `json:"serverStatus"`
		CancelledMs     *int   `json:"cancelledMs"`
		Error           string `json:"error"`
	}
	stderr := runNodeScript(t, node, "tstask.mjs", []string{"MCP_CLIENT_DIR=" + clientDir, "MCP_TASKS_DIR=" + tasksDir}, &o, url, "10.3.0.10")
	if o.Error != "" || o.ProtocolVersion != "2026-07-28" || o.Kind != "task" || !strings.Contains(o.StatusMessage, "bytes from 10.3.0.10") ||
		o.Outcome != "cancelled" || o.ServerStatus != "cancelled" || o.CancelledMs == nil {
		t.Fatalf("TypeScript client, ping as a task: %+v\nstderr: %s", o, stderr)
	}
	t.Logf("tasks/cancel to a cancelled task on the server: %d ms", *o.CancelledMs)
}
