package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/serve"
	"github.com/netmcp/netmcp/lab/sim"
)

// runLabCmd runs `netmcp lab ARGS...` and returns its stdout and error.
func runLabCmd(ctx context.Context, args ...string) (string, error) {
	cmd := newLabCmd()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	return out.String(), err
}

// TestLabUpFaultErrors checks that a bad --fault is a clear error before
// anything starts.
func TestLabUpFaultErrors(t *testing.T) {
	for _, tc := range []struct{ fault, want string }{
		{"nope r1", `unknown name`},
		{"link_down r9:Gi0", `no device "r9"`},
		{"link_down r1:GigabitEthernet0/0/0 speed=1", `unknown parameter "speed"`},
		{"link_high_packet_corruption r1:GigabitEthernet0/0/0 percent=300", "out of range"},
		{"host_incorrect_gateway r1", "applies to hosts"},
		{"link_down", "want NAME TARGET"},
	} {
		dir := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err := runLabCmd(ctx, "up", "--state-dir", dir, "--fault", tc.fault)
		cancel()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--fault %q: %v, want an error with %q", tc.fault, err, tc.want)
		}
		if _, err := os.Stat(filepath.Join(dir, serve.ControlFile)); err == nil {
			t.Errorf("--fault %q: the lab started", tc.fault)
		}
	}
}

// TestLabFaultCommands starts `lab up --fault ...`, then changes the
// running lab with `lab fault add|list|clear`, checks the inventory and a
// configuration fault in a router's running configuration over MCP, and
// that `lab fault clear` clears every fault with --all and refuses to
// guess without it.
func TestLabFaultCommands(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	upCtx, stopUp := context.WithCancel(ctx)
	done, finished := make(chan error, 1), make(chan struct{})
	go func() {
		_, err := runLabCmd(upCtx, "up", "--state-dir", dir, "--fault", "bgp_acl_block r2:GigabitEthernet0/0/0/1")
		done <- err
		close(finished)
	}()
	t.Cleanup(func() { // on an early failure too: the lab is stopped before its directory goes
		stopUp()
		select {
		case <-finished:
		case <-time.After(time.Minute):
		}
	})
	ctlFile := filepath.Join(dir, serve.ControlFile)
	for {
		if _, err := os.Stat(ctlFile); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("lab up ended: %v", err)
		case <-ctx.Done():
			t.Fatal("no control file")
		case <-time.After(20 * time.Millisecond):
		}
	}
	if st, _ := os.Stat(ctlFile); st.Mode().Perm() != 0o600 {
		t.Errorf("control file mode %v, want 0600", st.Mode().Perm())
	}

	inv, err := inventory.Load(filepath.Join(dir, "inventory.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Devices) != 5 || inv.Devices[3].Role != "host" || inv.Devices[1].Name != "r2" || inv.Devices[1].Dialect != "cisco-iosxr" || !strings.HasPrefix(inv.Devices[1].URL, "http://127.0.0.1:") {
		t.Fatalf("inventory %+v", inv)
	}
	// Its hosts' addresses make them known hosts for `ask --inventory`, as
	// the topology makes them for `ask --lab`.
	if got, want := fmt.Sprint(inventoryHosts(inv)), fmt.Sprint(controller.HostsOf(sim.DefaultTopology())); got != want {
		t.Errorf("the inventory's known hosts %s, want the topology's %s", got, want)
	}

	out, err := runLabCmd(ctx, "fault", "list", "--state-dir", dir)
	if err != nil || !strings.Contains(out, "f1") || !strings.Contains(out, "config") || !strings.Contains(out, "bgp_acl_block r2:GigabitEthernet0/0/0/1") {
		t.Fatalf("fault list: %v\n%s", err, out)
	}
	// The configuration fault is in r2's running configuration, over MCP.
	client := mcp.NewClient(&mcp.Implementation{Name: "lab-test", Version: "1"}, nil)
	if inv.Devices[1].Credentials.TokenFile != filepath.Join(dir, serve.TokenFile) {
		t.Errorf("inventory credentials %+v, want token-file %s", inv.Devices[1].Credentials, filepath.Join(dir, serve.TokenFile))
	}
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: inv.Devices[1].URL, HTTPClient: labClient(t, dir)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "network.cli.exec", Arguments: map[string]any{"cmd": "show running-config"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "NIKA-BGP-BLOCK") {
		t.Fatalf("show running-config on r2: %v %+v", err, res)
	}
	cs.Close()

	out, err = runLabCmd(ctx, "fault", "add", "--state-dir", dir, "link_high_packet_corruption r1:GigabitEthernet0/0/0 percent=30 direction=out")
	if err != nil || !strings.Contains(out, "f2") || !strings.Contains(out, "runtime") || !strings.Contains(out, "r1,r2") {
		t.Fatalf("fault add: %v\n%s", err, out)
	}
	if _, err := runLabCmd(ctx, "fault", "add", "--state-dir", dir, "ospf_neighbor_missing", "r1:Gi9"); err == nil || !strings.Contains(err.Error(), "no interface") {
		t.Errorf("fault add of a bad target: %v", err)
	}
	out, err = runLabCmd(ctx, "fault", "clear", "--state-dir", dir, "f1")
	if err != nil || !strings.Contains(out, "bgp_acl_block") {
		t.Fatalf("fault clear: %v\n%s", err, out)
	}
	out, err = runLabCmd(ctx, "fault", "list", "--state-dir", dir, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var listed []map[string]any
	if err := json.Unmarshal([]byte(out), &listed); err != nil || len(listed) != 1 || listed[0]["id"] != "f2" {
		t.Fatalf("fault list --json after clear: %v\n%s", err, out)
	}
	if _, err := runLabCmd(ctx, "fault", "clear", "--state-dir", dir, "f1"); err == nil || !strings.Contains(err.Error(), "no fault") {
		t.Errorf("clearing a cleared fault: %v", err)
	}

	// clear with nothing to clear names --all; --all clears every fault.
	if _, err := runLabCmd(ctx, "fault", "clear", "--state-dir", dir); err == nil || !strings.Contains(err.Error(), "--all") {
		t.Errorf("fault clear with no fault and no --all: %v, want an error naming --all", err)
	}
	if _, err := runLabCmd(ctx, "fault", "clear", "--state-dir", dir, "--all", "f2"); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("fault clear f2 --all: %v", err)
	}
	if _, err := runLabCmd(ctx, "fault", "add", "--state-dir", dir, "link_down", "r1:GigabitEthernet0/0/0"); err != nil {
		t.Fatal(err)
	}
	out, err = runLabCmd(ctx, "fault", "clear", "--state-dir", dir, "--all")
	if err != nil || !strings.Contains(out, "f2") || !strings.Contains(out, "f3") || !strings.Contains(out, "link_down r1:GigabitEthernet0/0/0") {
		t.Fatalf("fault clear --all: %v\n%s", err, out)
	}
	if out, err := runLabCmd(ctx, "fault", "list", "--state-dir", dir, "--json"); err != nil || strings.TrimSpace(out) != "[]" {
		t.Errorf("fault list after clear --all: %v\n%s", err, out)
	}

	stopUp()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("lab up: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("lab up did not stop")
	}
	if _, err := os.Stat(ctlFile); err == nil {
		t.Error("control file left after the lab stopped")
	}
	if _, err := runLabCmd(ctx, "fault", "list", "--state-dir", dir); err == nil || !strings.Contains(err.Error(), "no running lab") {
		t.Errorf("fault list with no lab: %v", err)
	}
}
