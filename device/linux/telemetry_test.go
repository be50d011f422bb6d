//go:build linux

package linux_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/linux"
	"github.com/netmcp/netmcp/device/linux/frrtest"
)

// ospfConf is the FRR configuration of one end of the test's OSPF link.
const ospfConf = `
router ospf
 ospf router-id %s
 log-adjacency-changes
exit
interface %s
 ip ospf area 0
 ip ospf network point-to-point
 ip ospf hello-interval 1
 ip ospf dead-interval 3
exit`

// ospfPair makes two namespaces joined by a veth pair (a0 with alias
// GigabitEthernet0/0/0 in the first, b0 in the second), each running zebra
// and ospfd, and returns their names.
func ospfPair(t *testing.T) (a, b string) {
	t.Helper()
	frrtest.Need(t)
	n := nsSeq.Add(1)
	a, b = fmt.Sprintf("lxtelA%d-%d", os.Getpid(), n), fmt.Sprintf("lxtelB%d-%d", os.Getpid(), n)
	for _, ns := range []string{a, b} {
		if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
			t.Fatalf("ip netns add: %v: %s", err, out)
		}
		t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() })
	}
	for _, args := range [][]string{
		{"-n", a, "link", "set", "lo", "up"},
		{"-n", b, "link", "set", "lo", "up"},
		{"-n", a, "link", "add", "a0", "type", "veth", "peer", "name", "b0", "netns", b},
		{"-n", a, "link", "set", "a0", "alias", "GigabitEthernet0/0/0"},
		{"-n", a, "addr", "add", "198.51.100.1/30", "dev", "a0"},
		{"-n", b, "addr", "add", "198.51.100.2/30", "dev", "b0"},
		{"-n", a, "link", "set", "a0", "up"},
		{"-n", b, "link", "set", "b0", "up"},
	} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	frrtest.Start(t, a, fmt.Sprintf(ospfConf, "10.0.0.1", "a0"), "zebra", "ospfd")
	frrtest.Start(t, b, fmt.Sprintf(ospfConf, "10.0.0.2", "b0"), "zebra", "ospfd")
	return a, b
}

// waitLog waits until an entry of d's log satisfies f and returns it.
func waitLog(t *testing.T, d *linux.Driver, what string, within time.Duration, f func(device.LogEntry) bool) device.LogEntry {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		l, err := d.Syslog(context.Background(), linux.MaxLogEntries)
		if err != nil {
			t.Fatalf("Syslog: %v", err)
		}
		for _, e := range l {
			if f(e) {
				return e
			}
		}
		if time.Now().After(deadline) {
			var b strings.Builder
			for _, e := range l {
				b.WriteString(e.Text + "\n")
			}
			t.Fatalf("no log entry %s within %s; the log:\n%s", what, within, b.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestTelemetryLinkAndAdjacency: a link going down and up in the
// namespace is logged under its alias, in the words the controller
// parses, and delivered through Subscribe; OSPF's adjacency changes come
// from ospfd's log file.
func TestTelemetryLinkAndAdjacency(t *testing.T) {
	a, b := ospfPair(t)
	d, err := linux.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	var mu sync.Mutex
	var events []device.Event
	unsub := d.Subscribe(func(e device.Event) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	})
	defer unsub()

	full := waitLog(t, d, "of OSPF's adjacency reaching Full", 20*time.Second, func(e device.LogEntry) bool {
		return e.Facility == "OSPF" && strings.Contains(e.Message, "AdjChg") && strings.Contains(e.Message, "-> Full")
	})
	if !strings.Contains(full.Mnemonic, "ADJCHG") || full.Severity < 4 || full.Severity > 6 || time.Since(full.Time) > time.Minute || time.Since(full.Time) < -time.Second {
		t.Errorf("adjacency entry %+v: want an ADJCHG mnemonic, severity notice or informational, a time of now", full)
	}

	if out, err := exec.Command("ip", "-n", b, "link", "set", "b0", "down").CombinedOutput(); err != nil {
		t.Fatalf("ip link set b0 down: %v: %s", err, out)
	}
	downText := "Interface GigabitEthernet0/0/0, changed state to down"
	down := waitLog(t, d, "of a0 going down", 5*time.Second, func(e device.LogEntry) bool { return e.Message == downText })
	if down.Mnemonic != "LINK-3-UPDOWN" || down.Severity != 3 || !strings.HasSuffix(down.Text, "%LINK-3-UPDOWN: "+downText) {
		t.Errorf("link down entry %+v", down)
	}
	waitLog(t, d, "of the adjacency leaving Full", 10*time.Second, func(e device.LogEntry) bool {
		return e.Facility == "OSPF" && strings.Contains(e.Message, "AdjChg") && strings.Contains(e.Message, "Full ->")
	})
	if out, err := exec.Command("ip", "-n", b, "link", "set", "b0", "up").CombinedOutput(); err != nil {
		t.Fatalf("ip link set b0 up: %v: %s", err, out)
	}
	upText := "Interface GigabitEthernet0/0/0, changed state to up"
	waitLog(t, d, "of a0 coming back up", 5*time.Second, func(e device.LogEntry) bool { return e.Message == upText })
	if out, err := exec.Command("ip", "-n", a, "link", "set", "a0", "down").CombinedOutput(); err != nil {
		t.Fatalf("ip link set a0 down: %v: %s", err, out)
	}
	waitLog(t, d, "of a0 shut down", 5*time.Second, func(e device.LogEntry) bool {
		return e.Message == "Interface GigabitEthernet0/0/0, changed state to administratively down" && e.Mnemonic == "LINK-5-CHANGED"
	})

	if l, _ := d.Syslog(context.Background(), 40); testing.Verbose() {
		for _, e := range l {
			t.Logf("%d %s %s", e.Severity, e.Mnemonic, e.Text)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	var sawDown, sawUp, sawAdj, sawIface bool
	for _, e := range events {
		switch {
		case e.Kind == device.EventSyslog && e.Log != nil && e.Log.Message == downText:
			sawDown = true
		case e.Kind == device.EventSyslog && e.Log != nil && e.Log.Message == upText:
			sawUp = true
		case e.Kind == device.EventSyslog && e.Log != nil && e.Log.Facility == "OSPF" && strings.Contains(e.Log.Message, "Full ->"):
			sawAdj = true
		case e.Kind == device.EventInterface && e.Name == "GigabitEthernet0/0/0":
			sawIface = true
		}
	}
	if !sawDown || !sawUp || !sawAdj || !sawIface {
		t.Errorf("Subscribe delivered link down %v, link up %v, adjacency change %v, interface event %v: want all (%d events)", sawDown, sawUp, sawAdj, sawIface, len(events))
	}
}

// TestTelemetryCPUMemory: the host's CPU and memory are the host's
// totals; a namespace's are its processes'.
func TestTelemetryCPUMemory(t *testing.T) {
	ns := frrNamespace(t)
	host, err := linux.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Close() })
	d, err := linux.Open(ns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	ctx := context.Background()

	hm, err := host.Memory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if hm.Total < 64<<20 || hm.Used == 0 || hm.Free == 0 || hm.Used+hm.Free != hm.Total {
		t.Errorf("host memory %+v: want a total over 64 MiB, used + free = total", hm)
	}
	nm, err := d.Memory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// FRR's four daemons run in the namespace: a few MB between them.
	if nm.Total != hm.Total || nm.Used < 1<<20 || nm.Used >= hm.Used {
		t.Errorf("namespace memory %+v (host %+v): want the host's total, used by its daemons over 1 MiB and under the host's", nm, hm)
	}

	// A CPU-bound process in the namespace for the CPU readings.
	burn := exec.Command("ip", "netns", "exec", ns, "md5sum", "/dev/zero") // ip execs md5sum: Kill stops it
	if err := burn.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { burn.Process.Kill(); burn.Wait() })
	time.Sleep(300 * time.Millisecond)
	for _, c := range []struct {
		name string
		d    *linux.Driver
	}{{"host", host}, {"namespace", d}} {
		// md5sum would keep one CPU busy, but on a loaded machine it gets
		// what the scheduler gives it: the readings are judged against
		// the share it really had around them, read from /proc.
		before := burnShare(t, burn.Process.Pid)
		s, err := c.d.CPU(ctx)
		if err != nil {
			t.Fatalf("%s CPU: %v", c.name, err)
		}
		s2, err := c.d.CPU(ctx)
		if err != nil {
			t.Fatalf("%s CPU: %v", c.name, err)
		}
		share := before.since(burnShare(t, burn.Process.Pid))
		if s.Percent > 100 || s.OneMinute != s.Percent || s.FiveMinute != s.Percent || time.Since(s.Time) > time.Second {
			t.Errorf("%s first CPU reading %+v: want at most 100 %%, the averages seeded by it", c.name, s)
		}
		if low := share / 4; s.Percent < low || s2.Percent < low || s2.OneMinute < low || !s2.Time.After(s.Time) {
			t.Errorf("%s CPU readings %+v then %+v: want each at least %.1f %%, a quarter of the %.1f %% md5sum had meanwhile", c.name, s, s2, low, share)
		}
	}
	burn.Process.Kill()
	burn.Wait()
	// Host processes, outside the namespace, do not count for it: this
	// one hashes on the host until stopped.
	stop := make(chan struct{})
	go func() {
		var sum [sha256.Size]byte
		for {
			select {
			case <-stop:
				return
			default:
				sum = sha256.Sum256(sum[:])
			}
		}
	}()
	time.Sleep(300 * time.Millisecond)
	s, err := d.CPU(ctx)
	close(stop)
	if err != nil {
		t.Fatal(err)
	}
	if s.Percent > 3 {
		t.Errorf("namespace CPU %+v with only idle FRR daemons in it (and the test busy outside): want about 0", s)
	}

	if _, err := d.Crashinfo(ctx, linux.Slot); err != nil {
		t.Errorf("Crashinfo(%q): %v", linux.Slot, err)
	}
	if _, err := d.Crashinfo(ctx, "9/RP9"); err == nil {
		t.Error("Crashinfo of an unknown slot: no error")
	}
}

// cpuTicks is a process's CPU time and the machine's, in clock ticks.
type cpuTicks struct{ proc, total uint64 }

// burnShare reads pid's CPU time (utime + stime) and the machine's total
// (every field of /proc/stat's cpu line).
func burnShare(t *testing.T, pid int) cpuTicks {
	t.Helper()
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// Fields after the command name, which is in parentheses: state is
	// the first, utime the 12th and stime the 13th.
	f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+1:]))
	utime, _ := strconv.ParseUint(f[11], 10, 64)
	stime, _ := strconv.ParseUint(f[12], 10, 64)
	all, err := os.ReadFile("/proc/stat")
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(all), "\n")
	var total uint64
	for _, v := range strings.Fields(line)[1:] {
		n, _ := strconv.ParseUint(v, 10, 64)
		total += n
	}
	return cpuTicks{proc: utime + stime, total: total}
}

// since returns the percentage of the machine's CPU time the process had
// from c to later.
func (c cpuTicks) since(later cpuTicks) float64 {
	if later.total <= c.total {
		return 0
	}
	return 100 * float64(later.proc-c.proc) / float64(later.total-c.total)
}
