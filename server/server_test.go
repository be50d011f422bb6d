package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/server/servertest"
)

// connect serves drv with opts and returns a client session over an
// in-memory transport.
func connect(t testing.TB, drv device.Driver, opts server.Options, copts *mcp.ClientOptions) (*mcp.ClientSession, *server.Server) {
	t.Helper()
	s := newServer(t, drv, opts)
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := s.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); s.Close() })
	return cs, s
}

// newServer builds the server of drv. These tests exercise the tools, not
// the approval gate (see config_test.go): a nil Approver lets every call through.
func newServer(t testing.TB, drv device.Driver, opts server.Options) *server.Server {
	t.Helper()
	if opts.Approver == nil {
		opts.Approver = server.AllowAll
	}
	s, err := server.New(drv, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) (map[string]any, error) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, errors.New(res.Content[0].(*mcp.TextContent).Text)
	}
	var m map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
	return m, nil
}

// rpcCode returns the JSON-RPC error code of err (0 for nil, -1 for an
// error that is not a JSON-RPC error).
func rpcCode(err error) int64 {
	var je *jsonrpc.Error
	switch {
	case err == nil:
		return 0
	case errors.As(err, &je):
		return je.Code
	}
	return -1
}

func TestToolsListed(t *testing.T) {
	for _, compat := range []bool{false, true} {
		cs, _ := connect(t, simR1(t), server.Options{CompatNames: compat}, nil)
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]*mcp.Tool{}
		for _, tl := range res.Tools {
			names[tl.Name] = tl
			if tl.OutputSchema == nil || tl.InputSchema == nil {
				t.Errorf("%s lacks a schema", tl.Name)
			}
			if compat && strings.Contains(tl.Name, ".") {
				t.Errorf("compat name %q has a dot", tl.Name)
			}
		}
		for _, n := range netproto.NetworkTools {
			if compat {
				n = netproto.CompatName(n)
			}
			if tl, ok := names[n]; !ok {
				t.Errorf("tool %s not listed (compat %v)", n, compat)
			} else if tl.Meta["available"] != true {
				t.Errorf("%s: _meta.available = %v", n, tl.Meta["available"])
			}
		}
	}
}

func TestUnavailableTools(t *testing.T) {
	cs, _ := connect(t, servertest.CLIOnly{D: servertest.New()}, server.Options{}, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	avail := map[string]any{}
	for _, tl := range res.Tools {
		avail[tl.Name] = tl.Meta["available"]
	}
	for _, n := range netproto.NetworkTools {
		want := n == netproto.ToolCLIExec
		if avail[n] != want {
			t.Errorf("%s available = %v, want %v", n, avail[n], want)
		}
	}
	_, err = call(t, cs, netproto.ToolYangGet, map[string]any{"path": "/openconfig-interfaces:interfaces"})
	if rpcCode(err) != netproto.CodeConfigIncompatible {
		t.Fatalf("unavailable tool: %v, want -32084", err)
	}
	if out, err := call(t, cs, netproto.ToolCLIExec, map[string]any{"cmd": "show version"}); err != nil || out["stdout"] == "" {
		t.Fatalf("session unusable after error: %v %v", out, err)
	}
}

func TestTools(t *testing.T) {
	dev := servertest.New()
	cs, _ := connect(t, dev, server.Options{}, nil)
	tests := []struct {
		name string
		tool string
		args any
		want map[string]any // subset of structuredContent
		code int64          // expected JSON-RPC error code, 0 = success
		text string         // expected substring of a tool error
	}{
		{"exec", netproto.ToolCLIExec, map[string]any{"cmd": "show ip arp vrf mgmt 10.0.0.5"}, map[string]any{"stdout": dev.ARP}, 0, ""},
		{"exec unknown", netproto.ToolCLIExec, map[string]any{"cmd": "reload"}, nil, netproto.CodeConfigIncompatible, ""},
		{"exec wrong type", netproto.ToolCLIExec, map[string]any{"cmd": 5}, nil, jsonrpc.CodeInvalidParams, ""},
		{"exec extra arg", netproto.ToolCLIExec, map[string]any{"cmd": "x", "shell": true}, nil, jsonrpc.CodeInvalidParams, ""},
		{"yang get", netproto.ToolYangGet, map[string]any{"path": "/openconfig-interfaces:interfaces/interface[name='Vlan100']"}, nil, 0, ""},
		{"yang get bad datastore", netproto.ToolYangGet, map[string]any{"path": "/x", "datastore": "startup"}, nil, jsonrpc.CodeInvalidParams, ""},
		{"yang get unmodelled", netproto.ToolYangGet, map[string]any{"path": "/foo:bar"}, nil, netproto.CodeConfigIncompatible, ""},
		{"yang edit", netproto.ToolYangEdit, map[string]any{"target": "candidate", "edit": []any{map[string]any{"path": "/openconfig-vlan:vlans/vlan[vlan-id='10']", "value": map[string]any{"vlan-id": 10}}}}, nil, 0, ""},
		{"yang edit vlan 4095", netproto.ToolYangEdit, map[string]any{"edit": []any{map[string]any{"path": "/openconfig-vlan:vlans/vlan[vlan-id='4095']", "value": map[string]any{"vlan-id": 4095}}}}, nil, netproto.CodeConfigIncompatible, ""},
		{"yang edit no edits", netproto.ToolYangEdit, map[string]any{"edit": []any{}}, nil, jsonrpc.CodeInvalidParams, ""},
		{"commit dry run", netproto.ToolCommit, map[string]any{"dryRun": true}, map[string]any{"status": "dry-run"}, 0, ""},
		{"commit confirmed", netproto.ToolCommit, map[string]any{"confirmed": 120}, map[string]any{"status": "committed", "rollbackTimeout": float64(120)}, 0, ""},
		{"confirm", netproto.ToolCommit, map[string]any{"confirm": true}, map[string]any{"status": "confirmed"}, 0, ""},
		{"confirm nothing pending", netproto.ToolCommit, map[string]any{"confirm": true}, nil, netproto.CodeConfirmedCommitTimeout, ""},
		{"commit exclusive", netproto.ToolCommit, map[string]any{"confirm": true, "cancel": true}, nil, jsonrpc.CodeInvalidParams, ""},
		{"configure", netproto.ToolCLIConfigure, map[string]any{"commands": []string{"interface Gi0/0/0/1", " description uplink"}}, map[string]any{"status": "applied", "lines": float64(2)}, 0, ""},
		{"configure lines", netproto.ToolCLIConfigure, map[string]any{"lines": "hostname r9"}, map[string]any{"status": "applied"}, 0, ""},
		{"configure empty", netproto.ToolCLIConfigure, map[string]any{}, nil, jsonrpc.CodeInvalidParams, ""},
		{"configure bad line", netproto.ToolCLIConfigure, map[string]any{"commands": []string{"bogus"}}, nil, netproto.CodeConfigIncompatible, ""},
		{"rollback", netproto.ToolRollback, map[string]any{}, map[string]any{"status": "rolled-back"}, 0, ""},
		{"file pull", netproto.ToolFilePull, map[string]any{"name": "running-config"}, map[string]any{"name": "running-config", "content": dev.Running, "size": float64(len(dev.Running))}, 0, ""},
		{"file pull bad name", netproto.ToolFilePull, map[string]any{"name": "/etc/passwd"}, nil, jsonrpc.CodeInvalidParams, ""},
		{"file push", netproto.ToolFilePush, map[string]any{"name": "startup-config", "content": "hostname r1\n", "sha256": "7e139a0aa1a336cce684b8df0254bc33a2d77a34707e2520117b7c098225b97d"}, map[string]any{"status": "written", "size": float64(12)}, 0, ""},
		{"file push without sha256", netproto.ToolFilePush, map[string]any{"name": "startup-config", "content": "hostname x\n"}, nil, jsonrpc.CodeInvalidParams, ""},
		{"file push bad sha", netproto.ToolFilePush, map[string]any{"name": "startup-config", "content": "x", "sha256": strings.Repeat("0", 64)}, nil, jsonrpc.CodeInvalidParams, ""},
		{"file push syntax", netproto.ToolFilePush, map[string]any{"name": "startup-config", "content": "!! broken", "sha256": "43a334a7a9319f321fdc5c5d89348e310111f29f30e9e27026b2c3385eec0d22"}, nil, netproto.CodeYangSyntaxError, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := call(t, cs, tt.tool, tt.args)
			if tt.code != 0 {
				if rpcCode(err) != tt.code {
					t.Fatalf("error %v (code %d), want code %d", err, rpcCode(err), tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.want {
				if got, _ := json.Marshal(out[k]); string(got) != mustJSON(v) {
					t.Errorf("%s = %s, want %s (all: %v)", k, got, mustJSON(v), out)
				}
			}
		})
	}
	if dev.Startup != "hostname r1\n" {
		t.Errorf("startup-config = %q: a refused push changed it", dev.Startup)
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestErrorUnwrapped72(t *testing.T) {
	cs, _ := connect(t, simR1(t), server.Options{}, nil)
	_, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: netproto.PromptAddVLAN,
		Arguments: map[string]string{"vlan_id": "4095", "name": "users"}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		t.Fatalf("error %T %v is not a *jsonrpc.Error", err, err)
	}
	want := `{"detail":"VLAN 4095 > maximum 4094","path":"/openconfig-vlan:vlans/vlan/config/vlan-id","retryPossible":false}`
	if je.Code != -32084 || je.Message != "Network.ConfigIncompatible" || string(je.Data) != want {
		t.Fatalf("got %d %q %s", je.Code, je.Message, je.Data)
	}
}

func TestReadOnlyAndApprover(t *testing.T) {
	cs, _ := connect(t, simR1(t), server.Options{ReadOnly: true}, nil)
	for _, tc := range []struct {
		tool string
		args any
	}{
		{netproto.ToolCLIConfigure, map[string]any{"commands": []string{"hostname x"}}},
		{netproto.ToolYangEdit, map[string]any{"edit": []any{map[string]any{"path": "/a"}}}},
		{netproto.ToolCommit, map[string]any{}},
		{netproto.ToolRollback, map[string]any{}},
		{netproto.ToolFilePush, map[string]any{"name": "startup-config", "content": "x"}},
	} {
		if _, err := call(t, cs, tc.tool, tc.args); rpcCode(err) != netproto.CodeAccessDenied {
			t.Errorf("%s on a read-only server: %v, want -32083", tc.tool, err)
		}
	}
	var seen []server.ApprovalRequest
	gate := server.ApproverFunc(func(_ context.Context, r server.ApprovalRequest) error {
		seen = append(seen, r)
		return netproto.Errorf(netproto.CodeAccessDenied, "operator declined")
	})
	cs2, _ := connect(t, simR1(t), server.Options{Approver: gate}, nil)
	if _, err := call(t, cs2, netproto.ToolCommit, map[string]any{"confirmed": 60}); rpcCode(err) != netproto.CodeAccessDenied {
		t.Fatalf("declined commit: %v", err)
	}
	if _, err := call(t, cs2, netproto.ToolCommit, map[string]any{"dryRun": true}); err != nil {
		t.Fatalf("dry run needs no approval: %v", err)
	}
	if len(seen) != 1 || seen[0].Tool != netproto.ToolCommit || !strings.Contains(seen[0].Summary, "60 s") || seen[0].Session == "" {
		t.Fatalf("gate saw %+v", seen)
	}
}

func TestCancellationStopsDriver(t *testing.T) {
	cs, _ := connect(t, servertest.New(), server.Options{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: netproto.ToolCLIExec, Arguments: map[string]any{"cmd": "show slow"}})
	if err == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("cancelled call: %v after %v", err, time.Since(start))
	}
	if _, err := call(t, cs, netproto.ToolCLIExec, map[string]any{"cmd": "show version"}); err != nil {
		t.Fatalf("session unusable after cancel: %v", err)
	}
}

func TestSessionEndReleasesLocks(t *testing.T) {
	dev := servertest.New()
	cs, _ := connect(t, dev, server.Options{}, nil)
	if _, err := call(t, cs, netproto.ToolCLIConfigure, map[string]any{"lines": "hostname x"}); err != nil {
		t.Fatal(err)
	}
	if dev.Locker() == "" {
		t.Fatal("candidate not locked")
	}
	cs.Close()
	deadline := time.Now().Add(3 * time.Second)
	for dev.Locker() != "" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if dev.Locker() != "" {
		t.Fatal("lock not released when the session ended")
	}
}
