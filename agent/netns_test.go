package agent

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/agent/discover"
	"github.com/netmcp/netmcp/netproto"
)

// TestRealLLDPDiscovery (root, lldpd): three network namespaces in a line
// r1 - r2 - r3 joined by veth pairs, a real lldpd in each advertising its
// agent's D2D TLV (lldpd's custom-tlv). Each agent discovers its
// neighbours through lldpcli, and r1 reaches r2 over mTLS pinned to the
// thumbprint r2's lldpd carried, and gets a verified signed result. (The
// agents themselves listen on loopback; the device data is the simulated
// lab's.)
func TestRealLLDPDiscovery(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for network namespaces")
	}
	for _, bin := range []string{"ip", "lldpd", "lldpcli"} {
		if _, err := exec.LookPath(bin); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("CI is set but %s is not installed (scripts/install-deps.sh installs it)", bin)
			}
			t.Skipf("%s not installed", bin)
		}
	}
	d := newDomain(t, domainOpts{})
	tag := fmt.Sprintf("%d", os.Getpid()%100000)
	dir := t.TempDir()
	// lldpd and lldpcli drop privileges: the socket's directory must be
	// searchable by their user.
	for _, p := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ns := func(n string) string { return "d2d" + tag + n }
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v: %s", args, err, out)
		}
	}
	names := []string{"r1", "r2", "r3"}
	for _, n := range names {
		run("ip", "netns", "add", ns(n))
		n := n
		t.Cleanup(func() {
			if b, err := os.ReadFile(filepath.Join(dir, n+".pid")); err == nil {
				var pid int
				fmt.Sscan(strings.TrimSpace(string(b)), &pid)
				if p, err := os.FindProcess(pid); err == nil && pid > 0 {
					p.Kill()
				}
			}
			exec.Command("ip", "netns", "del", ns(n)).Run()
		})
		run("ip", "-n", ns(n), "link", "set", "lo", "up")
	}
	for i, l := range [][2]string{{"r1", "r2"}, {"r2", "r3"}} {
		a, b := fmt.Sprintf("v%s%da", tag, i), fmt.Sprintf("v%s%db", tag, i)
		run("ip", "link", "add", a, "type", "veth", "peer", "name", b)
		run("ip", "link", "set", a, "netns", ns(l[0]))
		run("ip", "link", "set", b, "netns", ns(l[1]))
		run("ip", "-n", ns(l[0]), "addr", "add", fmt.Sprintf("10.98.%d.1/30", i), "dev", a)
		run("ip", "-n", ns(l[1]), "addr", "add", fmt.Sprintf("10.98.%d.2/30", i), "dev", b)
		run("ip", "-n", ns(l[0]), "link", "set", a, "up")
		run("ip", "-n", ns(l[1]), "link", "set", b, "up")
	}
	for _, n := range names {
		conf := fmt.Sprintf("configure system hostname %s\nconfigure lldp tx-interval 1\n%s\n", n, d.agents[n].Advert().LLDPDConfig())
		cf := filepath.Join(dir, n+".conf")
		if err := os.WriteFile(cf, []byte(conf), 0o644); err != nil { // lldpd reads it unprivileged
			t.Fatal(err)
		}
		run("ip", "netns", "exec", ns(n), "lldpd", "-u", filepath.Join(dir, n+".sock"), "-p", filepath.Join(dir, n+".pid"), "-O", cf, "-I", "v"+tag+"*")
		d.agents[n].cfg.Discoverer = discover.LLDPCli{Run: discover.LLDPCliCommand(filepath.Join(dir, n+".sock"), ns(n))}
	}
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	var got []discover.Neighbor
	var err error
	for time.Now().Before(deadline) {
		got, err = d.agents["r2"].Discover(ctx)
		if err == nil && len(got) == 2 {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	if len(got) != 2 || got[0].Name != "r1" || got[1].Name != "r3" {
		out, _ := exec.Command("ip", "netns", "exec", ns("r2"), "lldpcli", "-u", filepath.Join(dir, "r2.sock"), "show", "neighbors", "-f", "keyvalue").CombinedOutput()
		t.Fatalf("r2 discovered %+v (%v)\n%s", got, err, out)
	}
	for _, n := range got {
		if n.Advert != d.agents[n.Name].Advert() {
			t.Fatalf("%s's TLV through lldpd differs from its agent's", n.Name)
		}
	}
	for time.Now().Before(deadline) {
		if ns1, _ := d.agents["r1"].Discover(ctx); len(ns1) == 1 {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	if _, err := d.agents["r1"].Call(ctx, "r2", netproto.ToolYangGet, map[string]any{"path": countersPath}); err != nil {
		t.Fatalf("r1 -> r2 with the pin from real LLDP: %v", err)
	}
}
