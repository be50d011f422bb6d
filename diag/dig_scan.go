package diag

import "strings"

// dig's header and flags lines, which every answer has, are read without
// regular expressions: compiling their two expressions was most of what a
// short-lived "netmcp parse dig" spent on a small answer apart from
// loading the local time zone (which "WHEN:" needs). The scanners accept
// exactly what the expressions in dig_scan_test.go accept (checked there
// over the corpus and by FuzzDigScan); that file is their specification.

// digHeader returns the groups of the first match of
// opcode: (\S+?), status: (\S+?), id: (\d+) in line.
func digHeader(line string) (opcode, status, id string, ok bool) {
	const op = "opcode: "
	for i := 0; ; i++ {
		j := strings.Index(line[i:], op)
		if j < 0 {
			return "", "", "", false
		}
		i += j
		rest := line[i+len(op):]
		// A lazy \S+? stops at the first ", status: " it can reach; as
		// that holds a blank, it can only be the comma ending the run of
		// \S.
		if opcode, rest, ok = lazyField(rest, ", status: "); !ok {
			continue
		}
		if status, rest, ok = lazyField(rest, ", id: "); !ok {
			continue
		}
		if n := digits(rest); n > 0 {
			return opcode, status, rest[:n], true
		}
	}
}

// lazyField reads (\S+?)<sep> at the start of s, for a sep that starts
// with a comma and a blank: the field is the run of \S before the comma
// that ends it, and rest follows sep.
func lazyField(s, sep string) (field, rest string, ok bool) {
	n := nonSpaces(s)
	if n < 2 || !strings.HasPrefix(s[n-1:], sep) {
		return "", "", false
	}
	return s[:n-1], s[n-1+len(sep):], true
}

// digCounts holds the groups of a flags line.
type digCounts struct {
	flags, query, answer, authority, additional string
}

// scanDigFlags matches a line against
//
//	^;; flags:([^;]*); QUERY: (\d+), ANSWER: (\d+), AUTHORITY: (\d+), ADDITIONAL: (\d+)
func scanDigFlags(line string) (c digCounts, ok bool) {
	rest, ok := strings.CutPrefix(line, ";; flags:")
	if !ok {
		return c, false
	}
	end := strings.IndexByte(rest, ';')
	if end < 0 {
		return c, false
	}
	c.flags, rest = rest[:end], rest[end:]
	for _, f := range []struct {
		label string
		v     *string
	}{
		{"; QUERY: ", &c.query}, {", ANSWER: ", &c.answer},
		{", AUTHORITY: ", &c.authority}, {", ADDITIONAL: ", &c.additional},
	} {
		if rest, ok = strings.CutPrefix(rest, f.label); !ok {
			return c, false
		}
		n := digits(rest)
		if n == 0 {
			return c, false
		}
		*f.v, rest = rest[:n], rest[n:]
	}
	return c, true
}
