//go:build linux

package twin

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/sim"
)

// ecmpRing is the topology of the multipath tests: six OSPF routers in a
// ring with two chords, so that many destinations have two equal-cost paths.
const ecmpRing = "testdata/ecmp-ring.yaml"

// TestECMPRingFacts reads the ring's facts from the simulator: routes with
// every equal-cost next hop, as FRR installs them.
func TestECMPRingFacts(t *testing.T) {
	topo, err := sim.LoadTopology(ecmpRing)
	if err != nil {
		t.Fatal(err)
	}
	env := NewEnv(topo)
	n, err := newSim(topo)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := SimControl(n, env)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"route r1 10.255.0.3/32": "ospf 10.0.1.2,10.0.6.1,10.0.7.2", // via r2, r6 and r4
		"route r2 10.255.0.4/32": "ospf 10.0.1.1,10.0.2.2",          // via r1 and via r3
		"route r1 10.5.0.0/24":   "ospf 10.0.6.1,10.0.7.2",          // via r6 and via r4
		"route r1 10.255.0.2/32": "ospf 10.0.1.2",                   // one path
		"route r5 10.1.0.0/24":   "ospf 10.0.4.1,10.0.5.2",          // via r4 and via r6
		"route r1 10.4.0.0/24":   "ospf 10.0.7.2",                   // the chord
		"route r1 10.1.0.0/24":   "connected GigabitEthernet0/0/3",
	}
	for k, v := range want {
		if fs[k].Value != v {
			t.Errorf("%s = %q, want %q", k, fs[k].Value, v)
		}
	}
	env = env.withSimRoutes(fs)
	paths := []struct {
		from, to, hops string
		ok             bool
	}{
		{"r1", "10.255.0.3", "10.0.1.2 10.255.0.3", true}, // through r2
		{"r1", "10.255.0.3", "10.0.6.1 10.255.0.3", true}, // through r6
		{"r1", "10.255.0.3", "10.0.7.2 10.255.0.3", true}, // through r4
		{"r2", "10.5.0.10", "10.0.2.2 10.0.3.2 10.0.4.2 10.5.0.10", true},
		{"r2", "10.5.0.10", "10.0.2.2 10.0.8.2 10.0.5.1 10.5.0.10", true},
		{"r1", "10.255.0.2", "10.0.6.1 10.255.0.2", false},   // r6 is no next hop of r1 towards r2
		{"r1", "10.255.0.3", "10.0.1.2 *", true},             // silent past a hop on the routes (the caller compares tails)
		{"r1", "10.255.0.3", "10.0.6.1 * 10.255.0.3", false}, // silent inside the path
		{"r1", "10.255.0.3", "* *", false},                   // nothing answers
		{"r1", "10.255.0.2", "10.0.6.1 *", false},            // r6 is no next hop of r1 towards r2, silent or not
		{"r1", "10.255.0.3", "10.0.1.2 10.255.0.4", false},   // elsewhere
	}
	for _, p := range paths {
		if got := env.followsRoutes(p.from, p.to, p.hops); got != p.ok {
			t.Errorf("followsRoutes(%s, %s, %q) = %v, want %v", p.from, p.to, p.hops, got, p.ok)
		}
	}
}

// TestLabCompareECMPRing compares the ring simulated and real (as root,
// with FRR installed): every difference is a documented one.
func TestLabCompareECMPRing(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipped: the twin check builds a real lab of FRR in network namespaces, which needs root")
	}
	topo, err := sim.LoadTopology(ecmpRing)
	if err != nil {
		t.Fatal(err)
	}
	compareTwins(t, topo, fmt.Sprintf("t%de-", os.Getpid()%100000), 240*time.Second)
}
