package conformance

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// controllerFault breaks the controller's lab; a sweep must name it.
const (
	controllerFault       = "icmp_acl_block r3:GigabitEthernet0/0/0"
	controllerFaultName   = "icmp_acl_block"
	controllerFaultDevice = "r3"
)

// TestInspectorCLIController drives `netmcp controller serve --lab
// --fault ...` (the built-in lab in the controller's process, one ACL
// fault) through MCP Inspector's CLI, over stdio (Inspector spawns the
// controller) and Streamable HTTP: it lists the tools, calls a device's
// tool with call_device_tool, asks "what is wrong with the network?" with
// a correlation id in the call's _meta, and reads the saved report back
// from netmcp://reports/last.
func TestInspectorCLIController(t *testing.T) {
	tl := requireTools(t)
	bin := netmcpBinary(t)
	transports := []struct {
		name   string
		target func(t *testing.T, reports string) []string
	}{
		{"stdio", func(t *testing.T, reports string) []string {
			return []string{bin, "controller", "serve", "--lab", "--fault", controllerFault, "--reports", reports}
		}},
		{"http", func(t *testing.T, reports string) []string {
			return []string{startNetmcp(t, "controller", "serve", "--lab", "--fault", controllerFault, "--listen", "127.0.0.1:0", "--reports", reports)}
		}},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			// Over stdio each Inspector command starts its own controller;
			// they share the reports directory, as runs on one host do.
			target := tr.target(t, t.TempDir())

			var list struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			}
			inspect(t, tl, target, &list, "--method", "tools/list")
			var names []string
			for _, tool := range list.Tools {
				names = append(names, tool.Name)
			}
			slices.Sort(names)
			if want := []string{"ask", "call_device_tool", "list_devices", "pingmesh", "submit_report"}; !slices.Equal(names, want) {
				t.Errorf("tools/list: %v, want %v", names, want)
			}

			var call struct {
				IsError           bool `json:"isError"`
				StructuredContent struct {
					Data string `json:"data"`
				} `json:"structuredContent"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			}
			inspect(t, tl, target, &call, "--method", "tools/call", "--tool-name", "call_device_tool",
				"--tool-args-json", `{"device":"r2","tool":"network.yang.get","arguments":{"path":"/openconfig-system:system/config/hostname"}}`)
			if call.IsError || call.StructuredContent.Data != "r2" {
				t.Errorf("call_device_tool r2 network.yang.get hostname: %+v", call)
			}

			const corr = "inspector-corr-1"
			var ask struct {
				IsError           bool `json:"isError"`
				StructuredContent struct {
					ID            string   `json:"id"`
					IsAnomaly     bool     `json:"is_anomaly"`
					FaultyDevices []string `json:"faulty_devices"`
					RootCauseName []string `json:"root_cause_name"`
					CorrelationID string   `json:"correlation_id"`
					Calls         []any    `json:"calls"`
				} `json:"structuredContent"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			}
			inspect(t, tl, target, &ask, "--method", "tools/call", "--tool-name", "ask",
				"--tool-arg", "intent=what is wrong with the network?", "--tool-metadata", "netmcp/correlationId="+corr)
			rep := ask.StructuredContent
			if ask.IsError || !rep.IsAnomaly || !slices.Contains(rep.RootCauseName, controllerFaultName) ||
				!slices.Contains(rep.FaultyDevices, controllerFaultDevice) || len(rep.Calls) == 0 {
				t.Errorf("ask: %+v; want is_anomaly with %s on %s", ask, controllerFaultName, controllerFaultDevice)
			}
			if rep.CorrelationID != corr {
				t.Errorf("ask: correlation id %q, want the host's %q", rep.CorrelationID, corr)
			}
			if len(ask.Content) == 0 || !strings.Contains(ask.Content[0].Text, "Diagnosis:") {
				t.Errorf("ask: text content %+v", ask.Content)
			}

			var read struct {
				Contents []struct {
					URI  string `json:"uri"`
					Text string `json:"text"`
				} `json:"contents"`
			}
			inspect(t, tl, target, &read, "--method", "resources/read", "--uri", "netmcp://reports/last")
			if len(read.Contents) != 1 {
				t.Fatalf("netmcp://reports/last: %+v", read)
			}
			var saved struct {
				ID            string `json:"id"`
				CorrelationID string `json:"correlation_id"`
			}
			if err := json.Unmarshal([]byte(read.Contents[0].Text), &saved); err != nil {
				t.Fatalf("netmcp://reports/last: %v\n%s", err, read.Contents[0].Text)
			}
			if saved.ID != rep.ID || saved.CorrelationID != corr {
				t.Errorf("netmcp://reports/last: report %s (correlation %s), want the one just asked, %s", saved.ID, saved.CorrelationID, rep.ID)
			}
		})
	}
}
