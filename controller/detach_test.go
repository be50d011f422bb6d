package controller_test

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestLinkDetachLooksLikeLinkDown pins the documented ambiguity
// (docs/controller.md, "Ambiguities"): with r3's end of r2—r3 detached or
// the link down, everything the two ends expose about the link reads the
// same (each end's interface state in YANG, LLDP, the log lines naming
// the ports, once timestamps are removed), so the sweep names both
// link_down on both ends. If the model ever exposes the difference this
// test fails and the controller can use it.
func TestLinkDetachLooksLikeLinkDown(t *testing.T) {
	ends := map[string]string{"r2": "GigabitEthernet0/0/0/1", "r3": "GigabitEthernet0/0/0"}
	stamp := regexp.MustCompile(`^\S+ \d+ (\d{4} )?\d\d:\d\d:\d\d(\.\d+)?:? ?`)
	seen := func(fault string) map[string]string {
		l := newTestLab(t, fault)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		out := map[string]string{}
		for dev, ifn := range ends {
			for _, p := range []string{
				"/openconfig-interfaces:interfaces/interface[name=" + ifn + "]/state/admin-status",
				"/openconfig-interfaces:interfaces/interface[name=" + ifn + "]/state/oper-status",
				"/openconfig-lldp:lldp/interfaces/interface[name=" + ifn + "]",
			} {
				res, err := l.fleet.Device(dev).CallTool(ctx, "network.yang.get", map[string]any{"path": p})
				if err != nil {
					out[dev+" "+p] = "error: " + err.Error()
					continue
				}
				b, _ := json.Marshal(res.StructuredContent)
				out[dev+" "+p] = string(b)
			}
			var lines []string
			for _, line := range strings.Split(l.syslog(t, dev), "\n") {
				if strings.Contains(line, ifn) {
					lines = append(lines, stamp.ReplaceAllString(line, ""))
				}
			}
			out[dev+" log"] = strings.Join(lines, "\n")
		}
		rep := l.ask(t, "what is wrong with the network?")
		out["sweep"] = strings.Join(rep.RootCauseName, ",") + " @ " + strings.Join(rep.FaultyDevices, ",")
		return out
	}
	detach, down := seen("link_detach r3:GigabitEthernet0/0/0"), seen("link_down r3:GigabitEthernet0/0/0")
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range detach {
			if !yield(k) {
				return
			}
		}
	}) {
		if detach[k] != down[k] {
			t.Errorf("%s differs: link_detach %q, link_down %q", k, detach[k], down[k])
		}
	}
	if got := detach["sweep"]; got != "link_down @ r2,r3" {
		t.Errorf("link_detach swept as %s", got)
	}
	if !strings.Contains(detach["r2 /openconfig-interfaces:interfaces/interface[name=GigabitEthernet0/0/0/1]/state/oper-status"], "DOWN") {
		t.Errorf("r2's end not read as DOWN: %v", detach)
	}
}
