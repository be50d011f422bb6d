package main

import (
	"encoding/json"
	"errors"
	"os/exec"
	"testing"
)

func TestDiagCommand(t *testing.T) {
	var ee *exitError
	if _, err := runRoot(t, "", "diag", "ping", "x;id"); !errors.As(err, &ee) || ee.code != 2 {
		t.Fatalf("injection not refused with exit 2: %v", err)
	}
	if _, err := exec.LookPath("ping"); err != nil {
		t.Skip("ping not installed (apt-get install iputils-ping)")
	}
	out, err := runRoot(t, "", "diag", "ping", "127.0.0.1", "-c", "2", "--interval-ms", "200", "--json")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("bad JSON %q: %v", out, err)
	}
	if v["packets_received"] != 2.0 || v["destination_ip"] != "127.0.0.1" {
		t.Fatalf("unexpected %v", v)
	}
}
