package diag

import "strings"

// traceroute's header, hop lines and probe tokens are read without regular
// expressions: the parser matched four or five expressions against every
// token of every hop line, and compiling its nine expressions cost a
// short-lived "netmcp parse traceroute" more than the parse. The scanners
// below accept exactly what the expressions in traceroute_scan_test.go
// accept (checked there over the corpus and by FuzzTracerouteScan); that
// file is their specification.

// tracerouteDest returns the groups of the first match of
// (\S+)\s+\((\d+\.\d+\.\d+\.\d+|[0-9a-fA-F:]+)\) in s: a destination name
// and the address in parentheses after it.
func tracerouteDest(s string) (name, ip string, ok bool) {
	// A match starts a run of \S (every start inside a run would give the
	// run's end, so the leftmost is the run's start) and needs the next
	// run to open with "(address)".
	i := spaces(s)
	for i < len(s) {
		n := nonSpaces(s[i:])
		run := s[i : i+n]
		i += n
		i += spaces(s[i:])
		if i == len(s) || s[i] != '(' {
			continue
		}
		end := strings.IndexByte(s[i+1:], ')')
		if end < 0 {
			continue
		}
		addr := s[i+1 : i+1+end]
		if isDottedQuad(addr, 0) || hexColons(addr) {
			return run, addr, true
		}
	}
	return "", "", false
}

// isDottedQuad reports whether s is four dot-separated runs of ASCII
// digits: \d+\.\d+\.\d+\.\d+ when max is 0, or with each run at most max
// digits long (\d{1,max}).
func isDottedQuad(s string, max int) bool {
	for part := 0; part < 4; part++ {
		n := digits(s)
		if n == 0 || max > 0 && n > max {
			return false
		}
		s = s[n:]
		if part < 3 {
			if !strings.HasPrefix(s, ".") {
				return false
			}
			s = s[1:]
		}
	}
	return s == ""
}

// isHexColon reports whether c is in [0-9a-fA-F:].
func isHexColon(c byte) bool {
	return c == ':' || isHex(c)
}

// hexColons reports whether ^[0-9a-fA-F:]+$ matches s.
func hexColons(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHexColon(s[i]) {
			return false
		}
	}
	return s != ""
}

// tracerouteLimits returns the groups of the first match of
// (\d+) hops max, (\d+) byte packets in s.
func tracerouteLimits(s string) (hops, bytes string, ok bool) {
	const mid, tail = " hops max, ", " byte packets"
	for i := 0; ; i++ {
		j := strings.Index(s[i:], mid)
		if j < 0 {
			return "", "", false
		}
		i += j
		start := i
		for start > 0 && s[start-1] >= '0' && s[start-1] <= '9' {
			start--
		}
		after := s[i+len(mid):]
		n := digits(after)
		if start < i && n > 0 && strings.HasPrefix(after[n:], tail) {
			return s[start:i], after[:n], true
		}
	}
}

// tracerouteFrom returns the group of the first match of ` from (\S+?),`
// in s: the source address of a header.
func tracerouteFrom(s string) (src string, ok bool) {
	const from = " from "
	for i := 0; ; i++ {
		j := strings.Index(s[i:], from)
		if j < 0 {
			return "", false
		}
		i += j
		rest := s[i+len(from):]
		// the shortest non-empty run of \S that a comma ends
		if n := nonSpaces(rest); n > 1 {
			if k := strings.IndexByte(rest[1:n], ','); k >= 0 {
				return rest[:1+k], true
			}
		}
	}
}

// scanTracerouteHop matches a line against ^\s*(\d+)?\s+(.+)$ and returns
// the hop number (the optional first group, "" when absent) and the rest.
func scanTracerouteHop(line string) (hop, rest string, ok bool) {
	// (.+)$ takes a non-empty tail with no newline: it starts at or after
	// the last newline and before the end. The blanks before it give way
	// to it from their right end, so the tail starts at the end of the
	// blanks, or at the last byte when they end the line.
	lastNL := strings.LastIndexByte(line, '\n') + 1
	w := spaces(line)
	if n := digits(line[w:]); n > 0 {
		q := w + n
		if r := q + spaces(line[q:]); r > q {
			if e := min(r, len(line)-1); e >= q+1 && e >= lastNL {
				return line[w:q], line[e:], true
			}
		}
	}
	if e := min(w, len(line)-1); e >= 1 && e >= lastNL {
		return "", line[e:], true
	}
	return "", "", false
}

// isASN reports whether ^\[AS(\d+)\]$ matches t.
func isASN(t string) bool {
	n, ok := strings.CutPrefix(t, "[AS")
	if !ok {
		return false
	}
	n, ok = strings.CutSuffix(n, "]")
	return ok && n != "" && digits(n) == len(n)
}

// isTraceIPv4 reports whether ^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$
// matches t.
func isTraceIPv4(t string) bool { return isDottedQuad(t, 3) }

// isTraceIPv6 reports whether ^[0-9a-fA-F]*:[0-9a-fA-F:]*[0-9a-fA-F]$
// matches t: hex digits and colons, with a colon, ending in a hex digit.
func isTraceIPv6(t string) bool {
	return hexColons(t) && strings.IndexByte(t, ':') >= 0 && isHex(t[len(t)-1])
}

// parenIP returns the group of ^\((\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}|[0-9a-fA-F:]+)\)+$
// in t: an address in parentheses, as in "(192.0.2.1)".
func parenIP(t string) (ip string, ok bool) {
	if !strings.HasPrefix(t, "(") {
		return "", false
	}
	end := strings.IndexByte(t, ')')
	if end < 0 || strings.Trim(t[end:], ")") != "" {
		return "", false
	}
	ip = t[1:end]
	if isDottedQuad(ip, 3) || hexColons(ip) {
		return ip, true
	}
	return "", false
}

// traceRTT returns the first match of \d+(?:\.?\d+)?$ in t: the number
// that ends it, with its fraction when a dot and digits come before.
func traceRTT(t string) (rtt string, ok bool) {
	i := len(t)
	for i > 0 && t[i-1] >= '0' && t[i-1] <= '9' {
		i--
	}
	if i == len(t) {
		return "", false
	}
	if i >= 2 && t[i-1] == '.' && t[i-2] >= '0' && t[i-2] <= '9' {
		i--
		for i > 0 && t[i-1] >= '0' && t[i-1] <= '9' {
			i--
		}
	}
	return t[i:], true
}

// isParenIP reports whether parenIP accepts t.
func isParenIP(t string) bool {
	_, ok := parenIP(t)
	return ok
}

// endsInDigit reports whether \d+(?:\.?\d+)?$ matches t, that is whether
// t ends with an ASCII digit.
func endsInDigit(t string) bool {
	return t != "" && t[len(t)-1] >= '0' && t[len(t)-1] <= '9'
}
