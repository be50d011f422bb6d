package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// TestRefine checks that a refinement lays its keywords over the inferred
// schema and refuses to refine what the Go type does not have, so that a
// renamed field cannot silently lose its constraints.
func TestRefine(t *testing.T) {
	type item struct {
		Op string `json:"op,omitempty"`
	}
	type args struct {
		Name  string   `json:"name" jsonschema:"the name"`
		Tags  []string `json:"tags,omitempty"`
		Items []item   `json:"items,omitempty"`
		Any   any      `json:"any,omitempty"`
	}
	tests := []struct {
		name   string
		refine *jsonschema.Schema
		want   string // JSON of the schema, or
		err    string // a part of the error
	}{
		{name: "none", want: `{"type":"object","properties":{"name":{"type":"string","description":"the name"},` +
			`"tags":{"type":"array","items":{"type":"string"}},` +
			`"items":{"type":"array","items":{"type":"object","properties":{"op":{"type":"string"}},"additionalProperties":false}},` +
			`"any":true},"required":["name"],"additionalProperties":false}`},
		{name: "keywords", refine: &jsonschema.Schema{Properties: props{
			"name":  {MinLength: ptr(1), Description: "a name"},
			"tags":  {MaxItems: ptr(3), Items: &jsonschema.Schema{Enum: []any{"a", "b"}}},
			"items": {Items: &jsonschema.Schema{Properties: props{"op": {Default: jsonValue("merge")}}}},
			"any":   {Types: []string{"integer", "boolean"}},
		}}, want: `{"type":"object","properties":{"name":{"type":"string","description":"a name","minLength":1},` +
			`"tags":{"type":"array","items":{"type":"string","enum":["a","b"]},"maxItems":3},` +
			`"items":{"type":"array","items":{"type":"object","properties":{"op":{"type":"string","default":"merge"}},"additionalProperties":false}},` +
			`"any":{"type":["integer","boolean"]}},"required":["name"],"additionalProperties":false}`},
		{name: "required", refine: &jsonschema.Schema{Required: []string{"tags"}},
			want: `{"type":"object","properties":{"name":{"type":"string","description":"the name"},` +
				`"tags":{"type":"array","items":{"type":"string"}},` +
				`"items":{"type":"array","items":{"type":"object","properties":{"op":{"type":"string"}},"additionalProperties":false}},` +
				`"any":true},"required":["tags"],"additionalProperties":false}`},
		{name: "unknown property", refine: &jsonschema.Schema{Properties: props{"nmae": {MinLength: ptr(1)}}}, err: `no property "nmae"`},
		{name: "unknown nested property", refine: &jsonschema.Schema{Properties: props{
			"items": {Items: &jsonschema.Schema{Properties: props{"operation": {}}}}}}, err: `items[]: no property "operation"`},
		{name: "unknown required", refine: &jsonschema.Schema{Required: []string{"id"}}, err: `required "id"`},
		{name: "items of a string", refine: &jsonschema.Schema{Properties: props{"name": {Items: &jsonschema.Schema{}}}}, err: "no items"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := jsonschema.For[args](nil)
			if err != nil {
				t.Fatal(err)
			}
			dropNull(s)
			if tc.refine != nil {
				err = refine(s, tc.refine, "args")
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("refine: %v, want an error with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tc.want), &w); err != nil {
				t.Fatal(err)
			}
			if gj, wj := mustJSON(g), mustJSON(w); gj != wj {
				t.Errorf("schema\n got %s\nwant %s", gj, wj)
			}
		})
	}
}

// TestOutputSchemaOpen checks that a result's schema admits members its
// type does not have, and shortens a diff and changes to their JSON type.
func TestOutputSchemaOpen(t *testing.T) {
	got := mustJSON(commitOutput)
	for _, want := range []string{`"diff":{"type":"object"}`, `"deadline":{"type":"string"}`} {
		if !strings.Contains(got, want) {
			t.Errorf("commit output schema %s lacks %s", got, want)
		}
	}
	if strings.Contains(got, "additionalProperties") {
		t.Errorf("commit output schema is closed: %s", got)
	}
	if got := mustJSON(cliConfigureOutput); !strings.Contains(got, `"changes":{"type":"array"}`) {
		t.Errorf("cli.configure output schema: %s", got)
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
