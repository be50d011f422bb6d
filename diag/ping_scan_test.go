package diag

import (
	"net/netip"
	"regexp"
	"strings"
	"testing"
)

// The specification of the ping scanners (ping_scan.go, ping_scan_bsd.go):
// the expressions the parser used before it scanned these lines by hand.
var (
	specLinuxReply = regexp.MustCompile(`^(?:\[(\d+(?:\.\d+)?)\] )?(\d+) bytes from (.+?): (?:icmp_)?seq=(\d+)(?: ttl=(\d+))?(?: time=(\d+(?:\.\d+)?) ms)?`)
	specNameIP     = regexp.MustCompile(`^(\S+) \(([^()\s]+)\)$`)
	specDataBytes  = regexp.MustCompile(`(\d+)(?:\(\d+\))? (?:bytes of data|data bytes)`)
	specParenAddr  = regexp.MustCompile(`\(([^()\s]+)\)`)
	specStatsDest  = regexp.MustCompile(`^--- (.*?) ?(?:ping6? )?statistics ---`)

	specBSDReply   = regexp.MustCompile(`^(\d+) bytes from ([^\s,]+?)[:,] (?:icmp_)?seq=(\d+) (?:ttl|hlim)=(\d+) time=(\d+(?:\.\d+)?) ms`)
	specBSDHeader  = regexp.MustCompile(`^PING (\S*) \(([^()\s]*)\):? (\d+) data bytes`)
	specBSD6Header = regexp.MustCompile(`^PING6\((\d+)=[^)]*\) (\S+) --> (\S+)`)
	specBSDTimeout = regexp.MustCompile(`^Request timeout for icmp_seq[ =](\d+)`)
)

// specIPv6In is the specification of ipv6In: the implementation it
// replaced, which built a new line and split it.
func specIPv6In(line string) bool {
	for _, tok := range strings.Fields(spaced(line, "(),%")) {
		if strings.Count(tok, ":") < 2 {
			continue
		}
		if a, err := netip.ParseAddr(tok); err == nil && a.Is6() {
			return true
		}
	}
	return false
}

// checkScanAgrees fails t when the scanners and their expressions disagree
// on line.
func checkScanAgrees(t *testing.T, line string) {
	t.Helper()
	got, ok := scanLinuxReply(line)
	m := specLinuxReply.FindStringSubmatch(line)
	if ok != (m != nil) {
		t.Fatalf("scanLinuxReply(%q) ok = %v, expression matches = %v", line, ok, m != nil)
	}
	if ok {
		want := linuxReply{timestamp: m[1], bytes: m[2], from: m[3], seq: m[4], ttl: m[5], time: m[6]}
		if got != want {
			t.Fatalf("scanLinuxReply(%q)\n got %+v\nwant %+v", line, got, want)
		}
	}
	name, ip, ok := splitNameIP(line)
	n := specNameIP.FindStringSubmatch(line)
	if ok != (n != nil) || ok && (name != n[1] || ip != n[2]) {
		t.Fatalf("splitNameIP(%q) = %q, %q, %v; expression: %q", line, name, ip, ok, n)
	}
	size, start, ok := scanDataBytes(line)
	idx := specDataBytes.FindStringSubmatchIndex(line)
	if ok != (idx != nil) || ok && (size != line[idx[2]:idx[3]] || start != idx[0]) {
		t.Fatalf("scanDataBytes(%q) = %q, %d, %v; expression: %v", line, size, start, ok, idx)
	}
	addr, ok := lastParenAddr(line)
	all := specParenAddr.FindAllStringSubmatch(line, -1)
	if ok != (len(all) > 0) || ok && addr != all[len(all)-1][1] {
		t.Fatalf("lastParenAddr(%q) = %q, %v; expression: %q", line, addr, ok, all)
	}
	dest, ok := statsDestination(line)
	d := specStatsDest.FindStringSubmatch(line)
	if ok != (d != nil) || ok && dest != d[1] {
		t.Fatalf("statsDestination(%q) = %q, %v; expression: %q", line, dest, ok, d)
	}
	checkBSDScanAgrees(t, line)
}

// checkBSDScanAgrees fails t when the BSD scanners and their
// specifications disagree on line.
func checkBSDScanAgrees(t *testing.T, line string) {
	t.Helper()
	r, ok := scanBSDReply(line)
	m := specBSDReply.FindStringSubmatch(line)
	if ok != (m != nil) {
		t.Fatalf("scanBSDReply(%q) ok = %v, expression matches = %v", line, ok, m != nil)
	}
	if ok {
		want := bsdReply{bytes: m[1], from: m[2], seq: m[3], ttl: m[4], time: m[5]}
		if r != want {
			t.Fatalf("scanBSDReply(%q)\n got %+v\nwant %+v", line, r, want)
		}
	}
	addr, size, ok := scanBSDHeader(line)
	h := specBSDHeader.FindStringSubmatch(line)
	if ok != (h != nil) || ok && (addr != h[2] || size != h[3]) {
		t.Fatalf("scanBSDHeader(%q) = %q, %q, %v; expression: %q", line, addr, size, ok, h)
	}
	size, src, dst, ok := scanBSD6Header(line)
	h6 := specBSD6Header.FindStringSubmatch(line)
	if ok != (h6 != nil) || ok && (size != h6[1] || src != h6[2] || dst != h6[3]) {
		t.Fatalf("scanBSD6Header(%q) = %q, %q, %q, %v; expression: %q", line, size, src, dst, ok, h6)
	}
	seq, ok := scanBSDTimeout(line)
	tm := specBSDTimeout.FindStringSubmatch(line)
	if ok != (tm != nil) || ok && seq != tm[1] {
		t.Fatalf("scanBSDTimeout(%q) = %q, %v; expression: %q", line, seq, ok, tm)
	}
	if got, want := ipv6In(line), specIPv6In(line); got != want {
		t.Fatalf("ipv6In(%q) = %v, former implementation %v", line, got, want)
	}
}

func TestScanLinuxReplyCases(t *testing.T) {
	for _, line := range []string{
		"64 bytes from 10.0.0.1: icmp_seq=1 ttl=64 time=0.045 ms",
		"64 bytes from 10.0.0.1: icmp_seq=1 ttl=64 time=0.045 ms (DUP!)",
		"[1594978465.914536] 64 bytes from 10.0.0.1: icmp_seq=1 ttl=64 time=1.5 ms",
		"[1594978465] 64 bytes from 10.0.0.1: icmp_seq=1 ttl=64 time=1 ms",
		"[1594978465.] 64 bytes from 10.0.0.1: icmp_seq=1",
		"[x] 64 bytes from 10.0.0.1: icmp_seq=1",
		"64 bytes from 2001:db8::1: icmp_seq=3 ttl=64 time=0.1 ms",
		"64 bytes from host.example (2001:db8::1): icmp_seq=3 ttl=64 time=0.1 ms",
		"64 bytes from a: b: seq=9 ttl=1",
		"64 bytes from : icmp_seq=1",
		"64 bytes from x: icmp_seq= ttl=1",
		"64 bytes from x: icmp_seq=1 ttl= time=2 ms",
		"64 bytes from x: icmp_seq=1 time=2ms",
		"64 bytes from x: icmp_seq=1 time=2. ms",
		"64 bytes from x: icmp_seq=1 time=2.5.1 ms",
		"64 bytes from x: icmp_seq=12abc ttl=3",
		"64 bytes from x\ny: icmp_seq=1",
		"64 bytes from \xff\xfe: icmp_seq=1",
		"64 bytes from x: icmp_x: icmp_seq=4",
		"bytes from x: icmp_seq=1",
		"8 bytes from x: icmp_seq=١",
		"host.example (192.0.2.1)",
		"host.example  (192.0.2.1)",
		"host\texample (192.0.2.1)",
		"host.example (192.0.2.1) ",
		"host.example (192.0 2.1)",
		"host.example ((192.0.2.1))",
		"host.example (192.0.2.1))",
		"host.example (192.0.2.1)\n",
		"\thost (192.0.2.1)",
		"h ()",
		" (1)",
		"PING 10.0.0.1 (10.0.0.1) 56(84) bytes of data.",
		"PING h (10.0.0.1) from 10.0.0.2 eth0: 1472(1500) bytes of data.",
		"PING x 12(3 bytes of data 7 data bytes",
		"PING x 12() bytes of data 9(9)  data bytes 4 data bytes",
		"PING x (a) (b c) (d)(e) ((f)) (",
		"--- 10.0.0.1 ping statistics ---",
		"--- host ping6 statistics ---",
		"--- ping statistics ---",
		"--- statistics ---",
		"---  statistics --- ping statistics ---",
		"--- a\nb statistics ---",
		"--- x pingstatistics ---",
		// BSD and macOS replies
		"64 bytes from 151.101.1.67: icmp_seq=0 ttl=59 time=32.340 ms",
		"16 bytes from fe80::c48:5896:526d:81ba%en0, icmp_seq=0 hlim=64 time=0.302 ms",
		"16 bytes from ::1, icmp_seq=0 hlim=64 time=0.036 ms (DUP!)",
		"64 bytes from 10.0.0.1: seq=3 ttl=64 time=1 ms",
		"64 bytes from 10.0.0.1: icmp_seq=3 ttl=64 time=1. ms",
		"64 bytes from 10.0.0.1: icmp_seq=3 ttl=64 time=1.5.2 ms",
		"64 bytes from 10.0.0.1: icmp_seq=3 ttl=64 time=1.5ms",
		"64 bytes from 10.0.0.1: icmp_seq=3 ttl= time=1 ms",
		"64 bytes from 10.0.0.1: icmp_seq=3 hop=1 time=1 ms",
		"64 bytes from 10.0.0.1: icmp_seq=3  ttl=1 time=1 ms",
		"64 bytes from 10.0.0.1: icmp_seq= ttl=1 time=1 ms",
		"64 bytes from 10.0.0.1: icmp_seq=3ttl=1 time=1 ms",
		"64 bytes from a:b: icmp_seq=3 ttl=1 time=1 ms",
		"64 bytes from a: b: icmp_seq=3 ttl=1 time=1 ms",
		"64 bytes from a,b: icmp_seq=3 ttl=1 time=1 ms",
		"64 bytes from a:,b: icmp_seq=3 ttl=1 time=1 ms",
		"64 bytes from a:: icmp_seq=3 ttl=1 time=1 ms",
		"64 bytes from a, icmp_x, icmp_seq=3 ttl=1 time=1 ms",
		"64 bytes from : icmp_seq=3 ttl=1 time=1 ms",
		"64 bytes from ,: icmp_seq=3 ttl=1 time=1 ms",
		"64 bytes from ::, icmp_seq=3 ttl=1 time=1 ms",
		"64 bytes from a\tb: icmp_seq=3 ttl=1 time=1 ms",
		"64 bytes from a\vb: icmp_seq=3 ttl=1 time=1 ms",
		"64 bytes from \xff\xfe: icmp_seq=3 ttl=1 time=1 ms",
		"64 bytes from \xe2:\x80, icmp_seq=3 ttl=1 time=1 ms",
		"64 bytes from h\u00a0x: icmp_seq=3 ttl=1 time=1 ms",
		"64 bytes from h (10.0.0.1): icmp_seq=3 ttl=1 time=1 ms",
		"64 bytes from 10.0.0.1: icmp_seq=٣ ttl=1 time=1 ms",
		"64 bytes from 10.0.0.1: icmp_seq=3 ttl=1 time=1 ms\n",
		"64 bytes from 10.0.0.1:\nicmp_seq=3 ttl=1 time=1 ms",
		"64 bytes from 10.0.0.1: icmp_seq=3 ttl=1 time=1",
		"64 bytes from 10.0.0.1",
		"64 bytes from ",
		"92 bytes from 10.0.0.1: Destination Host Unreachable",
		// BSD headers
		"PING cnn.com (151.101.1.67): 56 data bytes",
		"PING 127.0.0.1 (127.0.0.1) 56 data bytes",
		"PING  (): 56 data bytes",
		"PING x (a b): 56 data bytes",
		"PING x ((a)): 56 data bytes",
		"PING x (a)): 56 data bytes",
		"PING x (a):: 56 data bytes",
		"PING x (a): data bytes",
		"PING x (a):  56 data bytes",
		"PING x\ty (a): 56 data bytes",
		"PING \xff (\xfe): 56 data bytes",
		"PING x (a): 56 data bytes of data",
		"PING x (a): 56(84) data bytes",
		// BSD ping6 headers
		"PING6(56=40+8+8 bytes) fe80::c48:5896:526d:81ba%en0 --> ff02::1%en0",
		"PING6(56=40+8+8 bytes) ::1 --> ::1 trailing",
		"PING6(56=) a --> b",
		"PING6(56) a --> b",
		"PING6(=1) a --> b",
		"PING6(56=(1)) a --> b",
		"PING6(56=1\n2) a --> b",
		"PING6(56=1)  a --> b",
		"PING6(56=1) a -->  b",
		"PING6(56=1) a-->b",
		"PING6(56=1) a --> ",
		"PING6(56=1)  --> b",
		"PING6(56=1) a --> b\tc",
		// BSD timeouts
		"Request timeout for icmp_seq 3",
		"Request timeout for icmp_seq=3",
		"Request timeout for icmp_seq3",
		"Request timeout for icmp_seq ",
		"Request timeout for icmp_seq",
		"Request timeout for icmp_seq 12x",
		// IPv6 tokens
		"from fe80::1%en0, x",
		"(2001:db8::1)",
		"2001:db8::1:",
		"1:2",
		"::ffff:1.2.3.4",
		"::ffff:1.2.3",
		"a\u00a0fe80::1\u2003b",
		"fe80::1\u0085",
		"fe80::1\xff",
		"\xc2fe80::1",
		"fe80::g1 ::1x fe80:::1",
		"fe80::1\v",
		"1:2:3:4:5:6:7:8:9",
		"::",
	} {
		checkScanAgrees(t, line)
	}
}

// TestScanLinuxReplyCorpus checks every line of every ping fixture, and
// the source of every reply as splitNameIP sees it.
func TestScanLinuxReplyCorpus(t *testing.T) {
	forEachCorpusLine(t, "ping", func(t *testing.T, line string) {
		checkScanAgrees(t, line)
		if m, ok := scanLinuxReply(line); ok {
			checkScanAgrees(t, m.from)
		}
	})
}

func FuzzPingScan(f *testing.F) {
	fuzzLines(f, "ping", checkScanAgrees,
		"[1.5] 64 bytes from h (1.2.3.4): icmp_seq=1 ttl=64 time=0.5 ms",
		"16 bytes from fe80::1%en0, icmp_seq=0 hlim=64 time=0.302 ms",
		"PING6(56=40+8+8 bytes) fe80::1%en0 --> ff02::1%en0")
}
