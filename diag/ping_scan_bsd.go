package diag

import (
	"net/netip"
	"strings"
	"unicode"
	"unicode/utf8"
)

// BSD and macOS ping lines are read without regular expressions too, for
// the same reason as the iputils ones (see ping_scan.go): in a short-lived
// "netmcp parse ping" compiling the expressions, and backtracking through
// the lazy source of the reply one, cost more than the rest of the parse.
// scanBSDReply, scanBSDHeader, scanBSD6Header and scanBSDTimeout accept
// exactly what the expressions in ping_scan_test.go accept, and ipv6In
// decides as the former implementation kept there does; that file is
// their specification.

// bsdReply holds the fields of a BSD reply line.
type bsdReply struct {
	bytes, from, seq, ttl, time string
}

// scanBSDReply matches a line against
//
//	^(\d+) bytes from ([^\s,]+?)[:,] (?:icmp_)?seq=(\d+) (?:ttl|hlim)=(\d+) time=(\d+(?:\.\d+)?) ms
func scanBSDReply(line string) (r bsdReply, ok bool) {
	n := digits(line)
	if n == 0 || !strings.HasPrefix(line[n:], " bytes from ") {
		return r, false
	}
	r.bytes = line[:n]
	rest := line[n+len(" bytes from "):]
	// ([^\s,]+?)[:,] : the shortest non-empty source without white space
	// or commas that the rest of the line completes.
	for j := 1; j < len(rest); j++ {
		if c := rest[j-1]; c == ',' || isSpaceRE(c) {
			return r, false
		}
		if c := rest[j]; c != ':' && c != ',' {
			continue
		}
		if r.seq, r.ttl, r.time, ok = bsdReplyTail(rest[j+1:]); ok {
			r.from = rest[:j]
			return r, true
		}
	}
	return bsdReply{}, false
}

// bsdReplyTail matches what follows the source of a BSD reply:
// " (?:icmp_)?seq=(\d+) (?:ttl|hlim)=(\d+) time=(\d+(?:\.\d+)?) ms".
func bsdReplyTail(s string) (seq, ttl, time string, ok bool) {
	switch {
	case strings.HasPrefix(s, " icmp_seq="):
		s = s[len(" icmp_seq="):]
	case strings.HasPrefix(s, " seq="):
		s = s[len(" seq="):]
	default:
		return "", "", "", false
	}
	n := digits(s)
	if n == 0 {
		return "", "", "", false
	}
	seq, s = s[:n], s[n:]
	switch {
	case strings.HasPrefix(s, " ttl="):
		s = s[len(" ttl="):]
	case strings.HasPrefix(s, " hlim="):
		s = s[len(" hlim="):]
	default:
		return "", "", "", false
	}
	n = digits(s)
	if n == 0 || !strings.HasPrefix(s[n:], " time=") {
		return "", "", "", false
	}
	ttl, s = s[:n], s[n+len(" time="):]
	time, n = scanDecimal(s)
	if n == 0 || !strings.HasPrefix(s[n:], " ms") {
		return "", "", "", false
	}
	return seq, ttl, time, true
}

// scanBSDHeader matches a line against
//
//	^PING (\S*) \(([^()\s]*)\):? (\d+) data bytes
//
// and returns the address and payload size.
func scanBSDHeader(line string) (addr, size string, ok bool) {
	rest, found := strings.CutPrefix(line, "PING ")
	if !found {
		return "", "", false
	}
	i := nonSpaces(rest)
	if !strings.HasPrefix(rest[i:], " (") {
		return "", "", false
	}
	rest = rest[i+2:]
	i = addrChars(rest)
	if !strings.HasPrefix(rest[i:], ")") {
		return "", "", false
	}
	addr, rest = rest[:i], rest[i+1:]
	rest = strings.TrimPrefix(rest, ":")
	if !strings.HasPrefix(rest, " ") {
		return "", "", false
	}
	rest = rest[1:]
	n := digits(rest)
	if n == 0 || !strings.HasPrefix(rest[n:], " data bytes") {
		return "", "", false
	}
	return addr, rest[:n], true
}

// scanBSD6Header matches a line against
//
//	^PING6\((\d+)=[^)]*\) (\S+) --> (\S+)
func scanBSD6Header(line string) (size, src, dst string, ok bool) {
	rest, found := strings.CutPrefix(line, "PING6(")
	if !found {
		return "", "", "", false
	}
	n := digits(rest)
	if n == 0 || !strings.HasPrefix(rest[n:], "=") {
		return "", "", "", false
	}
	size, rest = rest[:n], rest[n+1:]
	i := strings.IndexByte(rest, ')')
	if i < 0 || !strings.HasPrefix(rest[i:], ") ") {
		return "", "", "", false
	}
	rest = rest[i+2:]
	if n = nonSpaces(rest); n == 0 || !strings.HasPrefix(rest[n:], " --> ") {
		return "", "", "", false
	}
	src, rest = rest[:n], rest[n+len(" --> "):]
	if n = nonSpaces(rest); n == 0 {
		return "", "", "", false
	}
	return size, src, rest[:n], true
}

// scanBSDTimeout matches a line against
//
//	^Request timeout for icmp_seq[ =](\d+)
func scanBSDTimeout(line string) (seq string, ok bool) {
	rest, found := strings.CutPrefix(line, "Request timeout for icmp_seq")
	if !found || rest == "" || rest[0] != ' ' && rest[0] != '=' {
		return "", false
	}
	n := digits(rest[1:])
	return rest[1 : 1+n], n > 0
}

// ipv6In reports whether a token of line is an IPv6 address (jc's test for
// BSD ping6 reply lines). Tokens are separated by white space (as
// strings.Fields sees it) and the characters "(),%", and must hold two
// colons or more. It reads the line in place, without allocating.
func ipv6In(line string) bool {
	start := -1 // of the current token
	for i := 0; i <= len(line); {
		sep, w := true, 1
		if i < len(line) {
			if c := line[i]; c < utf8.RuneSelf {
				sep = c == '(' || c == ')' || c == ',' || c == '%' || c == '\v' || isSpaceRE(c)
			} else {
				var r rune
				r, w = utf8.DecodeRuneInString(line[i:])
				sep = unicode.IsSpace(r)
			}
		}
		switch {
		case !sep:
			if start < 0 {
				start = i
			}
		case start >= 0:
			if isIPv6Token(line[start:i]) {
				return true
			}
			start = -1
		}
		i += w
	}
	return false
}

// isIPv6Token reports whether tok, holding two colons or more, is an IPv6
// address. Characters netip.ParseAddr never accepts in a zoneless IPv6
// address are rejected first, sparing it an error value.
func isIPv6Token(tok string) bool {
	colons := 0
	for i := 0; i < len(tok); i++ {
		switch c := tok[i]; {
		case c == ':':
			colons++
		case c == '.', isHex(c):
		default:
			return false
		}
	}
	if colons < 2 {
		return false
	}
	a, err := netip.ParseAddr(tok)
	return err == nil && a.Is6()
}
