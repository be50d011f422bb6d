package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestLabDemoCommand runs `netmcp lab demo --json` (README's first
// command; the demo's steps are tested in lab/serve): eight steps, none
// failed.
func TestLabDemoCommand(t *testing.T) {
	out, err := runRootSplit(t, "lab", "demo", "--json")
	if err != nil {
		t.Fatalf("lab demo --json: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 8 {
		t.Fatalf("want 8 steps, got %d:\n%s", len(lines), out)
	}
	for _, l := range lines {
		var st struct {
			Step  int    `json:"step"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal([]byte(l), &st); err != nil || st.Error != "" {
			t.Errorf("step %q: %v", l, err)
		}
	}
}
