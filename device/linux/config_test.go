//go:build linux

package linux_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/linux"
	"github.com/netmcp/netmcp/device/linux/frrtest"
	"github.com/netmcp/netmcp/netproto"
)

// childEnv makes the test binary the child of TestConfigCrashRollback.
const childEnv = "NETMCP_LINUXCFG_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		os.Exit(crashChild(spec))
	}
	os.Exit(m.Run())
}

var nsSeq atomic.Int32

// frrConf is the FRR configuration of the test namespace.
const frrConf = `ip route 192.0.2.0/26 Null0
interface e0
 ip ospf cost 10
exit
router bgp 65001
 neighbor 198.51.100.2 remote-as 65002
exit`

// frrNamespace creates a namespace with a veth pair e0 (198.51.100.1/30)
// and e1, runs FRR in it with frrConf, and removes it all at the end.
func frrNamespace(t testing.TB) string {
	t.Helper()
	frrtest.Need(t)
	ns := fmt.Sprintf("lxcfg%d-%d", os.Getpid(), nsSeq.Add(1))
	if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
		t.Fatalf("ip netns add: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() })
	for _, args := range [][]string{
		{"link", "set", "lo", "up"},
		{"link", "add", "e0", "type", "veth", "peer", "name", "e1"},
		{"addr", "add", "198.51.100.1/30", "dev", "e0"},
		{"link", "set", "e0", "up"},
		{"link", "set", "e1", "up"},
	} {
		if out, err := exec.Command("ip", append([]string{"-n", ns}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	frrtest.Start(t, ns, frrConf)
	return ns
}

// frrRunning is FRR's running configuration in ns, read by vtysh directly.
func frrRunning(t *testing.T, ns string) string {
	t.Helper()
	out, err := exec.Command("vtysh", "-N", ns, "-c", "show running-config").Output()
	if err != nil {
		t.Fatalf("vtysh show running-config: %v", err)
	}
	return string(out)
}

// mtu is the MTU of dev in ns, read by iproute2 directly.
func mtu(t *testing.T, ns, dev string) string {
	t.Helper()
	out, err := exec.Command("ip", "-n", ns, "-o", "link", "show", dev).Output()
	if err != nil {
		t.Fatalf("ip link show %s: %v", dev, err)
	}
	f := strings.Fields(string(out))
	for i := range f {
		if f[i] == "mtu" && i+1 < len(f) {
			return f[i+1]
		}
	}
	t.Fatalf("no mtu in %q", out)
	return ""
}

// ipShow runs ip -n ns ARGS and returns its output.
func ipShow(t *testing.T, ns string, args ...string) string {
	t.Helper()
	out, err := exec.Command("ip", append([]string{"-n", ns}, args...)...).Output()
	if err != nil {
		t.Fatalf("ip %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

func openCfg(t *testing.T, ns, dir string) (device.Driver, device.Configurer) {
	t.Helper()
	d, err := device.Open(context.Background(), "linux://"+ns, device.Options{StateDir: dir})
	if err != nil {
		t.Fatalf("open linux://%s: %v", ns, err)
	}
	t.Cleanup(func() { d.Close() })
	c, ok := d.(device.Configurer)
	if !ok {
		t.Fatal("linux://NETNS is not a device.Configurer")
	}
	return d, c
}

func mtuEdit(dev string, v int) device.Edit {
	return device.Edit{Operation: device.OpMerge,
		Path: fmt.Sprintf("/openconfig-interfaces:interfaces/interface[name='%s']/config/mtu", dev), Value: v}
}

var alice = device.Owner{Session: "s1", User: "alice"}

func wantNetErr(t *testing.T, what string, err error, code int, contains string) {
	t.Helper()
	var ne *netproto.Error
	if !errors.As(err, &ne) || ne.Code != code {
		t.Fatalf("%s: %v (%T), want a %d %s error", what, err, err, code, netproto.CodeName(code))
	}
	if !strings.Contains(err.Error(), contains) {
		t.Fatalf("%s: %v, want it to say %q", what, err, contains)
	}
	t.Logf("%s: %v", what, err)
}

// TestConfigCommitRollback: a YANG edit (MTU, netlink) and FRR lines (a
// static route, a BGP neighbour's description) committed, shown in the
// diff, visible in the kernel and in FRR, then rolled back.
func TestConfigCommitRollback(t *testing.T) {
	ns := frrNamespace(t)
	d, c := openCfg(t, ns, t.TempDir())
	ctx := context.Background()
	info := d.Info()
	if !info.SupportsRollback || info.RollbackTimeout == 0 || info.CLIDialect != linux.DialectFRR ||
		!strings.Contains(fmt.Sprint(info.Datastores), "candidate") {
		t.Fatalf("Info %+v: want candidate, rollback and the frr dialect", info)
	}
	if _, err := d.Exec(ctx, "configure terminal"); err == nil {
		t.Fatal("Exec ran a configuration command")
	}
	e1 := "/openconfig-interfaces:interfaces/interface[name='e1']"
	if err := c.Edit(ctx, alice, []device.Edit{mtuEdit("e0", 1400),
		{Path: e1 + "/config/enabled", Value: false},
		{Path: e1 + "/subinterfaces/subinterface[index='0']/ipv4/addresses/address[ip='192.0.2.129']",
			Value: map[string]any{"ip": "192.0.2.129", "config": map[string]any{"ip": "192.0.2.129", "prefix-length": 25}}},
	}); err != nil {
		t.Fatal(err)
	}
	lines := []string{"ip route 203.0.113.0/24 Null0", "router bgp 65001", " neighbor 198.51.100.2 description to-b"}
	if err := c.Configure(ctx, alice, lines); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(ctx, alice); err != nil {
		t.Fatal(err)
	}
	diff, err := c.Diff(ctx, alice)
	if err != nil || len(diff.Changes) != 4 || !strings.Contains(diff.Unified, "1400") || !strings.Contains(diff.Unified, "192.0.2.129") || !strings.Contains(diff.Unified, "203.0.113.0/24") {
		t.Fatalf("Diff: %+v, %v; want the MTU and the FRR lines", diff, err)
	}
	if got := mtu(t, ns, "e0"); got != "1500" {
		t.Fatalf("MTU %s before the commit", got)
	}
	res, err := c.Commit(ctx, alice, device.CommitOptions{Comment: "mtu and route"})
	if err != nil || res.Status != device.StatusCommitted || res.Diff == nil || len(res.Diff.Changes) == 0 {
		t.Fatalf("Commit: %+v, %v", res, err)
	}
	if got := mtu(t, ns, "e0"); got != "1400" {
		t.Errorf("MTU %s after the commit, want 1400", got)
	}
	if a := ipShow(t, ns, "-o", "addr", "show", "e1"); !strings.Contains(a, "192.0.2.129/25") {
		t.Errorf("e1's addresses after the commit: %s", a)
	}
	if l := ipShow(t, ns, "-o", "link", "show", "e1"); strings.Contains(l, ",UP") || strings.Contains(l, "<UP") {
		t.Errorf("e1 still up after the commit: %s", l)
	}
	run := frrRunning(t, ns)
	for _, want := range []string{"ip route 203.0.113.0/24 Null0", "neighbor 198.51.100.2 description to-b", "ip ospf cost 10"} {
		if !strings.Contains(run, want) {
			t.Errorf("FRR's running configuration lacks %q after the commit:\n%s", want, run)
		}
	}
	v, err := d.Get(ctx, device.Running, "/netmcp-frr:configuration/line")
	if err != nil || !strings.Contains(fmt.Sprint(v), "ip route 203.0.113.0/24 Null0") {
		t.Errorf("Get running FRR lines: %v, %v", v, err)
	}
	if v, err := d.Get(ctx, device.Running, mtuEdit("e0", 0).Path); err != nil || v != float64(1400) {
		t.Errorf("Get running MTU: %v, %v", v, err)
	}
	rb, err := c.Rollback(ctx, alice, "")
	if err != nil || rb.Status != device.StatusRolledBack {
		t.Fatalf("Rollback: %+v, %v", rb, err)
	}
	if got := mtu(t, ns, "e0"); got != "1500" {
		t.Errorf("MTU %s after the rollback, want 1500", got)
	}
	if a := ipShow(t, ns, "-o", "addr", "show", "e1"); strings.Contains(a, "192.0.2.129") {
		t.Errorf("e1's addresses after the rollback: %s", a)
	}
	if l := ipShow(t, ns, "-o", "link", "show", "e1"); !strings.Contains(l, ",UP") && !strings.Contains(l, "<UP") {
		t.Errorf("e1 not up after the rollback: %s", l)
	}
	run = frrRunning(t, ns)
	if strings.Contains(run, "203.0.113.0/24") || strings.Contains(run, "description to-b") || !strings.Contains(run, "remote-as 65002") {
		t.Errorf("FRR after the rollback:\n%s", run)
	}
	h, err := c.History(ctx)
	if err != nil || len(h) != 2 || h[1].Comment != "mtu and route" {
		t.Fatalf("History: %+v, %v", h, err)
	}
	// What each commit changed: the commit adds the route, the rollback
	// takes it away again.
	differ, ok := d.(device.CommitDiffer)
	if !ok {
		t.Fatal("the linux driver does not show what a commit changed (device.CommitDiffer)")
	}
	for _, tc := range []struct {
		id, sign string
	}{{h[1].ID, "+"}, {h[0].ID, "-"}} {
		diff, err := differ.CommitDiff(ctx, tc.id)
		if err != nil || !regexp.MustCompile(`(?m)^\`+tc.sign+`.*ip route 203\.0\.113\.0/24 Null0`).MatchString(diff.Unified) {
			t.Errorf("CommitDiff(%s) = %v\n%s\nwant a line %s the route", tc.id, err, diff.Unified, tc.sign)
		}
	}
	if _, err := differ.CommitDiff(ctx, "no-such-commit"); err == nil {
		t.Error("CommitDiff of an unknown commit: no error")
	}
}

// TestConfigConfirmedTimeout: a confirmed commit that nobody confirms is
// rolled back on the device when its timer fires.
func TestConfigConfirmedTimeout(t *testing.T) {
	ns := frrNamespace(t)
	_, c := openCfg(t, ns, t.TempDir())
	ctx := context.Background()
	if err := c.Edit(ctx, alice, []device.Edit{mtuEdit("e0", 1300)}); err != nil {
		t.Fatal(err)
	}
	if err := c.Configure(ctx, alice, []string{"interface e0", " ip ospf cost 55"}); err != nil {
		t.Fatal(err)
	}
	res, err := c.Commit(ctx, alice, device.CommitOptions{Confirmed: 2})
	if err != nil || res.Status != device.StatusCommitted || res.RollbackTimeout != 2 {
		t.Fatalf("confirmed Commit: %+v, %v", res, err)
	}
	if mtu(t, ns, "e0") != "1300" || !strings.Contains(frrRunning(t, ns), "ip ospf cost 55") {
		t.Fatal("the confirmed commit is not on the device")
	}
	deadline := time.Now().Add(8 * time.Second)
	for mtu(t, ns, "e0") != "1500" || strings.Contains(frrRunning(t, ns), "ip ospf cost 55") {
		if time.Now().After(deadline) {
			t.Fatalf("not rolled back 8 s after a 2 s confirmed commit: MTU %s, FRR:\n%s", mtu(t, ns, "e0"), frrRunning(t, ns))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(frrRunning(t, ns), "ip ospf cost 10") {
		t.Error("the rollback lost the original OSPF cost")
	}
	_, err = c.Confirm(ctx, alice)
	wantNetErr(t, "Confirm after the timeout", err, netproto.CodeConfirmedCommitTimeout, "rolled back")
	h, _ := c.History(ctx)
	if len(h) != 1 || h[0].Status != device.StatusRolledBack {
		t.Fatalf("History %+v, want one rolled-back commit", h)
	}
}

// crashChild is the child process of TestConfigCrashRollback: it opens
// the namespace's driver on the state directory, makes a confirmed commit
// of 2 s, says so on stdout and waits to be killed.
func crashChild(spec string) int {
	ns, dir, _ := strings.Cut(spec, ",")
	d, err := device.Open(context.Background(), "linux://"+ns, device.Options{StateDir: dir})
	if err != nil {
		fmt.Println("ERROR", err)
		return 1
	}
	c := d.(device.Configurer)
	ctx := context.Background()
	if err := c.Edit(ctx, alice, []device.Edit{mtuEdit("e0", 1280)}); err != nil {
		fmt.Println("ERROR", err)
		return 1
	}
	if err := c.Configure(ctx, alice, []string{"ip route 203.0.113.64/26 Null0"}); err != nil {
		fmt.Println("ERROR", err)
		return 1
	}
	res, err := c.Commit(ctx, alice, device.CommitOptions{Confirmed: 2})
	if err != nil {
		fmt.Println("ERROR", err)
		return 1
	}
	fmt.Println("COMMITTED", res.Deadline.UnixNano())
	time.Sleep(time.Minute)
	return 0
}

// TestConfigCrashRollback: the serving process is SIGKILLed while a
// confirmed commit is pending; the next open after its deadline rolls the
// device back.
func TestConfigCrashRollback(t *testing.T) {
	ns := frrNamespace(t)
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+ns+","+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	_ = cmd.Process.Kill() // SIGKILL: no clean-up at all
	_ = cmd.Wait()
	var nanos int64
	if _, serr := fmt.Sscanf(line, "COMMITTED %d", &nanos); err != nil || serr != nil {
		t.Fatalf("child: %q, %v", line, err)
	}
	if mtu(t, ns, "e0") != "1280" || !strings.Contains(frrRunning(t, ns), "203.0.113.64/26") {
		t.Fatal("the child's confirmed commit is not on the device")
	}
	time.Sleep(time.Until(time.Unix(0, nanos)) + 300*time.Millisecond)
	if mtu(t, ns, "e0") != "1280" {
		t.Fatal("the device changed while no netmcp served it")
	}
	_, c := openCfg(t, ns, dir)
	if got := mtu(t, ns, "e0"); got != "1500" {
		t.Errorf("MTU %s after the reopen, want 1500 (rolled back)", got)
	}
	if run := frrRunning(t, ns); strings.Contains(run, "203.0.113.64/26") || !strings.Contains(run, "ip route 192.0.2.0/26 Null0") {
		t.Errorf("FRR after the reopen:\n%s", run)
	}
	h, err := c.History(context.Background())
	if err != nil || len(h) != 1 || h[0].Status != device.StatusRolledBack {
		t.Fatalf("History after the reopen: %+v, %v", h, err)
	}
	_, err = c.Confirm(context.Background(), alice)
	wantNetErr(t, "Confirm after the reopen", err, netproto.CodeConfirmedCommitTimeout, "rolled back")
}

// TestConfigRejected: lines FRR refuses change nothing, with FRR's words.
func TestConfigRejected(t *testing.T) {
	ns := frrNamespace(t)
	d, c := openCfg(t, ns, t.TempDir())
	ctx := context.Background()
	// Syntax: FRR's own check refuses the line before it is queued.
	err := c.Configure(ctx, alice, []string{"ip route 203.0.113.0/24 Null0", "ip rooute 198.18.0.0/15 Null0"})
	wantNetErr(t, "Configure of an unknown command", err, netproto.CodeConfigIncompatible, `"ip rooute 198.18.0.0/15 Null0": % Unknown command`)

	// Semantics: accepted by the check, refused by bgpd at the commit,
	// after a line FRR took: that line is taken back.
	beforeFRR, beforeMTU := frrRunning(t, ns), mtu(t, ns, "e0")
	beforeRun, err := d.Get(ctx, device.Running, "/")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Edit(ctx, alice, []device.Edit{mtuEdit("e0", 1400)}); err != nil {
		t.Fatal(err)
	}
	if err := c.Configure(ctx, alice, []string{"ip route 203.0.113.128/25 Null0", "router bgp 65099", " neighbor 198.51.100.9 remote-as 65009"}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Commit(ctx, alice, device.CommitOptions{})
	wantNetErr(t, "Commit of a second BGP instance", err, netproto.CodeConfigIncompatible, "BGP is already running; AS is 65001")
	if got := frrRunning(t, ns); got != beforeFRR {
		t.Errorf("FRR changed by a refused commit:\n%s\nwas\n%s", got, beforeFRR)
	}
	if got := mtu(t, ns, "e0"); got != beforeMTU {
		t.Errorf("MTU %s after a refused commit, was %s", got, beforeMTU)
	}
	afterRun, err := d.Get(ctx, device.Running, "/")
	if err != nil || fmt.Sprint(afterRun) != fmt.Sprint(beforeRun) {
		t.Errorf("running changed by a refused commit: %v, %v", afterRun, err)
	}
	if h, err := c.History(ctx); err != nil || len(h) != 0 {
		t.Errorf("History after a refused commit: %+v, %v", h, err)
	}
	if err := c.Discard(ctx, alice); err != nil {
		t.Fatal(err)
	}

	// A YANG edit the kernel cannot apply: an interface that does not exist.
	err = c.Edit(ctx, alice, []device.Edit{mtuEdit("nosuch0", 1400)})
	if err == nil {
		_, err = c.Commit(ctx, alice, device.CommitOptions{})
	}
	wantNetErr(t, "Commit of a missing interface", err, netproto.CodeConfigIncompatible, "does not exist")
	// What the driver does not configure is refused at the edit.
	err = c.Edit(ctx, device.Owner{Session: "s2"}, []device.Edit{{Path: "/openconfig-interfaces:interfaces/interface[name='e0']/config/description", Value: "x"}})
	if err == nil || !strings.Contains(err.Error(), "lock") {
		// alice still holds the lock after her refused commit.
		t.Errorf("an edit by another session: %v, want the lock error", err)
	}
	c.Discard(ctx, alice)
	err = c.Edit(ctx, alice, []device.Edit{{Path: "/openconfig-interfaces:interfaces/interface[name='e0']/config/description", Value: "x"}})
	wantNetErr(t, "Edit of a description", err, netproto.CodeConfigIncompatible, "lives in FRR")
}

// TestConfigEditLines: FRR's configuration edited as YANG (the line
// list), in any order: a line added and a block's line removed.
func TestConfigEditLines(t *testing.T) {
	ns := frrNamespace(t)
	d, c := openCfg(t, ns, "")
	ctx := context.Background()
	v, err := d.Get(ctx, device.Running, "/netmcp-frr:configuration/line")
	if err != nil {
		t.Fatal(err)
	}
	var lines []any
	for _, l := range v.([]any) {
		if l != " ip ospf cost 10" {
			lines = append(lines, l)
		}
	}
	lines = append([]any{"ip route 198.18.0.0/15 Null0"}, lines...)
	if err := c.Edit(ctx, alice, []device.Edit{{Operation: device.OpReplace, Path: "/netmcp-frr:configuration/line", Value: lines}}); err != nil {
		t.Fatal(err)
	}
	diff, err := c.Diff(ctx, alice)
	if err != nil || !strings.Contains(diff.Unified, "198.18.0.0/15") || !strings.Contains(diff.Unified, "ip ospf cost 10") {
		t.Fatalf("Diff: %+v, %v", diff, err)
	}
	if res, err := c.Commit(ctx, alice, device.CommitOptions{}); err != nil || res.Status != device.StatusCommitted {
		t.Fatalf("Commit: %+v, %v", res, err)
	}
	run := frrRunning(t, ns)
	if !strings.Contains(run, "ip route 198.18.0.0/15 Null0") || strings.Contains(run, "ip ospf cost") || !strings.Contains(run, "remote-as 65002") {
		t.Fatalf("FRR after the commit:\n%s", run)
	}
	// A line with a secret is for network.cli.configure only.
	err = c.Edit(ctx, alice, []device.Edit{{Operation: device.OpReplace, Path: "/netmcp-frr:configuration/line",
		Value: append(lines, "router bgp 65001", " neighbor 198.51.100.2 password s3cr3t")}})
	wantNetErr(t, "Edit of a password line", err, netproto.CodeConfigIncompatible, "carries a secret")
	if strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("the refusal shows the secret: %v", err)
	}
	// A line FRR's check refuses is refused at the commit, FRR unchanged.
	if err := c.Edit(ctx, alice, []device.Edit{{Operation: device.OpReplace, Path: "/netmcp-frr:configuration/line",
		Value: append(lines, "ip rooute 198.51.100.0/24 Null0")}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Commit(ctx, alice, device.CommitOptions{})
	wantNetErr(t, "Commit of an unknown FRR command", err, netproto.CodeConfigIncompatible, "Unknown command")
	if got := frrRunning(t, ns); got != run {
		t.Fatalf("FRR changed by a refused commit:\n%s", got)
	}
}
