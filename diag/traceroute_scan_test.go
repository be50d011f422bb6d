package diag

import (
	"regexp"
	"strings"
	"testing"
)

// The specification of the traceroute scanners: the expressions the
// parser used before it scanned lines and tokens by hand.
var (
	specTrHeader  = regexp.MustCompile(`(\S+)\s+\((\d+\.\d+\.\d+\.\d+|[0-9a-fA-F:]+)\)`)
	specTrLimits  = regexp.MustCompile(`(\d+) hops max, (\d+) byte packets`)
	specTrFrom    = regexp.MustCompile(` from (\S+?),`)
	specTrHop     = regexp.MustCompile(`^\s*(\d+)?\s+(.+)$`)
	specTrASN     = regexp.MustCompile(`^\[AS(\d+)\]$`)
	specTrIPv4    = regexp.MustCompile(`^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$`)
	specTrIPv6    = regexp.MustCompile(`^[0-9a-fA-F]*:[0-9a-fA-F:]*[0-9a-fA-F]$`)
	specTrParenIP = regexp.MustCompile(`^\((\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}|[0-9a-fA-F:]+)\)+$`)
	specTrRTT     = regexp.MustCompile(`\d+(?:\.?\d+)?$`)
)

// checkTracerouteScanAgrees fails t when the traceroute scanners and their
// specifications disagree on s (a line, or a token).
func checkTracerouteScanAgrees(t *testing.T, s string) {
	t.Helper()
	name, ip, ok := tracerouteDest(s)
	m := specTrHeader.FindStringSubmatch(s)
	if ok != (m != nil) || ok && (name != m[1] || ip != m[2]) {
		t.Fatalf("tracerouteDest(%q) = %q, %q, %v; expression: %q", s, name, ip, ok, m)
	}
	hops, size, ok := tracerouteLimits(s)
	m = specTrLimits.FindStringSubmatch(s)
	if ok != (m != nil) || ok && (hops != m[1] || size != m[2]) {
		t.Fatalf("tracerouteLimits(%q) = %q, %q, %v; expression: %q", s, hops, size, ok, m)
	}
	src, ok := tracerouteFrom(s)
	checkGroup(t, "tracerouteFrom", s, specTrFrom, src, ok)
	num, rest, ok := scanTracerouteHop(s)
	m = specTrHop.FindStringSubmatch(s)
	if ok != (m != nil) || ok && (num != m[1] || rest != m[2]) {
		t.Fatalf("scanTracerouteHop(%q) = %q, %q, %v; expression: %q", s, num, rest, ok, m)
	}
	for _, c := range []struct {
		name     string
		got      bool
		expected *regexp.Regexp
	}{
		{"isASN", isASN(s), specTrASN},
		{"isTraceIPv4", isTraceIPv4(s), specTrIPv4},
		{"isTraceIPv6", isTraceIPv6(s), specTrIPv6},
		{"isParenIP", isParenIP(s), specTrParenIP},
		{"endsInDigit", endsInDigit(s), specTrRTT},
	} {
		if want := c.expected.MatchString(s); c.got != want {
			t.Fatalf("%s(%q) = %v, expression %v", c.name, s, c.got, want)
		}
	}
	ip, ok = parenIP(s)
	checkGroup(t, "parenIP", s, specTrParenIP, ip, ok)
	rtt, ok := traceRTT(s)
	want := specTrRTT.FindString(s)
	if ok != specTrRTT.MatchString(s) || rtt != want {
		t.Fatalf("traceRTT(%q) = %q, %v; expression: %q", s, rtt, ok, want)
	}
}

// checkTracerouteLine checks line and each of its blank-separated tokens.
func checkTracerouteLine(t *testing.T, line string) {
	t.Helper()
	checkTracerouteScanAgrees(t, line)
	for _, tok := range strings.Fields(line) {
		checkTracerouteScanAgrees(t, tok)
	}
}

func TestTracerouteScanCases(t *testing.T) {
	for _, line := range []string{
		"traceroute to google.com (172.217.6.46), 30 hops max, 60 byte packets",
		"traceroute6 to ipv6.google.com (2607:f8b0:4000:80f::200e) from 2600:1700::1, 64 hops max, 12 byte packets",
		"traceroute to x (1.2.3.4.5), 30 hops max, 60 byte packets",
		"traceroute to  x  (1.2.3.4)",
		"traceroute to x(1.2.3.4) y (::1)",
		"traceroute to x (a b) (c) z (1.2.3.4)",
		"traceroute to x (1.2.3.4 y (::1)",
		"traceroute to x (g) y (2001:DB8::A)",
		"(1.2.3.4) a\n(::1)",
		"a\t\n(::1)",
		"\xff (1.2.3.4)",
		"a () b (1)",
		"x (1.2.3.4)) (5)",
		"30 hops max, 60 byte packets",
		"x30 hops max, 60 byte packets",
		"30 hops max, x byte packets 7 hops max, 8 byte packets",
		" hops max, 60 byte packets 5 hops max, 6 byte packets",
		"1 hops max, 2 byte packet",
		"12 hops max,  3 byte packets",
		" from 10.0.0.1, 30 hops max",
		" from ,, x",
		" from , x from y,",
		" from a b, from c,",
		" from a",
		" from ,",
		"from a,",
		" from \xffa,",
		" from a\nb,",
		" 1  gateway (192.168.1.1)  0.543 ms  0.502 ms  0.490 ms",
		" 2  * * *",
		"    10.0.0.1  1.0 ms",
		"10  a",
		"1",
		"1 ",
		"1  ",
		" 1",
		"  ",
		" ",
		"",
		"x",
		" x",
		"\t\t",
		"1 \nfoo",
		"1 x\ny",
		"1\n\n",
		"1 \n",
		"\n x",
		" \n",
		"12a b",
		"١ x",
		"[AS15169]", "[AS]", "[AS1", "AS1]", "[as1]", "[AS1x]", "[AS١]",
		"1.2.3.4", "1.2.3", "1234.2.3.4", "1.2.3.4.", ".1.2.3", "1..2.3",
		"::1", "fe80::1", "fe80::", ":a", "a:", "a", "1:2", "g::1", "::1%en0", "",
		"(1.2.3.4)", "(1.2.3.4))", "(1.2.3.4)x", "((1.2.3.4))", "(::1)", "()", "(", ")",
		"(1234.1.1.1)", "(12)", "(1.2.3.4)()", "(a b)",
		"0.543", "12", "1.2.3", "x12", "1.", ".5", "a.5", "1..5", "12.5x", "1.5.",
	} {
		checkTracerouteLine(t, line)
	}
}

// TestTracerouteScanCorpus checks every line, and every token of every
// line, of every traceroute fixture.
func TestTracerouteScanCorpus(t *testing.T) {
	forEachCorpusLine(t, "traceroute", checkTracerouteLine)
}

func FuzzTracerouteScan(f *testing.F) {
	fuzzLines(f, "traceroute", checkTracerouteLine,
		"traceroute to h (1.2.3.4) from 5.6.7.8, 30 hops max, 60 byte packets",
		" 1  [AS1] h (::1)  0.5 ms !H  * 1.2.3.4  2 ms")
}
