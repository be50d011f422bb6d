package diag

import (
	"regexp"
	"strings"
	"testing"
)

// The specification of the dig scanners: the expressions the parser used
// before it scanned these lines by hand.
var (
	specDigHeader = regexp.MustCompile(`opcode: (\S+?), status: (\S+?), id: (\d+)`)
	specDigFlags  = regexp.MustCompile(`^;; flags:([^;]*); QUERY: (\d+), ANSWER: (\d+), AUTHORITY: (\d+), ADDITIONAL: (\d+)`)
)

// checkDigScanAgrees fails t when the dig scanners and their
// specifications disagree on line, or when the literal guard before
// reDigNSID would skip a value the expression matches.
func checkDigScanAgrees(t *testing.T, line string) {
	t.Helper()
	op, st, id, ok := digHeader(line)
	m := specDigHeader.FindStringSubmatch(line)
	if ok != (m != nil) || ok && (op != m[1] || st != m[2] || id != m[3]) {
		t.Fatalf("digHeader(%q) = %q, %q, %q, %v; expression: %q", line, op, st, id, ok, m)
	}
	c, ok := scanDigFlags(line)
	m = specDigFlags.FindStringSubmatch(line)
	if ok != (m != nil) || ok && c != (digCounts{m[1], m[2], m[3], m[4], m[5]}) {
		t.Fatalf("scanDigFlags(%q) = %+v, %v; expression: %q", line, c, ok, m)
	}
	if !strings.Contains(line, `("`) && reDigNSID.Re().MatchString(line) {
		t.Fatalf("reDigNSID matches %q, which lacks the literal its guard needs", line)
	}
}

func TestDigScanCases(t *testing.T) {
	for _, line := range []string{
		";; ->>HEADER<<- opcode: QUERY, status: NOERROR, id: 25779",
		";; ->>HEADER<<- opcode: QUERY, status: NOERROR, id: 25779, extra",
		"opcode: Q,R, status: S,T, id: 1x",
		"opcode: , status: S, id: 1",
		"opcode: Q, status: , id: 1",
		"opcode: Q, status: S, id: ",
		"opcode: Q, status: S, id: x opcode: A, status: B, id: 2",
		"opcode: Q R, status: S, id: 1",
		"opcode: Q,, status: S,, id: 12",
		"opcode: Q, status: S, id:  1",
		"opcode: Q\t, status: S, id: 1",
		"opcode: \xff, status: \xfe, id: 3",
		"opcode: Q\n, status: S, id: 1",
		"opcode: opcode: Q, status: S, id: 1",
		"opcode: Q, status: S, status: T, id: 1",
		"opcode:Q, status: S, id: 1",
		";; flags: qr rd ra; QUERY: 1, ANSWER: 1, AUTHORITY: 0, ADDITIONAL: 1",
		";; flags:; QUERY: 1, ANSWER: 0, AUTHORITY: 0, ADDITIONAL: 0x",
		";; flags: qr\n; QUERY: 1, ANSWER: 0, AUTHORITY: 0, ADDITIONAL: 0",
		";; flags: qr; QUERY: , ANSWER: 0, AUTHORITY: 0, ADDITIONAL: 0",
		";; flags: qr; QUERY: 1, ANSWER: 0, AUTHORITY: 0, ADDITIONAL: ",
		";; flags: qr; ; QUERY: 1, ANSWER: 0, AUTHORITY: 0, ADDITIONAL: 0",
		";; flags: qr; QUERY: 1,  ANSWER: 0, AUTHORITY: 0, ADDITIONAL: 0",
		" ;; flags: qr; QUERY: 1, ANSWER: 0, AUTHORITY: 0, ADDITIONAL: 0",
		";; flags: qr; QUERY: ١, ANSWER: 0, AUTHORITY: 0, ADDITIONAL: 0",
		";; flags: qr",
		";; flags:",
		`; NSID: 67 70 64 6e 73 2d 73 66 6f ("gpdns-sfo")`,
		`("x") `,
		`(x")`,
		"",
	} {
		checkDigScanAgrees(t, line)
	}
}

// TestDigScanCorpus checks every line of every dig fixture.
func TestDigScanCorpus(t *testing.T) {
	forEachCorpusLine(t, "dig", checkDigScanAgrees)
}

func FuzzDigScan(f *testing.F) {
	fuzzLines(f, "dig", checkDigScanAgrees,
		";; ->>HEADER<<- opcode: QUERY, status: NOERROR, id: 25779",
		";; flags: qr rd ra; QUERY: 1, ANSWER: 1, AUTHORITY: 0, ADDITIONAL: 1")
}
