package server

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	_ "github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/redact"
)

func TestToolResultMasking(t *testing.T) {
	tests := []struct {
		name, in string
		same     bool     // the document comes back byte for byte
		gone     []string // must not appear in the masked document
	}{
		{"nothing secret", `{"data":{"interfaces":{"interface":[{"name":"Gi0/0/0","mtu":1500}]}}}`, true, nil},
		{"secret leaf", `{"data":{"user":[{"name":"admin","password":"Adm1nPass!"}]}}`, false, []string{"Adm1nPass!"}},
		{"secret in configuration text", `{"config":"snmp-server community Publ1cRO RO\nhostname r1"}`, false, []string{"Publ1cRO"}},
		{"secret learnt elsewhere in the document", `{"a":{"password":"S3cretValue"},"log":"login with S3cretValue failed"}`, false, []string{"S3cretValue"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newSecretMasker(redact.New(redact.Options{}), "cisco-iosxr")
			m.learn(map[string]any{"a": map[string]any{"password": "S3cretValue"}}) // the device's configuration
			r := &mcp.CallToolResult{StructuredContent: json.RawMessage(tt.in), Content: []mcp.Content{&mcp.TextContent{Text: tt.in}}}
			m.toolResult(r)
			got := string(r.StructuredContent.(json.RawMessage))
			if text := r.Content[0].(*mcp.TextContent).Text; text != got {
				t.Errorf("text fallback %s differs from structured content %s", text, got)
			}
			if (got == tt.in) != tt.same {
				t.Errorf("returned as is = %v, want %v: %s", got == tt.in, tt.same, got)
			}
			for _, s := range tt.gone {
				if strings.Contains(got, s) {
					t.Errorf("secret %q left in %s", s, got)
				}
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("not JSON: %s", got)
			}
		})
	}
}

// TestMaskingLeavesInputAlone checks that learning from a tree (the
// device's configuration, shared with the driver) masks a copy only.
func TestMaskingLeavesInputAlone(t *testing.T) {
	m := newSecretMasker(nil, "")
	tree := map[string]any{
		"line":  "snmp-server community Publ1cRO RO",
		"users": []any{map[string]any{"name": "u", "password": "Adm1nPass!"}},
	}
	m.learn(tree)
	masked, changed := m.value(tree)
	if !changed {
		t.Fatal("nothing masked")
	}
	if tree["line"] != "snmp-server community Publ1cRO RO" || tree["users"].([]any)[0].(map[string]any)["password"] != "Adm1nPass!" {
		t.Fatalf("masking modified its input: %v", tree)
	}
	if b, _ := json.Marshal(masked); strings.Contains(string(b), "Publ1cRO") || strings.Contains(string(b), "Adm1nPass!") {
		t.Fatalf("secrets left: %s", b)
	}
}

// TestMaskBeforeEncoding checks that masking a tool's output tree before it
// is encoded gives the same document as masking the encoded result, for the
// whole configuration and state of a simulated device (secrets learnt from
// it), including numbers of Go types a decoder would not make.
func TestMaskBeforeEncoding(t *testing.T) {
	drv, err := device.Open(context.Background(), "sim://r1", device.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close()
	m := newSecretMasker(nil, drv.Info().CLIDialect)
	for _, ds := range []device.Datastore{device.Running, device.Operational} {
		tree, err := drv.Get(context.Background(), ds, "/")
		if err != nil {
			t.Fatal(err)
		}
		m.learn(tree)
		out := map[string]any{"data": tree, "n": 1500, "secretish": int64(4321), "note": "community Huawei@123 seen"}
		m.r.AddSecret("4321")
		if _, _, whole := m.tree(out); !whole {
			t.Fatalf("%s tree is not read whole as a JSON tree", ds)
		}
		before, _ := m.value(out)
		a, err := marshal(before)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		if b := m.ownJSON(raw); string(a) != string(b) {
			t.Errorf("%s: masked before encoding:\n%.400s\nafter:\n%.400s", ds, a, b)
		}
		if strings.Contains(string(a), "Huawei@123") || strings.Contains(string(a), "4321") {
			t.Errorf("%s: a secret survived: %.400s", ds, a)
		}
	}
	for _, v := range []any{map[string]any{"x": struct{}{}}, []string{"a"}, map[string]any{"l": []any{map[string]string{"k": "v"}}}} {
		if _, _, whole := m.tree(v); whole {
			t.Errorf("%#v read whole: a Go type a decoder never makes was taken for JSON", v)
		}
	}
}
