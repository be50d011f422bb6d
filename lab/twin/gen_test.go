//go:build linux

package twin

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/gen"
	"github.com/netmcp/netmcp/lab/topology"
)

// generatedTwins are the generated networks the twin check runs on: each
// has destinations behind equal-cost paths (the ring's opposite side,
// every leaf behind two spines, each AS's own ring) and an upstream
// provider that answers no traceroute.
var generatedTwins = []gen.Options{
	{Shape: gen.ShapeRing, Routers: 6, Seed: 11},
	{Shape: gen.ShapeFabric, Routers: 8, Seed: 12},
	{Shape: gen.ShapeMultiAS, Routers: 6, Seed: 13},
}

// generated returns the network o generates.
func generated(t *testing.T, o gen.Options) topology.Topology {
	t.Helper()
	topo, err := gen.Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// TestFollowsRoutesThroughBGP: on the generated fabric a leaf reaches the
// provider's prefix by a BGP route whose next hop is the border leaf's
// loopback, which the leaf reaches through either spine. A traceroute
// through either spine to the border, silent past it (the provider
// answers none), follows the routes; one that skips the spines does not.
func TestFollowsRoutesThroughBGP(t *testing.T) {
	topo := generated(t, generatedTwins[1])
	env := NewEnv(topo)
	n, err := newSim(topo)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := SimControl(n, env)
	if err != nil {
		t.Fatal(err)
	}
	env = env.withSimRoutes(fs)
	if proto, nhs := env.activeRoute("r3", mustAddr(t, "203.0.113.10")); proto != "bgp" || nhs != "10.255.0.6" {
		t.Fatalf("r3's route to the provider = %s %s, want bgp via r6's loopback 10.255.0.6 (the generator changed?)", proto, nhs)
	}
	for _, tc := range []struct {
		hops string
		ok   bool
	}{
		{"10.0.0.6 10.0.0.29 *", true},  // through r2 to r6, then the silent provider
		{"10.0.0.2 10.0.0.25 *", true},  // through r1 to r6
		{"10.0.0.29 *", false},          // r6 is no neighbour of r3
		{"10.0.0.6 10.0.0.29", false},   // ends before the destination, not silent
		{"10.0.0.6 * 10.0.0.29", false}, // silent inside the path
	} {
		if got := env.followsRoutes("r3", "203.0.113.10", tc.hops); got != tc.ok {
			t.Errorf("followsRoutes(r3, 203.0.113.10, %q) = %v, want %v", tc.hops, got, tc.ok)
		}
	}
}

// TestLabCompareGenerated runs the twin check on generated networks (as
// root, with FRR installed): the simulator and FRR agree on every fact of
// the converged network but the documented differences. The networks
// build at once, each its own namespaces.
func TestLabCompareGenerated(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipped: the twin check builds a real lab of FRR in network namespaces, which needs root")
	}
	if testing.Short() {
		t.Skip("skipped in -short: builds three real labs")
	}
	for k, o := range generatedTwins {
		topo := generated(t, o)
		t.Run(topo.Name, func(t *testing.T) {
			t.Parallel()
			compareTwins(t, topo, fmt.Sprintf("t%dg%d-", os.Getpid()%100000, k), 8*time.Minute)
		})
	}
}

// compareTwins runs the twin check on topo (namespaces named with prefix,
// at most timeout) and fails on any undocumented difference or on a
// namespace left behind; it logs the reports and how long they took.
func compareTwins(t *testing.T, topo topology.Topology, prefix string, timeout time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	reports, err := Run(ctx, topo, nil, Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range reports {
		r.Print(&b, false)
		if !r.OK() {
			t.Errorf("%s: %d undocumented differences", r.Scenario, r.Differ)
		}
	}
	t.Logf("%s compared in %.0f s\n%s", topo.Name, time.Since(start).Seconds(), b.String())
	if left, _ := filepath.Glob("/run/netns/" + prefix + "*"); len(left) > 0 {
		t.Errorf("namespaces left: %v", left)
	}
}

// mustAddr parses an address the test writes.
func mustAddr(t *testing.T, s string) netip.Addr {
	t.Helper()
	a, err := netip.ParseAddr(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
