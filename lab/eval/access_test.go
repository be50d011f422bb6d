package eval_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/eval"
	"github.com/netmcp/netmcp/lab/gen/suite"
)

// TestThrottledAccessLinksAndStrayResolvers runs cases of a seeded suite
// the gate's does not hold, each of which must be fully right:
//   - a router-host link throttled to 64 kbit/s, whose queue is full: a
//     few of the router's probes to the host are lost and the rest come
//     back after 800 ms, where its peers' take under a millisecond;
//   - a host whose resolver is its gateway, on networks whose first router
//     gets no answer from its own server, so that no router's answer is
//     there to compare the host's with.
func TestThrottledAccessLinksAndStrayResolvers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a seeded suite's networks")
	}
	s, err := eval.Plan{Cases: 160, Seed: 3}.Suite()
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{
		"ring-5-s1241034180/09",                 // link_bandwidth_throttling h2:eth0 rate=64
		"hub-spoke-18-s128930821-huawei-vrp/10", // link_bandwidth_throttling r12:GigabitEthernet0/0/3 rate=64
		"hub-spoke-5-s1080235090/16",            // host_incorrect_gateway h9 + link_bandwidth_throttling r1:GigabitEthernet0/0/5 rate=64
		"multi-as-33-s485470411-cisco-iosxr/03", // host_incorrect_dns h4
		"multi-as-26-s696132438-huawei-vrp/04",  // host_incorrect_dns h13
	}
	var cases []suite.Case
	for _, c := range s.Cases {
		if slices.Contains(ids, c.ID) {
			cases = append(cases, c)
		}
	}
	if len(cases) != len(ids) {
		t.Fatalf("the plan gave %d of the %d cases", len(cases), len(ids))
	}
	s.Cases = cases
	rep, err := eval.Run(context.Background(), s, eval.Options{Timeout: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Failures {
		t.Errorf("%s: %s: expected %s, got %s", f.Case, f.Faults, f.Expected, f.Got)
	}
}
