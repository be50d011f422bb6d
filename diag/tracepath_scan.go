package diag

import "strings"

// tracepath lines are read without regular expressions: unanchored
// expressions that start with \s have no literal prefix to search for, so
// the regexp package ran its backtracker from every byte of every hop line,
// and that was most of the time of a parse (and compiling the seven
// expressions most of the time of a first parse). The scanners below accept
// exactly what the expressions in tracepath_scan_test.go accept (checked
// there over the corpus and by FuzzTracepathScan); that file is their
// specification.

// tracepathHop holds the submatches of a hop line's start: an absent
// address is "".
type tracepathHop struct {
	ttl, guess, host, address string
}

// scanTracepathHop matches a line against
//
//	^\s?(\d+)(\??):\s+(no reply|\S+)(?:\s+\(([^()\s]+)\))?
func scanTracepathHop(line string) (h tracepathHop, ok bool) {
	rest := line
	if rest != "" && isSpaceRE(rest[0]) {
		rest = rest[1:] // a blank can only be followed by the TTL
	}
	n := digits(rest)
	if n == 0 {
		return h, false
	}
	h.ttl, rest = rest[:n], rest[n:]
	if strings.HasPrefix(rest, "?") {
		h.guess, rest = "?", rest[1:]
	}
	if !strings.HasPrefix(rest, ":") {
		return h, false
	}
	rest = rest[1:]
	n = spaces(rest)
	if n == 0 || n == len(rest) {
		return h, false
	}
	rest = rest[n:]
	if strings.HasPrefix(rest, "no reply") {
		n = len("no reply")
	} else {
		n = nonSpaces(rest)
	}
	h.host, rest = rest[:n], rest[n:]
	// (?:\s+\(([^()\s]+)\))?
	n = spaces(rest)
	if n == 0 || !strings.HasPrefix(rest[n:], "(") {
		return h, true
	}
	rest = rest[n+1:]
	n = addrChars(rest)
	if n > 0 && n < len(rest) && rest[n] == ')' {
		h.address = rest[:n]
	}
	return h, true
}

// afterSpaceWord returns the offset just after the first occurrence of
// word in s that follows a \s byte and whose following text more accepts;
// ok is false when there is none.
func afterSpaceWord(s, word string, more func(rest string) bool) (at int, ok bool) {
	for i := 1; i+len(word) <= len(s); i++ {
		j := strings.Index(s[i:], word)
		if j < 0 {
			return 0, false
		}
		i += j
		if isSpaceRE(s[i-1]) && (more == nil || more(s[i+len(word):])) {
			return i + len(word), true
		}
	}
	return 0, false
}

// tracepathReached reports whether \sreached matches line.
func tracepathReached(line string) bool {
	_, ok := afterSpaceWord(line, "reached", nil)
	return ok
}

// tracepathReply returns the group of the first match of \s(\d*\.\d*)ms.
func tracepathReply(line string) (ms string, ok bool) {
	for i := 0; i < len(line); i++ {
		if !isSpaceRE(line[i]) {
			continue
		}
		rest := line[i+1:]
		n := digits(rest)
		if n == len(rest) || rest[n] != '.' {
			continue
		}
		n += 1 + digits(rest[n+1:])
		if strings.HasPrefix(rest[n:], "ms") {
			return rest[:n], true
		}
	}
	return "", false
}

// tracepathPMTU returns the group of the first match of \spmtu\s(\d+).
func tracepathPMTU(line string) (pmtu string, ok bool) {
	at, ok := afterSpaceWord(line, "pmtu", func(r string) bool {
		return r != "" && isSpaceRE(r[0]) && digits(r[1:]) > 0
	})
	if !ok {
		return "", false
	}
	at++
	return line[at : at+digits(line[at:])], true
}

// tracepathAsymm returns the group of the first match of \sasymm\s+(\d+).
func tracepathAsymm(line string) (asymm string, ok bool) {
	at, ok := afterSpaceWord(line, "asymm", func(r string) bool {
		n := spaces(r)
		return n > 0 && digits(r[n:]) > 0
	})
	if !ok {
		return "", false
	}
	at += spaces(line[at:])
	return line[at : at+digits(line[at:])], true
}

// tracepathNote returns the group of the first match of \s(![A-Z]+\S*).
func tracepathNote(line string) (note string, ok bool) {
	at, ok := afterSpaceWord(line, "!", func(r string) bool {
		return r != "" && r[0] >= 'A' && r[0] <= 'Z'
	})
	if !ok {
		return "", false
	}
	return line[at-1 : at+nonSpaces(line[at:])], true
}

// tracepathSummary holds the groups of the "Resume:" line; an absent one
// is "".
type tracepathSummary struct {
	pmtu, hops, back string
}

// scanTracepathSummary matches a line against (unanchored)
//
//	\s+Resume:\s+pmtu\s+(\d+)(?:\s+hops\s+(\d+))?(?:\s+back\s+(\d+))?
func scanTracepathSummary(line string) (r tracepathSummary, ok bool) {
	at, ok := afterSpaceWord(line, "Resume:", func(r string) bool {
		_, n := spacedNumber(r, "pmtu")
		return n > 0
	})
	if !ok {
		return r, false
	}
	rest := line[at:]
	var n int
	r.pmtu, n = spacedNumber(rest, "pmtu")
	rest = rest[n:]
	if v, n := spacedNumber(rest, "hops"); n > 0 {
		r.hops, rest = v, rest[n:]
	}
	r.back, _ = spacedNumber(rest, "back")
	return r, true
}

// spacedNumber reads \s+<word>\s+(\d+) at the start of s: v is the group
// and n the length of the match, 0 when there is none.
func spacedNumber(s, word string) (v string, n int) {
	n = spaces(s)
	if n == 0 || !strings.HasPrefix(s[n:], word) {
		return "", 0
	}
	n += len(word)
	m := spaces(s[n:])
	if m == 0 {
		return "", 0
	}
	n += m
	m = digits(s[n:])
	if m == 0 {
		return "", 0
	}
	return s[n : n+m], n + m
}
