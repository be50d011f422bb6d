package yang

import (
	"encoding/json"
	"flag"
	"os"
	"reflect"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := "testdata/" + name
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestDiffGolden(t *testing.T) {
	a, b := loadTree(t, "running.json"), loadTree(t, "candidate.json")
	for _, tc := range []struct {
		name string
		s    *Schema
	}{{"diff.golden.json", DefaultSchema()}, {"diff-noschema.golden.json", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			changes := Diff(a, b, tc.s)
			out, err := json.MarshalIndent(changes, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, append(out, '\n'))
		})
	}
}

func TestDiffCases(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want []Change
	}{
		{"equal", `{"m:a": {"x": 1}}`, `{"m:a": {"x": 1}}`, nil},
		{"leaf modify", `{"m:a": {"x": 1}}`, `{"m:a": {"x": 2}}`,
			[]Change{{Op: "modify", Path: "/m:a/x", Old: 1.0, New: 2.0}}},
		{"container add is one change", `{}`, `{"m:a": {"b": {"c": 1, "d": 2}}}`,
			[]Change{{Op: "add", Path: "/m:a", New: map[string]any{"b": map[string]any{"c": 1.0, "d": 2.0}}}}},
		{"entry delete is one change", `{"m:a": {"l": [{"name": "x", "v": 1}, {"name": "y"}]}}`, `{"m:a": {"l": [{"name": "y"}]}}`,
			[]Change{{Op: "delete", Path: "/m:a/l[name='x']", Old: map[string]any{"name": "x", "v": 1.0}}}},
		{"entry order ignored", `{"m:a": {"l": [{"name": "x"}, {"name": "y"}]}}`, `{"m:a": {"l": [{"name": "y"}, {"name": "x"}]}}`, nil},
		{"leaf-list as value", `{"m:a": {"ll": [1, 2]}}`, `{"m:a": {"ll": [2, 1, 3]}}`,
			[]Change{{Op: "modify", Path: "/m:a/ll", Old: []any{1.0, 2.0}, New: []any{2.0, 1.0, 3.0}}}},
		{"type change", `{"m:a": {"x": {"y": 1}}}`, `{"m:a": {"x": "s"}}`,
			[]Change{{Op: "modify", Path: "/m:a/x", Old: map[string]any{"y": 1.0}, New: "s"}}},
		{"module change in path", `{"m:a": {"n:b": {"c": 1}}}`, `{"m:a": {"n:b": {"c": 2}}}`,
			[]Change{{Op: "modify", Path: "/m:a/n:b/c", Old: 1.0, New: 2.0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := mustJSON(t, tt.a).(map[string]any), mustJSON(t, tt.b).(map[string]any)
			got := Diff(a, b, nil)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Diff = %s, want %s", jsonText(got), jsonText(tt.want))
			}
		})
	}
}

func TestUnifiedDiff(t *testing.T) {
	a, b := loadTree(t, "running.json"), loadTree(t, "candidate.json")
	golden(t, "unified.golden.diff", []byte(UnifiedDiff(a, b, "running", "candidate")))
	if d := UnifiedDiff(a, Clone(a).(map[string]any), "a", "b"); d != "" {
		t.Errorf("UnifiedDiff of equal trees = %q", d)
	}
}

func TestDiffLinesReconstructs(t *testing.T) {
	cases := [][2][]string{
		{{"a", "b", "c"}, {"a", "x", "c"}},
		{{}, {"a"}},
		{{"a"}, {}},
		{{"a", "b", "c", "d", "e"}, {"e", "d", "c", "b", "a"}},
		{{"x", "a", "b", "x", "a"}, {"a", "x", "b", "b", "a", "x"}},
	}
	for _, c := range cases {
		ops := diffLines(c[0], c[1])
		var gotA, gotB []string
		for _, o := range ops {
			if o.kind != '+' {
				gotA = append(gotA, o.text)
			}
			if o.kind != '-' {
				gotB = append(gotB, o.text)
			}
		}
		if !reflect.DeepEqual(gotA, nilIfEmpty(c[0])) || !reflect.DeepEqual(gotB, nilIfEmpty(c[1])) {
			t.Errorf("diffLines(%q, %q) does not reconstruct: %q %q", c[0], c[1], gotA, gotB)
		}
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}
