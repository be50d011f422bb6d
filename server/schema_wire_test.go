package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/server"
)

// TestToolSchemasHaveNoBooleanSubschemas lists the tools of a simulated
// router and checks that no input or output schema uses a boolean subschema
// (true/false). JSON Schema allows them, but the TypeScript SDK, and so
// MCP Inspector and the conformance suite's client, reject a tools/list
// containing one, which would hide every tool from such hosts.
func TestToolSchemasHaveNoBooleanSubschemas(t *testing.T) {
	cs, _ := connect(t, simR1(t), server.Options{}, nil)
	res, err := cs.ListTools(context.Background(), &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) < 8 {
		t.Fatalf("only %d tools listed", len(res.Tools))
	}
	for _, tool := range res.Tools {
		for kind, schema := range map[string]any{"inputSchema": tool.InputSchema, "outputSchema": tool.OutputSchema} {
			raw, err := json.Marshal(schema)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			if where := booleanSubschema(v, ""); where != "" {
				t.Errorf("%s %s has a boolean subschema at %s", tool.Name, kind, where)
			}
		}
	}
}

// booleanSubschema returns the JSON path of the first boolean subschema
// under properties, items, anyOf, oneOf or allOf, or "".
func booleanSubschema(v any, at string) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	check := func(sub any, path string) string {
		if _, isBool := sub.(bool); isBool {
			return path
		}
		return booleanSubschema(sub, path)
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for k, sub := range props {
			if w := check(sub, at+".properties."+k); w != "" {
				return w
			}
		}
	}
	if items, ok := m["items"]; ok {
		if w := check(items, at+".items"); w != "" {
			return w
		}
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf"} {
		list, _ := m[key].([]any)
		for i, sub := range list {
			if w := check(sub, fmt.Sprintf("%s.%s[%d]", at, key, i)); w != "" {
				return w
			}
		}
	}
	return ""
}
