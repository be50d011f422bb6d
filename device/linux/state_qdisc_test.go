//go:build linux

package linux

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/device"
)

// TestShaperDropsAreOutDiscards: packets a shaper (tc tbf, as the real
// lab's link_bandwidth_throttling) drops at an interface's queue are its
// out-discards, as a router's output queue drops are, although the
// link's own counters (tx_dropped) do not count them.
func TestShaperDropsAreOutDiscards(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to create network namespaces (run the tests as root, as CI does)")
	}
	a, b := fmt.Sprintf("lxqa%d", os.Getpid()), fmt.Sprintf("lxqb%d", os.Getpid())
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v: %s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	for _, ns := range []string{a, b} {
		run("ip", "netns", "add", ns)
		t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns).Run() })
	}
	run("ip", "-n", a, "link", "add", "eth-a", "type", "veth", "peer", "name", "eth-b", "netns", b)
	run("ip", "-n", a, "addr", "add", "10.99.0.1/30", "dev", "eth-a")
	run("ip", "-n", b, "addr", "add", "10.99.0.2/30", "dev", "eth-b")
	run("ip", "-n", a, "link", "set", "eth-a", "up")
	run("ip", "-n", b, "link", "set", "eth-b", "up")
	drv, err := Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close()
	outDiscards := func() float64 {
		t.Helper()
		v, err := drv.Get(context.Background(), device.Operational, "/openconfig-interfaces:interfaces")
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(v)
		var tree struct {
			Iface []struct {
				Name  string `json:"name"`
				State struct {
					Counters map[string]any `json:"counters"`
				} `json:"state"`
			} `json:"interface"`
		}
		if err := json.Unmarshal(raw, &tree); err != nil {
			t.Fatal(err)
		}
		for _, i := range tree.Iface {
			if i.Name == "eth-a" {
				var n float64
				_, _ = fmt.Sscan(fmt.Sprint(i.State.Counters["out-discards"]), &n)
				return n
			}
		}
		t.Fatalf("no eth-a in %s", raw)
		return 0
	}
	if n := outDiscards(); n != 0 {
		t.Fatalf("out-discards %v before any shaper", n)
	}
	run("ip", "netns", "exec", a, "tc", "qdisc", "replace", "dev", "eth-a", "root", "tbf", "rate", "8kbit", "burst", "1600", "latency", "50ms")
	// 40 pings of 1 KB in 0.4 s through 8 kbit/s: most wait past 50 ms and drop.
	_ = exec.Command("ip", "netns", "exec", a, "ping", "-q", "-n", "-c", "40", "-i", "0.01", "-s", "1000", "-w", "2", "10.99.0.2").Run()
	got := outDiscards()
	if got < 10 {
		t.Errorf("out-discards %v after the shaper's queue overflowed, want the qdisc's drops (tc: %s)", got,
			run("ip", "netns", "exec", a, "tc", "-s", "qdisc", "show", "dev", "eth-a"))
	}
	if sys := strings.TrimSpace(run("ip", "netns", "exec", a, "cat", "/sys/class/net/eth-a/statistics/tx_dropped")); sys != "0" {
		t.Logf("tx_dropped %s (the kernel counted some itself)", sys)
	}
}
