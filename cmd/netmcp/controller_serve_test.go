package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/internal/syncbuf"
	"github.com/netmcp/netmcp/lab/serve"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
)

// ctlFault is the fault the controller tests break the lab with, and
// what a sweep must name for it.
const (
	ctlFault       = "icmp_acl_block r3:GigabitEthernet0/0/0"
	ctlFaultName   = "icmp_acl_block"
	ctlFaultDevice = "r3"
	ctlIntent      = "what is wrong with the network?"
)

// tsHostOutcome is the JSON line testdata/tsctl.mjs prints.
type tsHostOutcome struct {
	ProtocolVersion string   `json:"protocolVersion"`
	Server          string   `json:"server"`
	Tools           []string `json:"tools"`
	Devices         []struct {
		Name  string `json:"name"`
		State string `json:"state"`
		Tools int    `json:"tools"`
	} `json:"devices"`
	Hostname struct {
		Data string `json:"data"`
	} `json:"hostname"`
	Report *struct {
		IsAnomaly     bool     `json:"is_anomaly"`
		FaultyDevices []string `json:"faulty_devices"`
		RootCauseName []string `json:"root_cause_name"`
		CorrelationID string   `json:"correlation_id"`
		Calls         int      `json:"calls"`
		Diagnosis     string   `json:"diagnosis"`
	} `json:"report"`
	Text     string   `json:"text"`
	Progress []string `json:"progress"`
	Error    string   `json:"error"`
}

// runTSHost runs testdata/tsctl.mjs (the official TypeScript SDK client
// as an MCP host of the controller) and returns its outcome.
func runTSHost(t *testing.T, node, clientDir, version, corr string, args ...string) tsHostOutcome {
	t.Helper()
	var o tsHostOutcome
	stderr := runNodeScript(t, node, "tsctl.mjs", []string{"MCP_CLIENT_DIR=" + clientDir, "MCP_VERSION=" + version,
		"MCP_INTENT=" + ctlIntent, "MCP_CORRELATION=" + corr}, &o, args...)
	if o.Error != "" {
		t.Fatalf("tsctl.mjs: %s\nstderr: %s", o.Error, stderr)
	}
	return o
}

// checkTSHost checks what the TypeScript host got from the controller of
// the three-router lab broken by ctlFault.
//
// Progress: every notification the server sent before the result, in
// order, ending with the diagnosis (tsctl.mjs records them with its own
// handler: the SDK's drops those read in the same chunk as the result).
func checkTSHost(t *testing.T, o tsHostOutcome, wantVersion, corr string) {
	t.Helper()
	if o.ProtocolVersion != wantVersion {
		t.Errorf("protocol %q, want %q", o.ProtocolVersion, wantVersion)
	}
	if o.Server != "netmcp-controller" {
		t.Errorf("server %q", o.Server)
	}
	if want := []string{"ask", "call_device_tool", "list_devices", "pingmesh", "submit_report"}; !slices.Equal(slices.Sorted(slices.Values(o.Tools)), want) {
		t.Errorf("tools %v, want %v", o.Tools, want)
	}
	var names []string
	for _, d := range o.Devices {
		names = append(names, d.Name)
		if d.State != "connected" || d.Tools == 0 {
			t.Errorf("list_devices: %+v, want connected with tools", d)
		}
	}
	for _, want := range []string{"r1", "r2", "r3"} { // the lab's routers (its hosts may serve MCP too)
		if !slices.Contains(names, want) {
			t.Errorf("list_devices: %v, want %s among them", names, want)
		}
	}
	if o.Hostname.Data != "r2" {
		t.Errorf("call_device_tool r2 network.yang.get hostname: %+v", o.Hostname)
	}
	r := o.Report
	if r == nil {
		t.Fatal("ask: no report")
	}
	if !r.IsAnomaly || !slices.Contains(r.RootCauseName, ctlFaultName) || !slices.Contains(r.FaultyDevices, ctlFaultDevice) {
		t.Errorf("ask: is_anomaly %v, faulty %v, root causes %v; want %s on %s among them",
			r.IsAnomaly, r.FaultyDevices, r.RootCauseName, ctlFaultName, ctlFaultDevice)
	}
	if r.CorrelationID != corr || r.Calls == 0 {
		t.Errorf("ask: correlation id %q (want the host's %q), %d calls", r.CorrelationID, corr, r.Calls)
	}
	if !strings.Contains(o.Text, "Diagnosis: "+r.Diagnosis) {
		t.Errorf("ask: the text content does not carry the diagnosis:\n%s", o.Text)
	}
	if len(o.Progress) < 2 || !strings.HasPrefix(o.Progress[0], "intent: ") || !strings.Contains(o.Progress[0], corr) ||
		!strings.HasPrefix(o.Progress[1], "step 1: ") {
		t.Errorf("ask: progress %q, want the intent with its correlation id, then step 1", o.Progress)
	}
	if len(o.Progress) == 0 || !strings.HasPrefix(o.Progress[len(o.Progress)-1], "diagnosis: ") {
		t.Errorf("ask: progress does not end with the diagnosis: %q", o.Progress)
	}
}

// TestControllerServeTypeScriptClient drives `netmcp controller serve`
// with the official TypeScript SDK client, as an MCP host: list the tools,
// list the devices, call a device's tool (call_device_tool) and ask an
// intent with progress and the host's correlation id. Over stdio the
// fleet is the inventory a lab writes in its state directory (as `netmcp
// lab up` does), the lab running in this test; over HTTP, `--lab --fault`.
func TestControllerServeTypeScriptClient(t *testing.T) {
	node, clientDir := tsClient(t)
	bin := netmcpBinary(t)

	t.Run("stdio inventory", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		f, err := topology.ParseFault(ctlFault)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		lab, err := serve.Up(ctx, serve.Options{Topology: sim.DefaultTopology(), StateDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		defer lab.Close()
		if _, err := lab.Inject(f); err != nil {
			t.Fatal(err)
		}
		inv := filepath.Join(dir, serve.InventoryFile)
		serve := []string{"stdio", bin, "controller", "serve", "--inventory", inv, "--reports", t.TempDir()}
		// The 2025 handshake; then the client's automatic negotiation,
		// which settles on 2026-07-28 over stdio.
		checkTSHost(t, runTSHost(t, node, clientDir, "", "ts-stdio-2025", serve...), "2025-11-25", "ts-stdio-2025")
		checkTSHost(t, runTSHost(t, node, clientDir, "auto", "ts-stdio-auto", serve...), "2026-07-28", "ts-stdio-auto")
	})

	t.Run("http lab", func(t *testing.T) {
		var stderr syncbuf.Buffer
		srv := exec.Command(bin, "controller", "serve", "--lab", "--fault", ctlFault, "--listen", "127.0.0.1:0", "--reports", t.TempDir())
		srv.Stderr = &stderr
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
		re := regexp.MustCompile(`MCP at (http://[0-9.:]+/mcp)`)
		var url string
		for deadline := time.Now().Add(30 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if m := re.FindStringSubmatch(stderr.String()); m != nil {
				url = m[1]
			}
		}
		if url == "" {
			t.Fatalf("no address announced: %q", stderr.String())
		}
		// Over HTTP too the automatic negotiation settles on 2026-07-28,
		// served without a session.
		checkTSHost(t, runTSHost(t, node, clientDir, "auto", "ts-http-auto", "http", url), "2026-07-28", "ts-http-auto")
	})
}
