package diag

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/internal/syncbuf"
)

// lab is three network namespaces a—b—c joined by veth pairs:
//
//	a 198.51.100.1/30 — 198.51.100.2 b 198.51.100.5/30 — 198.51.100.6 c (lo 192.0.2.3)
//
// b also has lan 203.0.113.1/26 whose veth peer (in c) has no address, so
// 203.0.113.10 is "host unreachable", and a blackhole route for
// 203.0.113.128/25 (loss, "* * *", DNS time-outs). unbound in c serves
// lab.example on 192.0.2.3.
type lab struct {
	a, b, c string
}

func run(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", strings.Join(args, " "), err, out)
	}
}

func newLab(t *testing.T) *lab {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("lab test needs root to create network namespaces")
	}
	for _, bin := range []string{"ip", "ping", "traceroute", "tracepath", "dig", "mtr", "unbound"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("lab test needs %s (apt-get install iproute2 iputils-ping traceroute iputils-tracepath bind9-dnsutils mtr-tiny unbound)", bin)
		}
	}
	id := os.Getpid()
	l := &lab{a: fmt.Sprintf("dga%d", id), b: fmt.Sprintf("dgb%d", id), c: fmt.Sprintf("dgc%d", id)}
	if out, err := exec.Command("ip", "netns", "add", l.a).CombinedOutput(); err != nil {
		t.Skipf("ip netns add failed (no namespace support?): %v: %s", err, out)
	}
	t.Cleanup(func() {
		for _, ns := range []string{l.a, l.b, l.c} {
			_ = exec.Command("ip", "netns", "del", ns).Run()
		}
	})
	run(t, "ip", "netns", "add", l.b)
	run(t, "ip", "netns", "add", l.c)
	x := func(ns string, args ...string) { run(t, append([]string{"ip", "netns", "exec", ns}, args...)...) }
	run(t, "ip", "link", "add", "ab", "netns", l.a, "type", "veth", "peer", "name", "ba", "netns", l.b)
	run(t, "ip", "link", "add", "bc", "netns", l.b, "type", "veth", "peer", "name", "cb", "netns", l.c)
	run(t, "ip", "link", "add", "lan", "netns", l.b, "type", "veth", "peer", "name", "lanpeer", "netns", l.c)
	for _, ns := range []string{l.a, l.b, l.c} {
		x(ns, "sysctl", "-qw", "net.ipv4.icmp_ratelimit=0", "net.ipv4.ping_group_range=0 2147483647")
		x(ns, "ip", "link", "set", "lo", "up")
	}
	x(l.b, "sysctl", "-qw", "net.ipv4.ip_forward=1")
	x(l.a, "ip", "addr", "add", "198.51.100.1/30", "dev", "ab")
	x(l.a, "ip", "link", "set", "ab", "up")
	x(l.a, "ip", "route", "add", "default", "via", "198.51.100.2")
	x(l.b, "ip", "addr", "add", "198.51.100.2/30", "dev", "ba")
	x(l.b, "ip", "addr", "add", "198.51.100.5/30", "dev", "bc")
	x(l.b, "ip", "addr", "add", "203.0.113.1/26", "dev", "lan")
	for _, d := range []string{"ba", "bc", "lan"} {
		x(l.b, "ip", "link", "set", d, "up")
	}
	x(l.b, "ip", "route", "add", "192.0.2.3/32", "via", "198.51.100.6")
	x(l.b, "ip", "route", "add", "blackhole", "203.0.113.128/25")
	x(l.c, "ip", "addr", "add", "198.51.100.6/30", "dev", "cb")
	x(l.c, "ip", "addr", "add", "192.0.2.3/32", "dev", "lo")
	x(l.c, "ip", "link", "set", "cb", "up")
	x(l.c, "ip", "link", "set", "lanpeer", "up")
	x(l.c, "ip", "route", "add", "default", "via", "198.51.100.5")
	l.startUnbound(t)
	return l
}

// startUnbound runs unbound in the foreground in c as a child process and
// waits until it answers.
func (l *lab) startUnbound(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "unbound.conf")
	cfg := `server:
  interface: 192.0.2.3
  port: 53
  do-daemonize: no
  username: ""
  chroot: ""
  directory: "` + dir + `"
  pidfile: ""
  use-syslog: no
  logfile: ""
  verbosity: 0
  do-ip6: no
  access-control: 0.0.0.0/0 allow
  module-config: "iterator"
  local-zone: "lab.example." static
  local-data: "lab.example. 300 IN SOA ns.lab.example. admin.lab.example. 1 3600 600 86400 300"
  local-data: "www.lab.example. 300 IN A 192.0.2.80"
  local-data: "lab.example. 300 IN MX 10 mail.lab.example."
  local-data: "lab.example. 300 IN TXT \"hello lab\""
`
	if err := os.WriteFile(conf, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("ip", "netns", "exec", l.c, "unbound", "-d", "-c", conf)
	var stderr syncbuf.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if exec.Command("ip", "netns", "exec", l.c, "dig", "@192.0.2.3", "+time=1", "+tries=1", "www.lab.example").Run() == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("unbound did not answer: %s", stderr.String())
}

func (l *lab) opts() RunOptions {
	return RunOptions{Prefix: []string{"ip", "netns", "exec", l.a}, Key: "lab", Limiter: NewLimiter(8, 8)}
}

// TestLabRealTools runs the real binaries in the namespaces.
func TestLabRealTools(t *testing.T) {
	l := newLab(t)
	ctx := context.Background()

	t.Run("ping reply", func(t *testing.T) {
		var lines []string
		o := l.opts()
		o.OnLine = func(s string) { lines = append(lines, s) }
		res, err := Run(ctx, Request{Tool: "ping", Destination: "198.51.100.6", Count: 2, IntervalMs: 200}, o)
		if err != nil {
			t.Fatal(err)
		}
		p := res.Parsed.(*PingResult)
		if res.ExitCode != 0 || *p.PacketsReceived != 2 || len(p.Responses) != 2 || *p.Responses[0].TTL != 63 {
			t.Fatalf("unexpected: exit %d %+v\n%s", res.ExitCode, p, res.Output)
		}
		if len(lines) < 4 || !strings.HasPrefix(lines[0], "PING ") {
			t.Errorf("lines not streamed: %q", lines)
		}
	})
	t.Run("ping host unreachable", func(t *testing.T) {
		res, err := Run(ctx, Request{Tool: "ping", Destination: "203.0.113.10", Count: 4, IntervalMs: 1000, Timeout: 1}, l.opts())
		if err != nil {
			t.Fatal(err)
		}
		p := res.Parsed.(*PingResult)
		if res.ExitCode != 1 || len(p.ICMPErrors) == 0 || p.ICMPErrors[0].Type != "destination_host_unreachable" || *p.ICMPErrors[0].ResponseIP != "198.51.100.2" {
			t.Fatalf("unexpected: exit %d errors %+v\n%s", res.ExitCode, p.ICMPErrors, res.Output)
		}
	})
	t.Run("ping loss", func(t *testing.T) {
		res, err := Run(ctx, Request{Tool: "ping", Destination: "203.0.113.200", Count: 2, IntervalMs: 200, Timeout: 1}, l.opts())
		if err != nil {
			t.Fatal(err)
		}
		p := res.Parsed.(*PingResult)
		if res.ExitCode != 1 || *p.PacketLossPercent != 100 || *p.PacketsReceived != 0 {
			t.Fatalf("unexpected: %+v\n%s", p, res.Output)
		}
	})
	t.Run("traceroute", func(t *testing.T) {
		res, err := Run(ctx, Request{Tool: "traceroute", Destination: "192.0.2.3", MaxHops: 5, Timeout: 1}, l.opts())
		if err != nil {
			t.Fatal(err)
		}
		tr := res.Parsed.(*TracerouteResult)
		if len(tr.Hops) != 2 || *tr.Hops[0].Probes[0].IP != "198.51.100.2" || *tr.Hops[1].Probes[0].IP != "192.0.2.3" {
			t.Fatalf("unexpected hops:\n%s", res.Output)
		}
	})
	t.Run("traceroute stars", func(t *testing.T) {
		res, err := Run(ctx, Request{Tool: "traceroute", Destination: "203.0.113.200", MaxHops: 3, Timeout: 1}, l.opts())
		if err != nil {
			t.Fatal(err)
		}
		tr := res.Parsed.(*TracerouteResult)
		if len(tr.Hops) != 3 || tr.Hops[2].Timeouts != 3 || len(tr.Hops[2].Probes) != 0 {
			t.Fatalf("unexpected:\n%s", res.Output)
		}
	})
	t.Run("tracepath", func(t *testing.T) {
		res, err := Run(ctx, Request{Tool: "tracepath", Destination: "192.0.2.3", MaxHops: 5}, l.opts())
		if err != nil {
			t.Fatal(err)
		}
		tp := res.Parsed.(*TracepathResult)
		last := tp.Hops[len(tp.Hops)-1]
		if !last.Reached || tp.PMTU == nil {
			t.Fatalf("unexpected:\n%s", res.Output)
		}
	})
	t.Run("dig answer", func(t *testing.T) {
		res, err := Run(ctx, Request{Tool: "dig", Destination: "www.lab.example", Server: "192.0.2.3"}, l.opts())
		if err != nil {
			t.Fatal(err)
		}
		d := res.Parsed.(DigResult)
		if len(d) != 1 || *d[0].Status != "NOERROR" || len(d[0].Answer) != 1 || d[0].Answer[0].Data != "192.0.2.80" {
			t.Fatalf("unexpected:\n%s", res.Output)
		}
	})
	t.Run("dig nxdomain", func(t *testing.T) {
		res, err := Run(ctx, Request{Tool: "dig", Destination: "nope.lab.example", Server: "192.0.2.3", QueryType: "AAAA"}, l.opts())
		if err != nil {
			t.Fatal(err)
		}
		d := res.Parsed.(DigResult)
		if *d[0].Status != "NXDOMAIN" || len(d[0].Authority) != 1 || d[0].Authority[0].Type != "SOA" {
			t.Fatalf("unexpected:\n%s", res.Output)
		}
	})
	t.Run("dig timeout", func(t *testing.T) {
		res, err := Run(ctx, Request{Tool: "dig", Destination: "www.lab.example", Server: "203.0.113.200", Timeout: 1}, l.opts())
		if err != nil {
			t.Fatal(err)
		}
		d := res.Parsed.(DigResult)
		if res.ExitCode != 9 || len(d) != 1 || !d[0].NoServers {
			t.Fatalf("unexpected: exit %d\n%s", res.ExitCode, res.Output)
		}
	})
	t.Run("mtr", func(t *testing.T) {
		res, err := Run(ctx, Request{Tool: "mtr", Destination: "192.0.2.3", Count: 1, MaxHops: 5}, l.opts())
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := res.Parsed.(map[string]any)["report"]; !ok {
			t.Fatalf("unexpected:\n%s", res.Output)
		}
	})
	t.Run("cancel kills", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		time.AfterFunc(300*time.Millisecond, cancel)
		start := time.Now()
		_, err := Run(cctx, Request{Tool: "ping", Destination: "198.51.100.6", Count: 100, IntervalMs: 200}, l.opts())
		if err == nil || !errors.Is(err, context.Canceled) {
			t.Fatalf("want cancellation error, got %v", err)
		}
		if d := time.Since(start); d > 1500*time.Millisecond {
			t.Fatalf("took %s to stop", d)
		}
	})
	t.Run("output bound", func(t *testing.T) {
		o := l.opts()
		o.MaxOutput = 300
		_, err := Run(ctx, Request{Tool: "ping", Destination: "198.51.100.6", Count: 50, IntervalMs: 200}, o)
		if !errors.Is(err, ErrOutputTooLarge) {
			t.Fatalf("want ErrOutputTooLarge, got %v", err)
		}
	})
	t.Run("tool failure", func(t *testing.T) {
		// ping exits 2 for an unknown host name (no resolver in the lab).
		_, err := Run(ctx, Request{Tool: "ping", Destination: "no-such-host.invalid", Count: 1}, l.opts())
		if !errors.Is(err, ErrToolFailed) {
			t.Fatalf("want ErrToolFailed, got %v", err)
		}
	})
}
