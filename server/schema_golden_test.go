package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/server/servertest"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden schemas under testdata/schemas")

// servedSchemas lists the tools of a server with the default options (the
// default approval gate: writes carry the approval members) over an MCP
// session, and returns each network.* tool's inputSchema and outputSchema
// as generic JSON, by the draft's name.
func servedSchemas(t *testing.T, compat bool) map[string]map[string]any {
	t.Helper()
	s, err := server.New(servertest.New(), server.Options{CompatNames: compat})
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := s.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); s.Close() })
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, tl := range res.Tools {
		name := tl.Name
		if compat {
			name = netproto.CanonicalName(name)
		}
		if !slices.Contains(netproto.NetworkTools, name) {
			continue
		}
		b, err := json.Marshal(map[string]any{"inputSchema": tl.InputSchema, "outputSchema": tl.OutputSchema})
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		sortRequired(v)
		out[name] = v
	}
	return out
}

// sortRequired sorts every "required" list in v: the order of its names
// means nothing.
func sortRequired(v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if l, ok := e.([]any); ok && k == "required" {
				slices.SortFunc(l, func(a, b any) int {
					as, _ := a.(string)
					bs, _ := b.(string)
					return strings.Compare(as, bs)
				})
				continue
			}
			sortRequired(e)
		}
	case []any:
		for _, e := range t {
			sortRequired(e)
		}
	}
}

// TestNetworkToolSchemasGolden compares the served schemas of the eight
// network.* tools with testdata/schemas/NAME.json (go test -run
// TestNetworkToolSchemasGolden -update rewrites them). The comparison is
// of JSON values: neither member order nor the order of required names
// matters.
func TestNetworkToolSchemasGolden(t *testing.T) {
	served := servedSchemas(t, false)
	for _, name := range netproto.NetworkTools {
		t.Run(name, func(t *testing.T) {
			got, ok := served[name]
			if !ok {
				t.Fatalf("%s not listed", name)
			}
			text, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			text = append(text, '\n')
			file := filepath.Join("testdata", "schemas", name+".json")
			if *updateGolden {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, text, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			golden, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (go test -run TestNetworkToolSchemasGolden -update writes it)", err)
			}
			var want map[string]any
			if err := json.Unmarshal(golden, &want); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("served schemas of %s differ from %s\n got: %s\nwant: %s", name, file, text, bytes.TrimSpace(golden))
			}
		})
	}
}

// TestNetworkToolSchemasCompat checks that the compatibility names
// (network_cli_exec) serve the very same schemas.
func TestNetworkToolSchemasCompat(t *testing.T) {
	dotted, compat := servedSchemas(t, false), servedSchemas(t, true)
	for _, name := range netproto.NetworkTools {
		if compat[name] == nil {
			t.Errorf("%s not listed as %s", name, netproto.CompatName(name))
			continue
		}
		if !reflect.DeepEqual(dotted[name], compat[name]) {
			t.Errorf("%s: schemas under %s differ", name, netproto.CompatName(name))
		}
	}
}

// TestNetworkToolSchemasDraft checks the served schemas against what the
// MCP-NET draft names: the arguments of its examples (section 8 and
// appendix A) with their JSON types, the required ones, and the members
// of the results it shows.
func TestNetworkToolSchemasDraft(t *testing.T) {
	type member = schemaMember
	tests := []struct {
		tool     string
		args     []member // properties of inputSchema
		required []string // in inputSchema's required
		enum     map[string][]any
		results  []member // properties of outputSchema (the tool's own result)
		resultOf []string // in outputSchema's required
	}{
		{tool: netproto.ToolCLIExec,
			args: []member{{"cmd", []string{"string"}}}, required: []string{"cmd"},
			results: []member{{"stdout", []string{"string"}}}, resultOf: []string{"stdout"}},
		{tool: netproto.ToolCLIConfigure,
			args:    []member{{"commands", []string{"array"}}, {"lines", []string{"string"}}},
			results: []member{{"status", []string{"string"}}}, resultOf: []string{"status"}},
		{tool: netproto.ToolYangGet,
			args: []member{{"path", []string{"string"}}, {"datastore", nil}}, required: []string{"path"},
			enum:    map[string][]any{"datastore": {"running", "operational"}},
			results: []member{{"data", nil}}, resultOf: []string{"data"}},
		{tool: netproto.ToolYangEdit,
			args: []member{{"target", nil}, {"edit", []string{"array"}}}, required: []string{"edit"},
			results: []member{{"commit-id", []string{"string"}}}, resultOf: []string{"commit-id"}},
		{tool: netproto.ToolCommit,
			args:    []member{{"confirmed", []string{"integer", "boolean"}}, {"confirm", []string{"boolean"}}},
			results: []member{{"status", []string{"string"}}, {"rollbackTimeout", []string{"integer"}}}, resultOf: []string{"status"}},
		{tool: netproto.ToolRollback,
			args:    []member{{"commit-id", []string{"string"}}},
			results: []member{{"status", []string{"string"}}, {"commit-id", []string{"string"}}}, resultOf: []string{"status"}},
		{tool: netproto.ToolFilePull,
			args: []member{{"name", nil}}, required: []string{"name"},
			enum:    map[string][]any{"name": {"running-config", "startup-config"}},
			results: []member{{"name", []string{"string"}}, {"content", []string{"string"}}, {"sha256", []string{"string"}}}, resultOf: []string{"name", "content", "sha256"}},
		{tool: netproto.ToolFilePush,
			args: []member{{"name", nil}, {"content", []string{"string"}}}, required: []string{"name", "content"},
			enum:    map[string][]any{"name": {"startup-config"}},
			results: []member{{"name", []string{"string"}}, {"status", []string{"string"}}}, resultOf: []string{"name", "status"}},
	}
	served := servedSchemas(t, false)
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			sch := served[tc.tool]
			if sch == nil {
				t.Fatalf("%s not listed", tc.tool)
			}
			in, _ := sch["inputSchema"].(map[string]any)
			if in["type"] != "object" {
				t.Errorf("inputSchema type %v, want object", in["type"])
			}
			checkMembers(t, "inputSchema", in, tc.args, tc.required)
			for name, values := range tc.enum {
				prop, _ := in["properties"].(map[string]any)[name].(map[string]any)
				enum, _ := prop["enum"].([]any)
				for _, v := range values {
					if !slices.Contains(enum, v) {
						t.Errorf("inputSchema %s: enum %v lacks %v", name, enum, v)
					}
				}
			}
			// A write tool's result is its own, or approval-required.
			out, _ := sch["outputSchema"].(map[string]any)
			if anyOf, ok := out["anyOf"].([]any); ok {
				out, _ = anyOf[0].(map[string]any)
			}
			checkMembers(t, "outputSchema", out, tc.results, tc.resultOf)
		})
	}
}

// schemaMember is a property a schema must have, with the JSON types it
// must admit (nil: any).
type schemaMember struct {
	name  string
	types []string
}

// checkMembers checks that schema has each member with one of its types
// and that every name of required is required.
func checkMembers(t *testing.T, kind string, schema map[string]any, members []schemaMember, required []string) {
	t.Helper()
	props, _ := schema["properties"].(map[string]any)
	for _, m := range members {
		prop, ok := props[m.name].(map[string]any)
		if !ok {
			t.Errorf("%s has no property %q", kind, m.name)
			continue
		}
		if m.types == nil {
			continue
		}
		var types []string
		switch ty := prop["type"].(type) {
		case string:
			types = []string{ty}
		case []any:
			for _, x := range ty {
				s, _ := x.(string)
				types = append(types, s)
			}
		}
		for _, want := range m.types {
			if !slices.Contains(types, want) {
				t.Errorf("%s property %q has type %v, want %s among them", kind, m.name, prop["type"], want)
			}
		}
	}
	req, _ := schema["required"].([]any)
	for _, name := range required {
		if !slices.Contains(req, any(name)) {
			t.Errorf("%s: %q is not required (required: %v)", kind, name, req)
		}
	}
}
