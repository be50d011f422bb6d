package conformance

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/netproto"
)

// inspect runs MCP Inspector's CLI (`mcp-inspector --cli target... args...`)
// and decodes the JSON it prints on stdout into v.
func inspect(t *testing.T, tl npmTools, target []string, v any, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	argv := append(append([]string{"--cli"}, target...), args...)
	cmd := tl.command(ctx, t.TempDir(), tl.inspector, argv...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("mcp-inspector %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out, stderr.String())
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("mcp-inspector %s: output is not the expected JSON: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestInspectorCLI lists the tools of `netmcp serve --device sim://r1` and
// calls network.cli.exec through MCP Inspector's CLI, over stdio (Inspector
// spawns netmcp) and over Streamable HTTP.
func TestInspectorCLI(t *testing.T) {
	tl := requireTools(t)
	bin := netmcpBinary(t)
	transports := []struct {
		name   string
		target func(t *testing.T) []string
	}{
		{"stdio", func(t *testing.T) []string {
			return []string{bin, "serve", "--device", "sim://r1", "--stdio-role", "admin", "--state-dir", t.TempDir()}
		}},
		{"http", func(t *testing.T) []string {
			return []string{startNetmcp(t, "serve", "--device", "sim://r1", "--local-role", "admin", "--listen", "127.0.0.1:0", "--state-dir", t.TempDir())}
		}},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			target := tr.target(t)

			var list struct {
				Tools []struct {
					Name        string          `json:"name"`
					InputSchema json.RawMessage `json:"inputSchema"`
				} `json:"tools"`
			}
			inspect(t, tl, target, &list, "--method", "tools/list")
			var names []string
			for _, tool := range list.Tools {
				names = append(names, tool.Name)
			}
			for _, want := range netproto.NetworkTools {
				if !slices.Contains(names, want) {
					t.Errorf("tools/list lacks %s; got %v", want, names)
				}
			}

			var call struct {
				IsError bool `json:"isError"`
				Content []struct {
					Type string `json:"type"`
					Text string `json:"text"`
				} `json:"content"`
				StructuredContent struct {
					Stdout string `json:"stdout"`
				} `json:"structuredContent"`
			}
			inspect(t, tl, target, &call, "--method", "tools/call",
				"--tool-name", netproto.ToolCLIExec, "--tool-arg", "cmd=display version")
			if call.IsError {
				t.Fatalf("network.cli.exec returned isError: %+v", call.Content)
			}
			if len(call.Content) == 0 || call.Content[0].Type != "text" {
				t.Fatalf("network.cli.exec content = %+v, want one text item", call.Content)
			}
			if !strings.Contains(call.Content[0].Text, "Version") {
				t.Errorf("network.cli.exec text = %q, want the device's version output", call.Content[0].Text)
			}
			if call.StructuredContent.Stdout != call.Content[0].Text {
				t.Errorf("structuredContent.stdout = %q, want the same text as content[0] %q",
					call.StructuredContent.Stdout, call.Content[0].Text)
			}
		})
	}
}
