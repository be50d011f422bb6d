package serve

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	_ "github.com/netmcp/netmcp/device/sshcli"
	"github.com/netmcp/netmcp/lab/sim"
)

// TestUpSSH serves a lab with SSH (as `lab up --ssh`) and drives the
// routers through their ssh:// URLs with the ssh driver (real SSH, the lab's own client
// key and known_hosts): reads in both dialects, and a change committed
// over SSH on r2 that r2's MCP server then reads. The key directory of a
// lab without a state directory is removed when the lab stops.
func TestUpSSH(t *testing.T) {
	ctx := context.Background()
	l, err := Up(ctx, Options{Topology: sim.DefaultTopology(), SSH: true})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			l.Close()
		}
	}()
	mcpURL, sshURL := map[string]string{}, map[string]string{}
	for _, d := range l.Devices() {
		if d.Host {
			if d.SSH != "" {
				t.Errorf("host %s has an SSH server: %s", d.Name, d.SSH)
			}
			continue // a host: MCP only, no SSH server
		}
		if !strings.HasPrefix(d.SSH, "ssh://admin@127.0.0.1:") || !strings.Contains(d.SSH, "dialect="+d.Dialect) {
			t.Fatalf("device %+v: want ssh://admin@127.0.0.1:PORT?dialect=...", d)
		}
		mcpURL[d.Name], sshURL[d.Name] = d.URL, d.SSH
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
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: mcpURL["r2"], HTTPClient: l.HTTPClient()}, nil)
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
	closed = true
	if err := l.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if _, err := os.Stat(keyDir); !os.IsNotExist(err) {
		t.Errorf("temporary key directory %s left after stop: %v", keyDir, err)
	}
}
