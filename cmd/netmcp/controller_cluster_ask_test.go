package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/lab/serve"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
)

// clusterAskGridEnv sizes TestControllerClusterAskGrid: ROWSxCOLS.
const clusterAskGridEnv = "NETMCP_CLUSTER_ASK_GRID"

// clusterAskSweepEnv, when set to 1, adds the whole-network sweep to
// TestControllerClusterAskGrid's asks at any size (it is asked on grids
// of at most clusterAskSweepMax routers without it).
const clusterAskSweepEnv = "NETMCP_CLUSTER_ASK_SWEEP"

// clusterAskSweepMax is the largest grid whose sweep
// TestControllerClusterAskGrid asks by default.
const clusterAskSweepMax = 100

// gridAsks are the asks of TestControllerClusterAskGrid on a rows×cols
// grid with gridFaults injected: reachability across the ACL at one
// corner and the path MTU across the MTU mismatch at the other. Each
// reads every router of the fleet (interfaces, network instances, ACLs)
// and then the routes and probes of the routers of its path.
func gridAsks(rows, cols int) []string {
	a, b := mtuFaultPair(rows, cols)
	return []string{
		fmt.Sprintf("verify reachability between r%d and r%d", cols+1, cols+2),
		fmt.Sprintf("path MTU from r%d to r%d", a, b),
	}
}

// mtuFaultPair names the routers of the MTU fault: the router at row
// rows-2, column cols-2 (0-based) and its left neighbour.
func mtuFaultPair(rows, cols int) (left, right int) {
	right = (rows-2)*cols + cols - 2 + 1
	return right - 1, right
}

// gridFaults are the faults of TestControllerClusterAskGrid. A grid's
// router numbers its links in the order they were made, so an inner
// router's GigabitEthernet0/0/0/1 faces its left neighbour.
func gridFaults(rows, cols int) []string {
	_, b := mtuFaultPair(rows, cols)
	return []string{
		fmt.Sprintf("icmp_acl_block r%d:GigabitEthernet0/0/0/1", cols+2),
		fmt.Sprintf("mtu_mismatch r%d:GigabitEthernet0/0/0/1 mtu=1400", b),
	}
}

// TestControllerClusterAskGrid: three replicas over a simulated grid of
// routers (NETMCP_CLUSTER_ASK_GRID, default 50x60: 3,000 routers, each its
// own MCP server) with two faults. Every router is held by exactly one
// replica; a call through each replica on a router another holds is
// answered; and each ask of gridAsks through each replica gives the
// report a single controller (`controller serve` without --cluster, over
// the same lab) gives. The whole-network sweep is asked too on grids of
// at most 100 routers, or with NETMCP_CLUSTER_ASK_SWEEP=1. It logs the
// time of each phase and the controllers' resident memory.
func TestControllerClusterAskGrid(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a lab, a NATS server and four controllers")
	}
	grid := os.Getenv(clusterAskGridEnv)
	if grid == "" {
		grid = "50x60"
	}
	rows, cols, err := sim.ParseGrid(grid)
	if err != nil {
		t.Fatal(err)
	}
	if rows < 3 || cols < 3 {
		t.Fatalf("%s=%s: want at least 3x3", clusterAskGridEnv, grid)
	}
	topo, err := sim.GridTopology(rows, cols)
	if err != nil {
		t.Fatal(err)
	}
	n := rows * cols
	// The lab serves in this process: a listener per router, and two
	// connections (requests, and the standalone stream) per session,
	// one session from the single controller and one from the holder.
	if need := uint64(5*n + 500); fdLimit() < need {
		t.Fatalf("this process may open %d files; a %s grid needs about %d (ulimit -n)", fdLimit(), grid, need)
	}
	// A lease renewal is a write per device per TTL/4: at 2 s, a
	// thousand devices are 2,000 writes a second.
	ttl := clusterTestTTL
	if n > 100 {
		ttl = 30 * time.Second
	}
	asks := gridAsks(rows, cols)
	if n <= clusterAskSweepMax || os.Getenv(clusterAskSweepEnv) == "1" {
		asks = append(asks, sweepIntent)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout(15*time.Minute))
	defer cancel()

	begin := time.Now()
	dir := t.TempDir()
	lab, err := serve.Up(ctx, serve.Options{Topology: topo, StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer lab.Close()
	for _, words := range gridFaults(rows, cols) {
		f, err := topology.ParseFault(words)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := lab.Inject(f); err != nil {
			t.Fatalf("%s: %v", words, err)
		}
	}
	inv := filepath.Join(dir, serve.InventoryFile)
	t.Logf("lab of %d routers up in %v", n, time.Since(begin).Round(time.Millisecond))
	natsURL := startTestNATS(t)

	// The replicas first, started together so that none claims the whole
	// fleet alone, then the single controller while they connect.
	start := time.Now()
	reps := []*replicaProc{
		spawnControllerProc(t, "ga", replicaArgs(t, natsURL, inv, "ga", ttl)),
		spawnControllerProc(t, "gb", replicaArgs(t, natsURL, inv, "gb", ttl)),
		spawnControllerProc(t, "gc", replicaArgs(t, natsURL, inv, "gc", ttl)),
	}
	single := spawnControllerProc(t, "single", []string{"controller", "serve", "--inventory", inv, "--listen", "127.0.0.1:0", "--reports", t.TempDir()})
	for _, r := range reps {
		r.connect(t)
	}
	single.connect(t)
	t.Logf("4 controllers serving MCP after %v", time.Since(start).Round(time.Millisecond))
	var names []string
	for _, d := range topo.Devices {
		names = append(names, d.Name)
	}
	logHeld := progressLog(t, 30*time.Second, reps)
	owner := ownedOnceWithin(t, ctx, reps, names, "every router held by exactly one replica", 3*time.Minute+2*ttl)
	logHeld()
	held := map[*replicaProc]int{}
	for _, r := range owner {
		held[r]++
	}
	t.Logf("3 replicas (lease TTL %v): every router held once after %v (%d, %d, %d)", ttl, time.Since(start).Round(time.Millisecond),
		held[reps[0]], held[reps[1]], held[reps[2]])

	// Through each replica, a router another replica holds.
	for _, r := range reps {
		for _, d := range names {
			if owner[d] != r {
				if err := readHostname(ctx, r, d); err != nil {
					t.Fatalf("routed call: %v", err)
				}
				break
			}
		}
	}

	for _, intent := range asks {
		want, wall := askThrough(t, ctx, single, intent)
		t.Logf("ask %q through the single controller: %v (engine %.0f ms), %d calls: %.300s", intent, wall.Round(time.Millisecond), want.ElapsedMS, len(want.Calls), want.Diagnosis)
		if len(want.Unreachable) > 0 {
			t.Fatalf("the single controller could not read %d routers (the reference must read them all): %v", len(want.Unreachable), firstOf(want.Unreachable, 5))
		}
		if !want.IsAnomaly || len(want.RootCauseName) == 0 {
			t.Fatalf("ask %q: the single controller found nothing wrong: %s", intent, want.Diagnosis)
		}
		askEach(t, ctx, reps, held, n, want, intent)
	}
	for _, r := range append([]*replicaProc{single}, reps...) {
		t.Logf("%s: resident memory %s", r.name, procRSS(r.cmd.Process.Pid))
	}
	t.Logf("lab (this test process): resident memory %s; whole test %v", procRSS(os.Getpid()), time.Since(begin).Round(time.Millisecond))
}

// progressLog logs, every period until the function it returns is
// called, how many devices each replica holds.
func progressLog(t *testing.T, period time.Duration, reps []*replicaProc) (stop func()) {
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			var counts []string
			for _, r := range reps {
				ctx, cancel := context.WithTimeout(context.Background(), period)
				held, all, unnamed, err := r.listHeld(ctx)
				cancel()
				if err != nil {
					counts = append(counts, fmt.Sprintf("%s: %v", r.name, err))
					continue
				}
				counts = append(counts, fmt.Sprintf("%s holds %d of %d, names no holder for %d", r.name, len(held), all, unnamed))
			}
			t.Logf("%s", strings.Join(counts, "; "))
		}
	}()
	return func() { close(done) }
}

// replicaArgs are the arguments of a replica over inv with lease TTL ttl.
func replicaArgs(t *testing.T, natsURL, inv, name string, ttl time.Duration) []string {
	return []string{"controller", "serve", "--inventory", inv, "--listen", "127.0.0.1:0", "--reports", t.TempDir(),
		"--cluster", natsURL, "--cluster-name", name, "--cluster-lease-ttl", ttl.String()}
}

// firstOf lists up to k entries of m, as "key: value".
func firstOf(m map[string]string, k int) []string {
	var out []string
	for key, v := range m {
		if len(out) == k {
			break
		}
		out = append(out, key+": "+v)
	}
	return out
}

// procRSS is process pid's resident memory as Linux reports it, or
// "unknown".
func procRSS(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			if kb, err := strconv.Atoi(f[1]); err == nil {
				return fmt.Sprintf("%.0f MB", float64(kb)/1024)
			}
		}
	}
	return "unknown"
}
