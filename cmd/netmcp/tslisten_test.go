package main

import (
	"bufio"
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
	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/lab/serve"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
)

// tsListenOutcome is the JSON line testdata/tslisten.mjs prints last.
type tsListenOutcome struct {
	ProtocolVersion string `json:"protocolVersion"`
	Honored         struct {
		ResourceSubscriptions []string `json:"resourceSubscriptions"`
	} `json:"honored"`
	Asked  int    `json:"asked"`
	Commit string `json:"commit"`
	Update *struct {
		URI  string         `json:"uri"`
		Meta map[string]any `json:"meta"`
	} `json:"update"`
	Closed string `json:"closed"`
	Error  string `json:"error"`
}

// check fails t unless o is a listen on protocol 2026-07-28 to uri that
// was acknowledged, got the URI's update tagged with the listen's id, and
// was closed by the client.
func (o tsListenOutcome) check(t *testing.T, uri, stderr string) {
	t.Helper()
	if o.Error != "" || o.ProtocolVersion != "2026-07-28" || len(o.Honored.ResourceSubscriptions) != 1 || o.Honored.ResourceSubscriptions[0] != uri ||
		o.Update == nil || o.Update.URI != uri || o.Closed != "local" {
		t.Fatalf("TypeScript client, subscriptions/listen to %s: %+v\nstderr: %s", uri, o, stderr)
	}
	if id, _ := o.Update.Meta["io.modelcontextprotocol/subscriptionId"].(string); !strings.HasPrefix(id, "listen:") {
		t.Errorf("update _meta %v: no subscription id of the client's listen", o.Update.Meta)
	}
}

// TestTypeScriptClientListen: the official TypeScript SDK 2 client in its
// default mode over HTTP (protocol 2026-07-28, no session: no
// resources/subscribe nor GET stream) listens to a resource with
// subscriptions/listen and is told of its change on the listen's stream,
// then closes the subscription:
//   - `netmcp serve` (the simulated r1): network:///interface/NAME, changed
//     by the client's own commit that shuts the interface down (approved
//     through input_required);
//   - `netmcp controller serve` over a lab served over gNMI (as `lab up
//     --gnmi` does): mcp://r1/... oper-status, changed by a link_down in
//     the lab, fed by the device's ON_CHANGE stream.
func TestTypeScriptClientListen(t *testing.T) {
	node, clientDir := tsClient(t)
	env := []string{"MCP_CLIENT_DIR=" + clientDir}

	t.Run("serve", func(t *testing.T) {
		_, url := startHTTPServe(t, "--device", "sim://r1", "--state-dir", t.TempDir(), "--local-role", "operator")
		const ifn = "GigabitEthernet0/0/0"
		uri := "network:///interface/" + ifn
		var o tsListenOutcome
		stderr := runNodeScript(t, node, "tslisten.mjs", env, &o, url, uri, "commit", ifn)
		o.check(t, uri, stderr)
		if o.Commit != "committed" || o.Asked != 2 {
			t.Errorf("the shutdown: commit %q after %d questions, want committed after 2", o.Commit, o.Asked)
		}
		if sub, _ := o.Update.Meta["ietf.org/mcp-net/subscriptionId"].(string); !strings.HasPrefix(sub, "sub-") {
			t.Errorf("update _meta %v: no MCP-NET subscriptionId", o.Update.Meta)
		}
	})

	t.Run("controller", func(t *testing.T) {
		lab, inv := gnmiLab(t)
		_, url := startHTTPController(t, inv)
		const uri = "mcp://r1/openconfig-interfaces:interfaces/interface=GigabitEthernet0%2F0%2F0/state/oper-status"
		line := startTSListen(t, node, env, url, uri, "wait")
		if l := line("listening line"); l != `{"listening":true}` {
			t.Fatalf("tslisten.mjs: %s", l)
		}
		if _, err := lab.Inject(topology.Fault{Name: "link_down", Target: "r1:GigabitEthernet0/0/0"}); err != nil {
			t.Fatal(err)
		}
		var o tsListenOutcome
		if err := json.Unmarshal([]byte(line("outcome")), &o); err != nil {
			t.Fatal(err)
		}
		o.check(t, uri, "")
		if o.Update.Meta["source"] != "on-change" {
			t.Errorf("update _meta %v: want source on-change (the device's gNMI stream)", o.Update.Meta)
		}
	})

	// A controller that stops (SIGINT) ends the listen gracefully: the
	// client gets the listen's result, not a dropped stream.
	t.Run("controller stops", func(t *testing.T) {
		_, inv := gnmiLab(t)
		ctl, url := startHTTPController(t, inv)
		const uri = "mcp://r1/openconfig-interfaces:interfaces"
		line := startTSListen(t, node, env, url, uri, "end")
		if l := line("listening line"); l != `{"listening":true}` {
			t.Fatalf("tslisten.mjs: %s", l)
		}
		if err := ctl.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		var o tsListenOutcome
		if err := json.Unmarshal([]byte(line("outcome")), &o); err != nil {
			t.Fatal(err)
		}
		if o.Error != "" || o.Closed != "graceful" {
			t.Fatalf("the listen when the controller stopped: %+v; want it closed gracefully", o)
		}
	})
}

// gnmiLab starts the built-in lab with every router also served over
// gNMI, and returns it and its inventory file.
func gnmiLab(t *testing.T) (*serve.Lab, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	dir := t.TempDir()
	lab, err := serve.Up(ctx, serve.Options{Topology: sim.DefaultTopology(), StateDir: dir, GNMI: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lab.Close() })
	return lab, filepath.Join(dir, serve.InventoryFile)
}

// startHTTPController starts `netmcp controller serve` on inventory inv
// over HTTP, without polling, and returns the process and its /mcp URL.
func startHTTPController(t *testing.T, inv string) (*exec.Cmd, string) {
	t.Helper()
	var stderr syncbuf.Buffer
	ctl := exec.Command(netmcpBinary(t), "controller", "serve", "--inventory", inv,
		"--listen", "127.0.0.1:0", "--reports", t.TempDir(), "--poll", "0")
	ctl.Stderr = &stderr
	if err := ctl.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ctl.Process.Kill(); _ = ctl.Wait() })
	re := regexp.MustCompile(`MCP at (http://[0-9.:]+/mcp)`)
	var url string
	testwait.Until(t, 30*time.Second, "controller serve announces its address", func() (bool, string) {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			url = m[1]
		}
		return url != "", stderr.String()
	})
	return ctl, url
}

// startTSListen runs testdata/tslisten.mjs URL URI MODE and returns a
// function that returns its next stdout line (failing the test when it
// ends or prints nothing for long).
func startTSListen(t *testing.T, node string, env []string, url, uri, mode string) func(what string) string {
	t.Helper()
	cmd := exec.Command(node, filepath.Join("testdata", "tslisten.mjs"), url, uri, mode)
	cmd.Env = append(append(os.Environ(), env...), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
	var nodeErr syncbuf.Buffer
	cmd.Stderr = &nodeErr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string, 4)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return func(what string) string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("tslisten.mjs ended before its %s; stderr: %s", what, nodeErr.String())
			}
			return l
		case <-time.After(testwait.Timeout(90 * time.Second)):
			t.Fatalf("tslisten.mjs printed no %s; stderr: %s", what, nodeErr.String())
		}
		return ""
	}
}
