package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// askRun runs `netmcp ask` with args and returns stdout, stderr and the error.
func askRun(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	root := newRootCmd(append([]string{"ask"}, args...))
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetIn(strings.NewReader(""))
	err := root.ExecuteContext(context.Background())
	return out.String(), errb.String(), err
}

// askJSON is the part of the --json schema the tests read.
type askJSON struct {
	ID              string   `json:"id"`
	IsAnomaly       bool     `json:"is_anomaly"`
	FaultyDevices   []string `json:"faulty_devices"`
	RootCauseName   []string `json:"root_cause_name"`
	Diagnosis       string   `json:"diagnosis"`
	Calls           []any    `json:"calls"`
	Steps           []any    `json:"steps"`
	ElapsedMS       float64  `json:"elapsed_ms"`
	ProposedChanges []struct {
		Device string `json:"device"`
		Diff   string `json:"diff"`
	} `json:"proposed_changes"`
	Remediation *struct {
		Consent  string `json:"consent"`
		Verified bool   `json:"verified"`
		Result   string `json:"result"`
	} `json:"remediation"`
}

// TestAskLab runs the sweep on the built-in lab, healthy and broken,
// through the command, and reads the saved report back with --show.
func TestAskLab(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		fault   string
		anomaly bool
		devices []string
		names   []string
	}{
		{"", false, []string{}, []string{}},
		{"link_down r1:GigabitEthernet0/0/0", true, []string{"r1", "r2"}, []string{"link_down"}},
		{"bgp_acl_block r2:GigabitEthernet0/0/0/0", true, []string{"r2"}, []string{"bgp_acl_block"}},
	}
	for _, c := range cases {
		args := []string{"--lab", "--json", "--reports", dir}
		if c.fault != "" {
			args = append(args, "--fault", c.fault)
		}
		out, errs, err := askRun(t, append(args, "what is wrong with the network?")...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.fault, err, errs)
		}
		var rep askJSON
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%s: not JSON: %v\n%s", c.fault, err, out)
		}
		if rep.IsAnomaly != c.anomaly || !slices.Equal(rep.FaultyDevices, c.devices) || !slices.Equal(rep.RootCauseName, c.names) {
			t.Errorf("%q: is_anomaly %v faulty %v names %v; want %v %v %v\n%s", c.fault, rep.IsAnomaly, rep.FaultyDevices, rep.RootCauseName, c.anomaly, c.devices, c.names, rep.Diagnosis)
		}
		if len(rep.Calls) == 0 || len(rep.Steps) == 0 || rep.ElapsedMS <= 0 {
			t.Errorf("%q: calls %d, steps %d, elapsed %v", c.fault, len(rep.Calls), len(rep.Steps), rep.ElapsedMS)
		}
		for _, want := range []string{"step 1:", "[r1] network.yang.get", "diagnosis:", "report saved:"} {
			if !strings.Contains(errs, want) {
				t.Errorf("%q: progress lacks %q:\n%s", c.fault, want, errs)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, rep.ID+".json")); err != nil {
			t.Errorf("report not saved: %v", err)
		}
		shown, _, err := askRun(t, "--reports", dir, "--show", rep.ID)
		if err != nil || !strings.Contains(shown, "Diagnosis: "+rep.Diagnosis) {
			t.Errorf("--show %s: %v\n%s", rep.ID, err, shown)
		}
	}
}

// TestAskRemediationPolicy: --yes without a policy is refused; with a
// policy that allows the fix, the BGP ACL entries are removed by a
// confirmed commit, the sweep verifies it, and the commit is confirmed; a
// policy that does not allow it leaves the network unchanged.
func TestAskRemediationPolicy(t *testing.T) {
	dir := t.TempDir()
	fault := "icmp_acl_block r3:GigabitEthernet0/0/0"
	if _, _, err := askRun(t, "--lab", "--reports", dir, "--yes", "--fault", fault, "can r1 reach h3"); err == nil || !strings.Contains(err.Error(), "--policy") {
		t.Fatalf("--yes without --policy: %v", err)
	}
	deny := filepath.Join(dir, "deny.yaml")
	allow := filepath.Join(dir, "allow.yaml")
	os.WriteFile(deny, []byte("auto-approve: true\nroot-causes: [bgp_acl_block]\n"), 0o600)
	os.WriteFile(allow, []byte("auto-approve: true\nroot-causes: [icmp_acl_block]\ndevices: [r3]\n"), 0o600)
	_, errs, err := askRun(t, "--lab", "--json", "--reports", dir, "--yes", "--policy", deny, "--fault", fault, "can r1 reach h3")
	if err != nil {
		t.Fatal(err, errs)
	}
	if !strings.Contains(errs, "does not allow fixing icmp_acl_block") {
		t.Errorf("refusal not told:\n%s", errs)
	}
	if strings.Contains(errs, "network.yang.edit") {
		t.Errorf("a change was attempted without consent:\n%s", errs)
	}
	out, errs, err := askRun(t, "--lab", "--json", "--reports", dir, "--yes", "--policy", allow, "--fault", fault, "can r1 reach h3")
	if err != nil {
		t.Fatal(err, errs)
	}
	// Two JSON documents: the report, then the report with the remediation.
	dec := json.NewDecoder(strings.NewReader(out))
	var first, final askJSON
	if err := dec.Decode(&first); err != nil {
		t.Fatal(err)
	}
	if err := dec.Decode(&final); err != nil {
		t.Fatal(err)
	}
	if len(first.ProposedChanges) != 1 || first.ProposedChanges[0].Device != "r3" {
		t.Fatalf("changes %+v", first.ProposedChanges)
	}
	if final.Remediation == nil || final.Remediation.Consent != "policy" || !final.Remediation.Verified || !strings.Contains(final.Remediation.Result, "confirmed") {
		t.Fatalf("remediation %+v\n%s", final.Remediation, errs)
	}
	for _, want := range []string{"network.yang.edit", "] network.commit comment=", "confirmed=120", "network.commit confirm=true"} {
		if !strings.Contains(errs, want) {
			t.Errorf("progress lacks %q", want)
		}
	}
}

// TestAskErrors: usage errors exit 2 with a clear message.
func TestAskErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--lab"}, "no intent"},
		{[]string{"--lab", "make me a sandwich"}, "matches no rule"},
		{[]string{"what is wrong with the network"}, "--inventory FILE or --lab"},
		{[]string{"--inventory", "x.yaml", "--lab", "what is wrong"}, "exclusive"},
		{[]string{"--inventory", "x.yaml", "--fault", "link_down r1:Gi0", "what is wrong"}, "--fault needs --lab"},
		{[]string{"--lab", "--fault", "no_such_fault r1", "what is wrong"}, "unknown name"},
		{[]string{"--reports", t.TempDir(), "--show", "last"}, "no report"},
		{[]string{"--lab", "--flap-window", "-1m", "what is wrong"}, "--flap-window must not be negative"},
	} {
		_, _, err := askRun(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}
