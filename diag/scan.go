package diag

// The character classes of RE2 that the hand scanners (the *_scan*.go
// files) read, and the runs of them, shared by all of them.

// isSpaceRE reports whether c is in RE2's \s class: [\t\n\f\r ].
func isSpaceRE(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// spaces returns the length of the run of \s bytes at the start of s.
func spaces(s string) int {
	n := 0
	for n < len(s) && isSpaceRE(s[n]) {
		n++
	}
	return n
}

// nonSpaces returns the length of the run of \S at the start of s. \S is
// every rune but [\t\n\f\r ] (invalid UTF-8 included), so counting bytes
// that are not those five ASCII bytes counts whole runes.
func nonSpaces(s string) int {
	n := 0
	for n < len(s) && !isSpaceRE(s[n]) {
		n++
	}
	return n
}

// addrChars returns the length of the run of [^()\s] at the start of s:
// what the expressions allowed between the parentheses of an address.
func addrChars(s string) int {
	n := 0
	for n < len(s) && s[n] != '(' && s[n] != ')' && !isSpaceRE(s[n]) {
		n++
	}
	return n
}

// digits returns the length of the run of ASCII digits (\d) at the start
// of s.
func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// isHex reports whether c is in [0-9a-fA-F].
func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// scanDecimal reads \d+(?:\.\d+)? at the start of s, taking the longest
// such prefix; n is 0 when s does not start with a digit.
func scanDecimal(s string) (v string, n int) {
	n = digits(s)
	if n == 0 {
		return "", 0
	}
	if n < len(s) && s[n] == '.' {
		if f := digits(s[n+1:]); f > 0 {
			n += 1 + f
		}
	}
	return s[:n], n
}
