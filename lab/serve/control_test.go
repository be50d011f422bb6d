package serve

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/lab/sim"
)

// TestControl drives a running lab through its control endpoint as
// `netmcp lab fault` does: list, add, clear by id and by words, clear
// every fault; a clear that names nothing is refused, naming all; a
// request without the token, or with a wrong one, is refused.
func TestControl(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	start, err := ParseFaults(sim.DefaultTopology(), []string{"bgp_acl_block r2:GigabitEthernet0/0/0/1"}, false)
	if err != nil {
		t.Fatal(err)
	}
	var notes bytes.Buffer
	l, err := Up(ctx, Options{Topology: sim.DefaultTopology(), Faults: start, StateDir: dir, Notes: &notes})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, want := range []string{"netmcp lab: inventory " + filepath.Join(dir, InventoryFile), "netmcp lab: control endpoint 127.0.0.1:",
		"netmcp lab: the devices answer only requests with the bearer token in " + filepath.Join(dir, TokenFile), "netmcp lab: fault f1: bgp_acl_block r2:GigabitEthernet0/0/0/1 (config on r2)"} {
		if !strings.Contains(notes.String(), want) {
			t.Errorf("notes lack %q:\n%s", want, notes.String())
		}
	}
	if st, err := os.Stat(filepath.Join(dir, ControlFile)); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("control file: %v %v", st, err)
	}
	c, err := Dial(dir)
	if err != nil {
		t.Fatal(err)
	}
	ids := func(fs []ActiveFault, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range fs {
			out = append(out, f.ID)
		}
		return strings.Join(out, ",")
	}
	if got := ids(c.List(ctx)); got != "f1" {
		t.Errorf("list = %s, want f1", got)
	}
	if got := ids(c.Add(ctx, "link_down r1:GigabitEthernet0/0/0")); got != "f2" {
		t.Errorf("add = %s, want f2", got)
	}
	if got := ids(c.Add(ctx, "link_flap r2:GigabitEthernet0/0/0/1")); got != "f3" {
		t.Errorf("add = %s, want f3", got)
	}
	if _, err := c.Add(ctx, "link_down r1:Gi9"); err == nil || !strings.Contains(err.Error(), "no interface") {
		t.Errorf("add of a bad target: %v", err)
	}
	if got := ids(c.Clear(ctx, "link_down r1:GigabitEthernet0/0/0")); got != "f2" {
		t.Errorf("clear by words = %s, want f2", got)
	}
	if _, err := c.Clear(ctx, ""); err == nil || !strings.Contains(err.Error(), "or ask for all") {
		t.Errorf("clear of nothing: %v", err)
	}
	if got := ids(c.ClearAll(ctx)); got != "f1,f3" {
		t.Errorf("clear all = %s, want f1,f3", got)
	}
	if got := ids(c.List(ctx)); got != "" {
		t.Errorf("list after clearing all = %s", got)
	}
	if _, err := c.Clear(ctx, "f1"); err == nil || !strings.Contains(err.Error(), "no fault") {
		t.Errorf("clearing a cleared fault: %v", err)
	}

	// The endpoint refuses a request without the token or with a wrong one.
	for _, auth := range []string{"", "Bearer wrong", "Bearer " + c.info.Token + "x", c.info.Token} {
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+c.Address()+"/v1/faults", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: status %d, want 401", auth, resp.StatusCode)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Dial(dir); err == nil || !strings.Contains(err.Error(), "no running lab") {
		t.Errorf("dial with no lab: %v", err)
	}
}

// TestParseFaults checks that a bad fault is refused before anything
// starts, and that the real lab refuses one it does not build.
func TestParseFaults(t *testing.T) {
	for _, tc := range []struct {
		fault string
		real  bool
		want  string
	}{
		{"nope r1", false, `unknown name`},
		{"link_down r9:Gi0", false, `no device "r9"`},
		{"link_down r1:GigabitEthernet0/0/0 speed=1", false, `unknown parameter "speed"`},
		{"link_high_packet_corruption r1:GigabitEthernet0/0/0 percent=300", false, "out of range"},
		{"host_incorrect_gateway r1", false, "applies to hosts"},
		{"link_down", false, "want NAME TARGET"},
		{"ospf_neighbor_missing r1:GigabitEthernet0/0/0", true, "not built on the real lab yet (it builds bgp_acl_block, "},
		{"link_fragmentation_disabled r1:GigabitEthernet0/0/0", true, ""},
		{"link_detach r1:GigabitEthernet0/0/0", true, ""},
		{"link_detach r1:GigabitEthernet0/0/0", false, ""},
	} {
		fs, err := ParseFaults(sim.DefaultTopology(), []string{tc.fault}, tc.real)
		switch {
		case tc.want == "" && (err != nil || len(fs) != 1 || fs[0].String() != tc.fault):
			t.Errorf("%q: %v %v", tc.fault, fs, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q (real %v): %v, want an error with %q", tc.fault, tc.real, err, tc.want)
		}
	}
}
