package main

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	_ "github.com/netmcp/netmcp/device/sshcli"
	"github.com/netmcp/netmcp/lab/sim"
)

// TestLabUpSSH runs `lab up --ssh` and drives the routers through the
// printed ssh:// URLs with the ssh driver (real SSH, the lab's own client
// key and known_hosts): reads in both dialects, and a change committed
// over SSH on r2 that r2's MCP server then reads. The key directory of a
// lab without a state directory is removed when the lab stops.
func TestLabUpSSH(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &syncBuffer{ch: make(chan struct{}, 1)}
	cmd := newLabCmd()
	cmd.SetOut(out)
	done := make(chan error, 1)
	go func() {
		done <- runLab(ctx, sim.DefaultTopology(), sim.LabOptions{}, labRunOptions{ssh: true}, cmd)
	}()
	deadline := time.After(20 * time.Second)
	var lines []string
	for len(lines) < 3 {
		select {
		case <-out.ch:
			lines = strings.Split(strings.TrimSpace(out.String()), "\n")
		case err := <-done:
			t.Fatalf("lab up --ssh ended early: %v", err)
		case <-deadline:
			t.Fatalf("lab up --ssh printed %q", out.String())
		}
	}
	mcpURL, sshURL := map[string]string{}, map[string]string{}
	for _, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) == 3 && f[1] == "linux" {
			continue // a host: MCP only, no SSH server
		}
		if len(f) != 4 || !strings.HasPrefix(f[3], "ssh://admin@127.0.0.1:") || !strings.Contains(f[3], "dialect="+f[1]) {
			t.Fatalf("line %q: want device<TAB>dialect<TAB>MCP URL<TAB>ssh://admin@127.0.0.1:PORT?dialect=...", l)
		}
		mcpURL[f[0]], sshURL[f[0]] = f[2], f[3]
	}

	// The platform each router's version output names (default topology).
	reads := map[string][2]string{"r1": {"display version", "NE40E-X8A"}, "r2": {"show version", "ASR-9901"}}
	for name, rd := range reads {
		cmdline, want := rd[0], rd[1]
		drv, err := device.Open(ctx, sshURL[name], device.Options{})
		if err != nil {
			t.Fatalf("open %s over ssh: %v", name, err)
		}
		defer drv.Close()
		text, err := drv.Exec(ctx, cmdline)
		if err != nil || !strings.Contains(text, want) {
			t.Fatalf("%s %q over ssh = %q, %v", name, cmdline, text, err)
		}
	}

	r2, err := device.Open(ctx, sshURL["r2"], device.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	cfg := r2.(device.Configurer)
	owner := device.Owner{Session: "ssh-test", User: "alice"}
	if err := cfg.Configure(ctx, owner, []string{"interface GigabitEthernet0/0/0/2", "description committed over lab ssh"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cfg.Commit(ctx, owner, device.CommitOptions{}); err != nil {
		t.Fatalf("commit over ssh: %v", err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "lab-ssh-test", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: mcpURL["r2"]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "network.yang.get", Arguments: map[string]any{
		"path": "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/2']/config/description", "datastore": "running"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "committed over lab ssh") {
		t.Fatalf("r2's MCP server after the commit over ssh: %v %+v", err, res)
	}

	u, err := url.Parse(sshURL["r1"])
	if err != nil {
		t.Fatal(err)
	}
	keyDir := filepath.Dir(u.Query().Get("key-file"))
	if _, err := os.Stat(keyDir); err != nil {
		t.Fatalf("key directory %s: %v", keyDir, err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("lab up --ssh stopped with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("lab up --ssh did not stop after cancel")
	}
	if _, err := os.Stat(keyDir); !os.IsNotExist(err) {
		t.Errorf("temporary key directory %s left after stop: %v", keyDir, err)
	}
}
