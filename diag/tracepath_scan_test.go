package diag

import (
	"regexp"
	"testing"
)

// The specification of the tracepath scanners: the expressions the parser
// used before it scanned lines by hand.
var (
	specTpTTLHost = regexp.MustCompile(`^\s?(\d+)(\??):\s+(no reply|\S+)(?:\s+\(([^()\s]+)\))?`)
	specTpPMTU    = regexp.MustCompile(`\spmtu\s(\d+)`)
	specTpReply   = regexp.MustCompile(`\s(\d*\.\d*)ms`)
	specTpAsymm   = regexp.MustCompile(`\sasymm\s+(\d+)`)
	specTpReached = regexp.MustCompile(`\sreached`)
	specTpSummary = regexp.MustCompile(`\s+Resume:\s+pmtu\s+(\d+)(?:\s+hops\s+(\d+))?(?:\s+back\s+(\d+))?`)
	specTpNote    = regexp.MustCompile(`\s(![A-Z]+\S*)`)
)

// checkGroup fails t when a scanner's (group, ok) differs from the first
// group of re's leftmost match in line.
func checkGroup(t *testing.T, name, line string, re *regexp.Regexp, got string, ok bool) {
	t.Helper()
	m := re.FindStringSubmatch(line)
	if ok != (m != nil) || ok && got != m[1] {
		t.Fatalf("%s(%q) = %q, %v; expression: %q", name, line, got, ok, m)
	}
}

// checkTracepathScanAgrees fails t when the tracepath scanners and their
// specifications disagree on line.
func checkTracepathScanAgrees(t *testing.T, line string) {
	t.Helper()
	h, ok := scanTracepathHop(line)
	m := specTpTTLHost.FindStringSubmatch(line)
	if ok != (m != nil) {
		t.Fatalf("scanTracepathHop(%q) ok = %v, expression matches = %v", line, ok, m != nil)
	}
	if ok {
		want := tracepathHop{ttl: m[1], guess: m[2], host: m[3], address: m[4]}
		if h != want {
			t.Fatalf("scanTracepathHop(%q)\n got %+v\nwant %+v", line, h, want)
		}
	}
	if got, want := tracepathReached(line), specTpReached.MatchString(line); got != want {
		t.Fatalf("tracepathReached(%q) = %v, expression %v", line, got, want)
	}
	v, ok := tracepathReply(line)
	checkGroup(t, "tracepathReply", line, specTpReply, v, ok)
	v, ok = tracepathPMTU(line)
	checkGroup(t, "tracepathPMTU", line, specTpPMTU, v, ok)
	v, ok = tracepathAsymm(line)
	checkGroup(t, "tracepathAsymm", line, specTpAsymm, v, ok)
	v, ok = tracepathNote(line)
	checkGroup(t, "tracepathNote", line, specTpNote, v, ok)
	s, ok := scanTracepathSummary(line)
	sm := specTpSummary.FindStringSubmatch(line)
	if ok != (sm != nil) || ok && s != (tracepathSummary{pmtu: sm[1], hops: sm[2], back: sm[3]}) {
		t.Fatalf("scanTracepathSummary(%q) = %+v, %v; expression: %q", line, s, ok, sm)
	}
}

func TestTracepathScanCases(t *testing.T) {
	for _, line := range []string{
		" 1?: [LOCALHOST]                                         pmtu 1500",
		" 1:  dsldevice.attlocal.net                                4.063ms ",
		" 3:  no reply",
		"10:  12.242.117.16                                       161.527ms asymm  2",
		" 1:  gateway (192.168.1.1)                                 0.543ms reached",
		" 2:  host.example (2001:db8::1)  1.2ms !H extra",
		"     Resume: pmtu 1500 hops 10 back 12",
		"     Resume: pmtu 65535",
		"     Resume: pmtu 1500 back 9",
		"     Resume: pmtu 1500 hops back 9",
		"Resume: pmtu 1500",
		" Resume:pmtu 1500",
		" Resume: pmtu x Resume: pmtu 7 hops 3",
		"\tResume:\t pmtu\t1  hops\t\t2 back 3x",
		"  1: x",
		"1: x",
		"1:x",
		"1?:  x",
		"1??: x",
		"1 : x",
		":  x",
		" 1:",
		" 1:   ",
		" 1:  no replyX (a)",
		" 1:  no reply (a)",
		" 1:  no reply(a)",
		" 1:  h (a b)",
		" 1:  h (a)(b)",
		" 1:  h ((a))",
		" 1:  h ()",
		" 1:  h (a",
		" 1:  h \t(a)",
		" 1:  h\v(a)",
		" 1:  \xff\xfe (\xfd)",
		" 1:  h\u00a0x (a)",
		"\n1: x",
		"1:\nx",
		"1: x\n(a)",
		" 1:  h 1.ms 2.5ms .ms",
		" 1:  h .ms",
		" 1:  h 1.2.3ms",
		" 1:  h 1.2 ms 3.4ms",
		"x\t5.ms",
		"x 5ms 6.ms",
		" pmtu 1500 pmtu 1400",
		" pmtu  1500",
		"pmtu 1500 \tpmtu\n7",
		" pmtu",
		" pmtu ",
		" pmtux 1 pmtu 2",
		" asymm 3 asymm 4",
		" asymm\t \n5",
		" asymm x asymm 6",
		" asymm",
		"asymm 5",
		" !H", " !", " !h !N", " !X-2 foo", " !Ab\xffc d", "x!H !1 !Z",
		"reached", " reached", "xreached", "\treachedx", "  reache",
		"",
	} {
		checkTracepathScanAgrees(t, line)
	}
}

// TestTracepathScanCorpus checks every line of every tracepath fixture.
func TestTracepathScanCorpus(t *testing.T) {
	forEachCorpusLine(t, "tracepath", checkTracepathScanAgrees)
}

func FuzzTracepathScan(f *testing.F) {
	fuzzLines(f, "tracepath", checkTracepathScanAgrees,
		" 1?:  h (a)  1.5ms pmtu 1400 asymm 2 !H reached",
		"     Resume: pmtu 1500 hops 10 back 12")
}
