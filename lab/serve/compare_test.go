//go:build linux

package serve

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/sim"
)

// TestCompare runs the twin check over the default topology with
// one fault (as root with FRR installed): every fact agrees or is a
// documented known difference, and the counts are those of the default
// lab (65 facts converged: 53 agree and 12 differ because the real lab
// has no VRFs; with r2-r3 down, 52 facts: 40 agree, 12 known).
func TestCompare(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipped: lab compare builds a real lab, which needs root")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	var out, errw bytes.Buffer
	o := CompareOptions{Topology: sim.DefaultTopology(), NetnsPrefix: fmt.Sprintf("t%dc-", os.Getpid()%100000), Faults: []string{"link_down r2:GigabitEthernet0/0/0/1"},
		Logger: slog.New(slog.NewTextHandler(&errw, nil))}
	differ, err := Compare(ctx, o, &out)
	t.Log("\n" + out.String())
	if err != nil {
		t.Fatalf("lab compare: %v\n%s", err, errw.String())
	}
	for _, want := range []string{
		"baseline: 65 facts: 53 agree, 12 known differences, 0 undocumented differences",
		"link_down r2:GigabitEthernet0/0/0/1: 52 facts: 40 agree, 12 known differences, 0 undocumented differences",
		"known:vrf-global", "known:ospf-down-listed", "known:bgp-nht-drop",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("lab compare's report lacks %q", want)
		}
	}
	if differ != 0 || strings.Contains(out.String(), "DIFFER") {
		t.Errorf("lab compare found undocumented differences")
	}
	if left, _ := filepath.Glob("/run/netns/" + o.NetnsPrefix + "*"); len(left) > 0 {
		t.Errorf("namespaces left: %v", left)
	}
}

// TestCompareRefuses checks the refusals that need no lab.
func TestCompareRefuses(t *testing.T) {
	var out bytes.Buffer
	compare := func(fault string) error {
		_, err := Compare(context.Background(), CompareOptions{Topology: sim.DefaultTopology(), Faults: []string{fault}}, &out)
		return err
	}
	err := compare("no_such_fault r1")
	if os.Geteuid() != 0 {
		if err == nil || !strings.Contains(err.Error(), "root") {
			t.Errorf("lab compare as a user = %v, want the refusal naming root", err)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), "unknown name") {
		t.Errorf("lab compare with an unknown fault = %v", err)
	}
	err = compare("ospf_acl_block r1:GigabitEthernet0/0/0")
	if err == nil || !strings.Contains(err.Error(), "the twin check applies") {
		t.Errorf("lab compare with a fault outside the check = %v", err)
	}
	// A target the topology lacks is refused before any lab is built.
	err = compare("mtu_mismatch r1:GigabitEthernet0/0/9")
	if err == nil || !strings.Contains(err.Error(), "no interface GigabitEthernet0/0/9") {
		t.Errorf("lab compare with a missing interface = %v", err)
	}
}
