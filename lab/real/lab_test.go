//go:build linux

package real

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
)

// needRoot skips a test that builds namespaces unless it runs as root
// with FRR installed.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("skipped: the real lab needs root (network namespaces, FRR)")
	}
	if err := checkTools(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set and we are root, but the real lab cannot run: %v", err)
		}
		t.Skipf("skipped: %v", err)
	}
}

// testPrefix makes this test's namespace names unique on the machine.
func testPrefix(tag string) string { return fmt.Sprintf("t%d%s-", os.Getpid()%100000, tag) }

// fastBGP returns the default topology with BGP timers 3/9 (keepalive,
// hold), so that a fault that silences a session shows within seconds.
func fastBGP() topology.Topology {
	topo := sim.DefaultTopology()
	for i := range topo.Devices {
		if b := topo.Devices[i].BGP; b != nil {
			b.Keepalive, b.Hold = 3, 9
		}
	}
	return topo
}

// TestRealLab builds the default topology once (BGP timers 3/9), checks
// convergence, reachability, the linux driver's reads and the faults on
// it, then tears it down and checks that nothing is left.
func TestRealLab(t *testing.T) {
	needRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	prefix := testPrefix("d")
	l, err := Up(ctx, fastBGP(), Options{Prefix: prefix, ConvergeTimeout: 60 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("default lab (3 routers, 2 hosts) converged in %.2f s", l.Converged.Seconds())
	closed := false
	defer func() {
		if !closed {
			_ = l.Close()
		}
	}()
	for _, n := range l.Notes() {
		t.Log("note: " + n)
	}
	t.Run("converged", func(t *testing.T) { testConverged(ctx, t, l) })
	t.Run("reachability", func(t *testing.T) { testReachability(ctx, t, l) })
	t.Run("driver", func(t *testing.T) { testDriver(ctx, t, l) })
	t.Run("faults", func(t *testing.T) { testFaults(ctx, t, l) })

	procs := l.procs
	dir := l.Dir()
	closed = true
	if err := l.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	for _, p := range procs {
		if p.alive() {
			t.Errorf("%s still running after Close", p.name)
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", p.cmd.Process.Pid)); err == nil {
			t.Errorf("%s (pid %d) still in /proc after Close (zombie?)", p.name, p.cmd.Process.Pid)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(netnsDir, prefix+"*")); len(left) > 0 {
		t.Errorf("namespaces left after Close: %v", left)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("lab directory %s left after Close", dir)
	}
	if out, _ := exec.Command("ip", "netns", "list").Output(); strings.Contains(string(out), prefix) {
		t.Errorf("ip netns list still shows %s*: %s", prefix, out)
	}
}

func testConverged(ctx context.Context, t *testing.T, l *Lab) {
	wantFull := map[string]int{"r1": 1, "r2": 2, "r3": 1}
	for r, want := range wantFull {
		got, err := l.OSPFFull(ctx, r)
		if err != nil || got != want {
			t.Errorf("%s: OSPF Full neighbours = %d, %v; want %d", r, got, err, want)
		}
	}
	wantBGP := map[string][]string{"r1": {"10.0.12.2"}, "r2": {"10.0.12.1", "10.255.0.3"}, "r3": {"10.255.0.2"}}
	for r, peers := range wantBGP {
		st, err := l.BGPStates(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range peers {
			if st[p] != "Established" {
				t.Errorf("%s: BGP %s is %q, want Established", r, p, st[p])
			}
		}
	}
	// r1 learned h3's LAN by BGP from r2 (iBGP from r3, next-hop-self).
	rib, err := l.Vtysh(ctx, "r1", "show ip route 10.3.0.0/24 json")
	if err != nil || !strings.Contains(string(rib), `"protocol":"bgp"`) {
		t.Errorf("r1: 10.3.0.0/24 not from BGP: %v\n%s", err, rib)
		for _, r := range []string{"r2", "r3"} {
			for _, c := range []string{"show bgp summary", "show ip bgp", "show ip route"} {
				out, _ := l.Vtysh(ctx, r, c)
				t.Logf("%s: %s:\n%s", r, c, out)
			}
		}
	}
}

func testReachability(ctx context.Context, t *testing.T, l *Lab) {
	// r1 reaches h3 across the real namespaces.
	if out, err := l.Exec(ctx, "r1", "ping", "-c", "1", "-W", "2", "10.3.0.10"); err != nil {
		t.Errorf("ping r1 -> h3: %v\n%s", err, out)
	}
	// h1 reaches its gateway through the VLAN 100 bridge.
	if out, err := l.Exec(ctx, "h1", "ping", "-c", "1", "-W", "2", "10.0.0.1"); err != nil {
		t.Errorf("ping h1 -> r1 Vlan100: %v\n%s", err, out)
	}
	// r1 resolves through h3's unbound (its resolv.conf).
	if out, err := l.Exec(ctx, "r1", "dig", "+short", "+time=2", "+tries=1", "h3.lab.example"); err != nil || !strings.Contains(string(out), "10.3.0.10") {
		t.Errorf("dig h3.lab.example from r1: %v %q", err, out)
		ss, _ := l.Exec(ctx, "h3", "ss", "-ulnp")
		nft, _ := l.Exec(ctx, "h3", "nft", "list", "ruleset")
		b, _ := os.ReadFile(filepath.Join(l.Dir(), "unbound", l.Namespace("h3"), "unbound.log"))
		t.Logf("h3's UDP sockets:\n%s\nh3's nftables:\n%s\nunbound.log:\n%s", ss, nft, b)
	}
}
