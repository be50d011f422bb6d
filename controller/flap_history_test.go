package controller

import (
	"testing"
	"time"
)

// TestParseIfHistory: an interface's link-layer changes are counted in
// each dialect's words, the line protocol's repeats are not, a carrier
// lost and got back is a bounce, and an administrative shutdown is
// counted apart (a link shut at either end did not flap).
func TestParseIfHistory(t *testing.T) {
	const xr = "Nov 24 14:21:50.024: %LINK-3-UPDOWN: Interface Gi0/0/0/1, changed state to "
	const lp = "Nov 24 14:21:50.024: %LINEPROTO-5-UPDOWN: Line protocol on Interface Gi0/0/0/1, changed state to "
	const vrp = "Nov 24 2026 14:21:50 r4 %%01IFPDT/4/IF_STATE(l): Interface GE0/0/1 has turned into "
	cases := []struct {
		name, log, iface string
		downs, ups       int
		flap             bool
		shuts            int
	}{
		{"boot up only", xr + "up\n" + lp + "up", "Gi0/0/0/1", 0, 0, false, 0},
		{"one down (link_down)", xr + "up\n" + xr + "down\n" + lp + "down", "Gi0/0/0/1", 1, 0, false, 0},
		{"down and back once", xr + "down\n" + xr + "up", "Gi0/0/0/1", 1, 1, true, 0},
		{"flap, down now", xr + "down\n" + lp + "down\n" + xr + "up\n" + lp + "up\n" + xr + "down", "Gi0/0/0/1", 2, 1, true, 0},
		{"flap, up now", xr + "down\n" + xr + "up\n" + xr + "down\n" + xr + "up", "Gi0/0/0/1", 2, 2, true, 0},
		{"VRP flap", vrp + "DOWN state.\n" + vrp + "UP state.\n" + vrp + "DOWN state.", "GE0/0/1", 2, 1, true, 0},
		{"admin shutdown is not a change", "%LINK-5-CHANGED: Interface Gi0/0/0/1, changed state to administratively down", "Gi0/0/0/1", 0, 0, false, 1},
		{"shut and restored", "%LINK-5-CHANGED: Interface Gi0/0/0/1, changed state to administratively down\n" + xr + "up", "Gi0/0/0/1", 0, 0, false, 1},
		{"VRP shutdown", "Nov 24 2026 14:21:50 r4 %%01IFNET/4/IF_STATE(l): Interface GE0/0/1 has turned into administratively DOWN state.", "GE0/0/1", 0, 0, false, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := parseIfHistory(c.log, nil, time.Time{}, DefaultFlapWindow, 7)[c.iface]
			if h.Downs != c.downs || h.UpsAfter != c.ups || h.bounced() != c.flap || h.Shuts != c.shuts {
				t.Errorf("got %+v bounced %v, want downs %d ups %d bounced %v shuts %d", h, h.bounced(), c.downs, c.ups, c.flap, c.shuts)
			}
		})
	}
}

// TestParseIfHistoryWindow: with a time per line, changes older than the
// window are not counted, so a link that flapped and has been stable since
// is not flapping now, while a recent bounce is; lines without a time are counted; times that are
// not one per line date nothing. The history names the window it applied
// (its evidence words): none when no line could be dated.
func TestParseIfHistoryWindow(t *testing.T) {
	const xr = "Nov 24 14:21:50.024: %LINK-3-UPDOWN: Interface Gi0/0/0/1, changed state to "
	now := time.Date(2026, 11, 24, 15, 0, 0, 0, time.UTC)
	old, recent := now.Add(-time.Hour), now.Add(-time.Minute)
	flap := xr + "down\n" + xr + "up\n" + xr + "down\n" + xr + "up\n"
	cases := []struct {
		name       string
		times      []time.Time
		downs, ups int
		flap       bool
		window     time.Duration
	}{
		{"no times: every line", nil, 2, 2, true, 0},
		{"all recent", []time.Time{recent, recent, recent, recent}, 2, 2, true, DefaultFlapWindow},
		{"all an hour ago: history", []time.Time{old, old, old, old}, 0, 0, false, 0},
		{"old first cycle, one recent", []time.Time{old, old, recent, recent}, 1, 1, true, DefaultFlapWindow},
		{"old cycle, only an up recent", []time.Time{old, old, old, recent}, 0, 0, false, DefaultFlapWindow},
		{"undated lines count", []time.Time{{}, {}, old, recent}, 1, 2, true, DefaultFlapWindow},
		{"not one per line", []time.Time{old, old, old}, 2, 2, true, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := parseIfHistory(flap, c.times, now, DefaultFlapWindow, 7)["Gi0/0/0/1"]
			if h.Downs != c.downs || h.UpsAfter != c.ups || h.bounced() != c.flap || h.Window != c.window {
				t.Errorf("got %+v bounced %v, want downs %d ups %d bounced %v window %s", h, h.bounced(), c.downs, c.ups, c.flap, c.window)
			}
		})
	}
}

// TestLogTimes: the syslog read's _meta times parse, "" is an undated
// line, and anything else is no times at all.
func TestLogTimes(t *testing.T) {
	ts := "2026-11-24T14:21:50.024Z"
	want := time.Date(2026, 11, 24, 14, 21, 50, 24e6, time.UTC)
	got := logTimes(map[string]any{"netmcp/times": []any{ts, ""}})
	if len(got) != 2 || !got[0].Equal(want) || !got[1].IsZero() {
		t.Errorf("logTimes = %v", got)
	}
	for _, bad := range []map[string]any{nil, {"netmcp/times": "x"}, {"netmcp/times": []any{1}}, {"netmcp/times": []any{"yesterday"}}} {
		if got := logTimes(bad); got != nil {
			t.Errorf("logTimes(%v) = %v, want nil", bad, got)
		}
	}
}
