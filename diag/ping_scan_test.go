package diag

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The specification of scanLinuxReply and splitNameIP: the expressions the
// parser used before it scanned these lines by hand.
var (
	specLinuxReply = regexp.MustCompile(`^(?:\[(\d+(?:\.\d+)?)\] )?(\d+) bytes from (.+?): (?:icmp_)?seq=(\d+)(?: ttl=(\d+))?(?: time=(\d+(?:\.\d+)?) ms)?`)
	specNameIP     = regexp.MustCompile(`^(\S+) \(([^()\s]+)\)$`)
	specDataBytes  = regexp.MustCompile(`(\d+)(?:\(\d+\))? (?:bytes of data|data bytes)`)
	specParenAddr  = regexp.MustCompile(`\(([^()\s]+)\)`)
	specStatsDest  = regexp.MustCompile(`^--- (.*?) ?(?:ping6? )?statistics ---`)
)

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
	} {
		checkScanAgrees(t, line)
	}
}

// TestScanLinuxReplyCorpus checks every line of every ping fixture.
func TestScanLinuxReplyCorpus(t *testing.T) {
	root := corpusRoot(t)
	files, _ := filepath.Glob(filepath.Join(root, "ping", "*", "*.out"))
	if len(files) == 0 {
		t.Fatal("no ping fixtures")
	}
	lines := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			checkScanAgrees(t, line)
			if m, ok := scanLinuxReply(line); ok {
				checkScanAgrees(t, m.from) // the source, as splitNameIP sees it
			}
			lines++
		}
	}
	t.Logf("%d lines of %d files agree", lines, len(files))
}

func FuzzPingScan(f *testing.F) {
	seedCorpus(f, "ping")
	f.Add("[1.5] 64 bytes from h (1.2.3.4): icmp_seq=1 ttl=64 time=0.5 ms")
	f.Fuzz(func(t *testing.T, s string) {
		for _, line := range strings.Split(s, "\n") {
			checkScanAgrees(t, line)
		}
		checkScanAgrees(t, s) // with newlines inside
	})
}
