package controller

import "testing"

// TestParseIfHistory: an interface's link-layer changes are counted in
// each dialect's words, the line protocol's repeats are not, and only
// repeated down/up cycles are a flap.
func TestParseIfHistory(t *testing.T) {
	const xr = "Nov 24 14:21:50.024: %LINK-3-UPDOWN: Interface Gi0/0/0/1, changed state to "
	const lp = "Nov 24 14:21:50.024: %LINEPROTO-5-UPDOWN: Line protocol on Interface Gi0/0/0/1, changed state to "
	const vrp = "Nov 24 2026 14:21:50 r4 %%01IFPDT/4/IF_STATE(l): Interface GE0/0/1 has turned into "
	cases := []struct {
		name, log, iface string
		downs, ups       int
		flap             bool
	}{
		{"boot up only", xr + "up\n" + lp + "up", "Gi0/0/0/1", 0, 0, false},
		{"one down (link_down)", xr + "up\n" + xr + "down\n" + lp + "down", "Gi0/0/0/1", 1, 0, false},
		{"down and back once", xr + "down\n" + xr + "up", "Gi0/0/0/1", 1, 1, false},
		{"flap, down now", xr + "down\n" + lp + "down\n" + xr + "up\n" + lp + "up\n" + xr + "down", "Gi0/0/0/1", 2, 1, true},
		{"flap, up now", xr + "down\n" + xr + "up\n" + xr + "down\n" + xr + "up", "Gi0/0/0/1", 2, 2, true},
		{"VRP flap", vrp + "DOWN state.\n" + vrp + "UP state.\n" + vrp + "DOWN state.", "GE0/0/1", 2, 1, true},
		{"admin shutdown is not a change", "%LINK-5-CHANGED: Interface Gi0/0/0/1, changed state to administratively down", "Gi0/0/0/1", 0, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := parseIfHistory(c.log, 7)[c.iface]
			if h.Downs != c.downs || h.UpsAfter != c.ups || h.flapping() != c.flap {
				t.Errorf("got %+v flapping %v, want downs %d ups %d flapping %v", h, h.flapping(), c.downs, c.ups, c.flap)
			}
		})
	}
}
