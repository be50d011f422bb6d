package diag

import "strings"

// The most frequent line of any ping output is an iputils reply, and the
// parser reads it without a regular expression: "netmcp parse ping" runs
// once per file in scripts, and compiling the reply expression cost more
// than parsing a whole file. The header and statistics lines are scanned
// too. The scanners of this file accept exactly what the expressions in
// ping_scan_test.go accept (checked there over the corpus and by
// FuzzPingScan); that file is their specification.

// linuxReply holds the fields of an iputils reply line, as the submatches
// of the expression would: an absent optional field is "".
type linuxReply struct {
	timestamp, bytes, from, seq, ttl, time string
}

// scanLinuxReply matches a line against
//
//	^(?:\[(\d+(?:\.\d+)?)\] )?(\d+) bytes from (.+?): (?:icmp_)?seq=(\d+)(?: ttl=(\d+))?(?: time=(\d+(?:\.\d+)?) ms)?
func scanLinuxReply(line string) (r linuxReply, ok bool) {
	rest := line
	if strings.HasPrefix(rest, "[") {
		ts, n := scanDecimal(rest[1:])
		if n == 0 || !strings.HasPrefix(rest[1+n:], "] ") {
			return r, false // a "[" that is no timestamp cannot start a reply
		}
		r.timestamp, rest = ts, rest[1+n+2:]
	}
	n := digits(rest)
	if n == 0 || !strings.HasPrefix(rest[n:], " bytes from ") {
		return r, false
	}
	r.bytes, rest = rest[:n], rest[n+len(" bytes from "):]
	// (.+?): the shortest non-empty source followed by ": seq=N" or
	// ": icmp_seq=N". "." matches anything but a newline.
	for j := 1; j < len(rest); j++ {
		if rest[j-1] == '\n' {
			return r, false
		}
		if rest[j] != ':' {
			continue
		}
		after := rest[j:]
		var seqAt int
		switch {
		case strings.HasPrefix(after, ": icmp_seq=") && digits(after[len(": icmp_seq="):]) > 0:
			seqAt = len(": icmp_seq=")
		case strings.HasPrefix(after, ": seq=") && digits(after[len(": seq="):]) > 0:
			seqAt = len(": seq=")
		default:
			continue
		}
		r.from = rest[:j]
		after = after[seqAt:]
		n = digits(after)
		r.seq, after = after[:n], after[n:]
		if strings.HasPrefix(after, " ttl=") {
			if n = digits(after[len(" ttl="):]); n > 0 {
				r.ttl, after = after[len(" ttl="):][:n], after[len(" ttl=")+n:]
			}
		}
		if strings.HasPrefix(after, " time=") {
			v, n := scanDecimal(after[len(" time="):])
			if n > 0 && strings.HasPrefix(after[len(" time=")+n:], " ms") {
				r.time = v
			}
		}
		return r, true
	}
	return r, false
}

// splitNameIP splits "host.example (192.0.2.1)" into its name and address,
// as ^(\S+) \(([^()\s]+)\)$ would; ok is false for anything else.
func splitNameIP(s string) (name, ip string, ok bool) {
	n := nonSpaces(s)
	if n == 0 || !strings.HasPrefix(s[n:], " (") {
		return "", "", false
	}
	rest := s[n+2:]
	m := addrChars(rest)
	if m == 0 || rest[m:] != ")" {
		return "", "", false
	}
	return s[:n], rest[:m], true
}

// scanDataBytes finds the payload size in an iputils header, as
// (\d+)(?:\(\d+\))? (?:bytes of data|data bytes) would (unanchored): size
// is the first group and start the offset of the match; ok is false when
// nothing matches.
func scanDataBytes(h string) (size string, start int, ok bool) {
	for i := 0; i < len(h); i++ {
		if h[i] < '0' || h[i] > '9' || i > 0 && h[i-1] >= '0' && h[i-1] <= '9' {
			continue // the leftmost match starts a run of digits
		}
		n := digits(h[i:])
		rest := h[i+n:]
		if strings.HasPrefix(rest, "(") {
			if m := digits(rest[1:]); m > 0 && strings.HasPrefix(rest[1+m:], ")") && dataBytesPhrase(rest[2+m:]) {
				return h[i : i+n], i, true
			}
		}
		if dataBytesPhrase(rest) {
			return h[i : i+n], i, true
		}
	}
	return "", 0, false
}

func dataBytesPhrase(s string) bool {
	return strings.HasPrefix(s, " bytes of data") || strings.HasPrefix(s, " data bytes")
}

// lastParenAddr returns the group of the last match of \(([^()\s]+)\) in s.
func lastParenAddr(s string) (addr string, ok bool) {
	for i := 0; i < len(s); i++ {
		if s[i] != '(' {
			continue
		}
		j := i + 1 + addrChars(s[i+1:])
		if j > i+1 && j < len(s) && s[j] == ')' {
			addr, ok = s[i+1:j], true
			i = j
		}
	}
	return addr, ok
}

// statsDestination returns the destination of a statistics line, as the
// group of ^--- (.*?) ?(?:ping6? )?statistics --- would.
func statsDestination(line string) (dest string, ok bool) {
	rest, found := strings.CutPrefix(line, "--- ")
	if !found {
		return "", false
	}
	for k := 0; k <= len(rest); k++ {
		if k > 0 && rest[k-1] == '\n' {
			return "", false
		}
		tail := rest[k:]
		tail = strings.TrimPrefix(tail, " ")
		if strings.HasPrefix(tail, "statistics ---") ||
			strings.HasPrefix(tail, "ping statistics ---") || strings.HasPrefix(tail, "ping6 statistics ---") {
			return rest[:k], true
		}
	}
	return "", false
}
