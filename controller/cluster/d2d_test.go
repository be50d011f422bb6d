package cluster

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// TestD2DReports: a D2D report added through one replica is listed and
// read through another; the same report added again is a duplicate, a
// different one under its id is refused and changes nothing.
func TestD2DReports(t *testing.T) {
	url := startNATS(t, 1)[0]
	inv := devices(2)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, b := join(t, url, "da", testTTL, 1, inv, nil), join(t, url, "db", testTTL, 1, inv, nil)
	da, err := a.D2D(ctx)
	if err != nil {
		t.Fatal(err)
	}
	db, err := b.D2D(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ids, err := db.IDs(); err != nil || len(ids) != 0 {
		t.Fatalf("no report yet: %v %v", ids, err)
	}
	for _, id := range []string{"rep-1", "d2d.r1.0002"} {
		if dup, err := da.Add(id, []byte(`{"id":"`+id+`"}`)); err != nil || dup {
			t.Fatalf("add %s: dup %v, %v", id, dup, err)
		}
	}
	if dup, err := db.Add("rep-1", []byte(`{"id":"rep-1"}`)); err != nil || !dup {
		t.Fatalf("the same report through another replica: dup %v, %v; want a duplicate", dup, err)
	}
	if _, err := db.Add("rep-1", []byte(`{"id":"rep-1","x":1}`)); !errors.Is(err, ErrD2DConflict) {
		t.Fatalf("a different report under rep-1: %v, want ErrD2DConflict", err)
	}
	for _, id := range []string{"../x", "", ".hidden"} {
		if _, err := da.Add(id, []byte(`{}`)); err == nil {
			t.Errorf("a report under id %q was kept", id)
		}
	}
	ids, err := db.IDs()
	if err != nil || !slices.Equal(ids, []string{"d2d.r1.0002", "rep-1"}) {
		t.Fatalf("ids through db: %v %v", ids, err)
	}
	got, err := db.Get("rep-1")
	if err != nil || string(got) != `{"id":"rep-1"}` {
		t.Fatalf("rep-1 through db: %s %v (the first report must be kept)", got, err)
	}
	for _, id := range []string{"nope", "../x"} {
		if _, err := db.Get(id); !errors.Is(err, ErrNoD2D) {
			t.Errorf("report %q: %v, want ErrNoD2D", id, err)
		}
	}
}
