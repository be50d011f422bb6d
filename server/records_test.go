package server

import (
	"slices"
	"testing"
)

type testRecord struct {
	Name string   `json:"name"`
	Tags []string `json:"tags"`
}

func cloneTestRecord(r *testRecord) *testRecord {
	c := *r
	c.Tags = slices.Clone(r.Tags)
	return &c
}

// TestRecords: the same behaviour in memory and in a directory: a saved
// record is read back, is the caller's own copy, is listed and is gone
// once removed; a record that is not JSON is a named error.
func TestRecords(t *testing.T) {
	for _, tc := range []struct {
		name string
		dir  string
	}{
		{"memory", ""},
		{"directory", t.TempDir()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := newRecords(tc.dir, "test record", cloneTestRecord)
			if r, err := rs.load("a"); r != nil || err != nil {
				t.Fatalf("load of nothing = %v, %v", r, err)
			}
			in := &testRecord{Name: "one", Tags: []string{"x"}}
			if err := rs.save("b", in); err != nil {
				t.Fatal(err)
			}
			if err := rs.save("a", &testRecord{Name: "two"}); err != nil {
				t.Fatal(err)
			}
			in.Tags[0] = "changed after save"
			got, err := rs.load("b")
			if err != nil || got.Name != "one" || !slices.Equal(got.Tags, []string{"x"}) {
				t.Fatalf("load = %+v, %v", got, err)
			}
			got.Tags[0] = "changed after load"
			if again, _ := rs.load("b"); again.Tags[0] != "x" {
				t.Fatalf("a loaded record shares its tags with the store: %+v", again)
			}
			if keys := rs.keys(); !slices.Equal(keys, []string{"a", "b"}) {
				t.Fatalf("keys = %v", keys)
			}
			rs.remove("b")
			if r, _ := rs.load("b"); r != nil {
				t.Fatalf("removed record still read: %+v", r)
			}
			if keys := rs.keys(); !slices.Equal(keys, []string{"a"}) {
				t.Fatalf("keys after remove = %v", keys)
			}
		})
	}
}
