package sim

import (
	"encoding/json"
	"testing"
	"time"
)

// TestConfigTextRoundTrip renders every router of the default topology in
// both dialects and parses the text back into the same configuration tree.
func TestConfigTextRoundTrip(t *testing.T) {
	topo := DefaultTopology()
	for _, d := range topo.Devices {
		if d.Kind == "host" {
			continue
		}
		for _, dialect := range []string{DialectVRP, DialectXR} {
			t.Run(d.Name+"/"+dialect, func(t *testing.T) {
				c := devConfig{dev: d, hostname: d.Name + "-x"}
				text := renderConfig(c, dialect, time.Date(2025, 10, 19, 3, 27, 0, 0, time.UTC), "admin")
				back, err := parseConfigText(text, dialect, d)
				if err != nil {
					t.Fatalf("parse: %v\n%s", err, text)
				}
				want, _ := json.MarshalIndent(deviceToTree(c.dev, c.hostname), "", " ")
				got, _ := json.MarshalIndent(deviceToTree(back.dev, back.hostname), "", " ")
				if string(want) != string(got) {
					t.Errorf("round trip differs\ntext:\n%s\nwant:\n%s\ngot:\n%s", text, want, got)
				}
			})
		}
	}
}
