//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/inventory"
)

// TestLabUpReal runs `lab up --real` on the default topology (as root
// with FRR installed), reads every device's inventory entry in
// STATE-DIR/inventory.yaml, as the simulated lab writes it (the hosts
// with role host), and on r2
// calls network.cli.exec (vtysh) and reads the BGP neighbours through a
// real MCP session, then stops the lab.
func TestLabUpReal(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipped: lab up --real needs root")
	}
	t.Parallel() // with the other real-lab tests: each waits mostly on its lab's protocols
	ctx := context.Background()
	dir := t.TempDir()
	prefix := fmt.Sprintf("t%dm-", os.Getpid()%100000)
	// r1, r2, r3, h1, h3; --role admin: the FRR lines configured below count
	// as a write of the whole configuration, secrets included.
	r, lines := startLabUp(ctx, t, 5, 90*time.Second, "--real", "--netns-prefix", prefix, "--report", "--state-dir", dir, "--role", "admin")
	defer r.stop(t)
	errw := r.errw
	for _, l := range strings.Split(errw.String(), "\n") {
		if strings.HasPrefix(l, "lab: ") {
			t.Log(l)
		}
	}
	if !strings.Contains(errw.String(), "lab: memory of the daemons: ") || !strings.Contains(errw.String(), "zebra 3: PSS") {
		t.Errorf("lab up --real --report printed no memory of the daemons:\n%s", errw.String())
	}
	inv := filepath.Join(dir, "inventory.yaml")
	if !strings.Contains(errw.String(), "inventory in "+inv+"\n") {
		t.Errorf("lab up --real does not say where its inventory is (%s):\n%s", inv, errw.String())
	}
	if _, err := os.Stat("netmcp-lab-inventory.yaml"); err == nil {
		t.Error("lab up --real wrote netmcp-lab-inventory.yaml in the working directory")
	}
	urls := map[string]string{}
	for _, f := range lines {
		dialect := "frr"
		if strings.HasPrefix(f[0], "h") {
			dialect = "linux" // a host: no FRR
		}
		if len(f) != 3 || f[1] != dialect || !strings.HasPrefix(f[2], "http://127.0.0.1:") {
			t.Fatalf("line %q: want device<TAB>%s<TAB>http://127.0.0.1:PORT/mcp", f, dialect)
		}
		urls[f[0]] = f[2]
	}
	fleet, err := inventory.Load(inv)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{"r1", "r2", "r3", "h1", "h3"} {
		d, ok := fleet.Device(r)
		role := map[bool]string{true: "host"}[r[0] == 'h']
		if !ok || d.URL != urls[r] || !strings.HasPrefix(d.Device, "linux://") || d.Role != role {
			t.Errorf("inventory entry of %s = %+v, want URL %s, a linux:// device and role %q", r, d, urls[r], role)
		}
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "lab-real-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: urls["r2"], HTTPClient: labClient(t, dir)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "network.cli.exec", Arguments: map[string]any{"cmd": "show ip ospf neighbor"}})
	if err != nil || res.IsError {
		t.Fatalf("cli.exec on r2: %v %+v", err, res)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "Full") || !strings.Contains(text, "10.255.0.3") {
		t.Errorf("show ip ospf neighbor on r2 says %q", text)
	}
	path := "/openconfig-network-instance:network-instances/network-instance[name=default]/protocols/protocol[identifier=openconfig-policy-types:BGP][name=bgp]/bgp/neighbors/neighbor[neighbor-address=10.255.0.3]/state/session-state"
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "network.yang.get", Arguments: map[string]any{"path": path, "datastore": "operational"}})
	if err != nil || res.IsError {
		t.Fatalf("yang.get on r2: %v %+v", err, res)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "ESTABLISHED") {
		t.Errorf("r2's iBGP session to r3 via MCP: %q", text)
	}
	cs.Close()

	// The routers are configurable through MCP as the simulated ones are:
	// an FRR line through the candidate, approved by the operator
	// (elicitation), committed into r2's FRR, then rolled back.
	approvals := 0
	operator := mcp.NewClient(&mcp.Implementation{Name: "lab-real-operator", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			approvals++
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		}})
	// A 2025-11-25 session: over HTTP, 2026-07-28 has no session to hold
	// the candidate yet, and refuses writes.
	ops, err := operator.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: urls["r2"], HTTPClient: labClient(t, dir)}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer ops.Close()
	const line = "ip route 192.0.2.0/24 Null0"
	running := func() string {
		t.Helper()
		r, err := ops.CallTool(ctx, &mcp.CallToolParams{Name: "network.cli.exec", Arguments: map[string]any{"cmd": "show running-config"}})
		if err != nil || r.IsError {
			t.Fatalf("show running-config on r2: %v %+v", err, r)
		}
		return r.Content[0].(*mcp.TextContent).Text
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"network.cli.configure", map[string]any{"commands": []any{line}}},
		{"network.commit", map[string]any{"comment": "lab up --real test"}},
	} {
		if r, err := ops.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args}); err != nil || r.IsError {
			t.Fatalf("%s on r2: %v %+v", c.tool, err, r)
		}
	}
	if !strings.Contains(running(), line) || approvals == 0 {
		t.Fatalf("after the commit (%d approvals), r2's FRR does not hold %q", approvals, line)
	}
	if r, err := ops.CallTool(ctx, &mcp.CallToolParams{Name: "network.rollback", Arguments: map[string]any{}}); err != nil || r.IsError {
		t.Fatalf("network.rollback on r2: %v %+v", err, r)
	}
	if strings.Contains(running(), line) {
		t.Fatalf("after the rollback r2's FRR still holds %q", line)
	}

	r.stop(t)
	if left, _ := filepath.Glob("/run/netns/" + prefix + "*"); len(left) > 0 {
		t.Errorf("namespaces left: %v", left)
	}
}
