package cluster

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// TestReports: a report put through one replica is listed and read
// through another; an unknown or malformed id is ErrNoReport.
func TestReports(t *testing.T) {
	url := startNATS(t, 1)[0]
	inv := devices(4)
	rec := &recorder{}
	a, b := join(t, url, "a", testTTL, 1, inv, rec), join(t, url, "b", testTTL, 1, inv, rec)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if ids, err := b.ReportIDs(ctx); err != nil || len(ids) != 0 {
		t.Fatalf("no report yet: %v %v", ids, err)
	}
	for _, id := range []string{"20260102T030405Z-abcdef", "20260102T030406Z-012345"} {
		if err := a.PutReport(ctx, id, []byte(`{"id":"`+id+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.PutReport(ctx, "../x", []byte(`{}`)); err == nil {
		t.Fatal("a report id with a path was stored")
	}
	ids, err := b.ReportIDs(ctx)
	if err != nil || !slices.Equal(ids, []string{"20260102T030405Z-abcdef", "20260102T030406Z-012345"}) {
		t.Fatalf("ids through b: %v %v", ids, err)
	}
	got, err := b.Report(ctx, "20260102T030406Z-012345")
	if err != nil || string(got) != `{"id":"20260102T030406Z-012345"}` {
		t.Fatalf("report through b: %s %v", got, err)
	}
	for _, id := range []string{"20990101T000000Z-000000", "a.b", ""} {
		if _, err := b.Report(ctx, id); !errors.Is(err, ErrNoReport) {
			t.Errorf("report %q: %v, want ErrNoReport", id, err)
		}
	}
}
