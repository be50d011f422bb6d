package diag

import (
	"strconv"
	"strings"
)

// numChars keeps only the characters jc keeps before converting a number:
// digits, '-' and '.'. A string that is all such characters, as nearly
// every field the parsers convert is, is returned as it is, uncopied.
func numChars(s string) string {
	i := 0
	for i < len(s) && isNumChar(s[i]) {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s[:i])
	for ; i < len(s); i++ {
		if isNumChar(s[i]) {
			b = append(b, s[i])
		}
	}
	return string(b)
}

func isNumChar(c byte) bool { return c >= '0' && c <= '9' || c == '-' || c == '.' }

// toInt converts like jc's convert_to_int: non-numeric characters are
// dropped, a float is truncated, and failure gives nil.
func toInt(s string) *int {
	c := numChars(s)
	if c == "" {
		return nil
	}
	if v, err := strconv.Atoi(c); err == nil {
		return &v
	}
	if f, err := strconv.ParseFloat(c, 64); err == nil {
		v := int(f)
		return &v
	}
	return nil
}

// toFloat converts like jc's convert_to_float; failure gives nil.
func toFloat(s string) *float64 {
	c := numChars(s)
	if c == "" {
		return nil
	}
	f, err := strconv.ParseFloat(c, 64)
	if err != nil {
		return nil
	}
	return &f
}

func strp(s string) *string { return &s }

// strOrNil returns nil for the empty string.
func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// splitLines splits text into lines without their end-of-line characters,
// like Python's str.splitlines for the \n, \r\n and \r cases.
func splitLines(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	lines := strings.Split(text, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	return lines
}

// spaced maps each character of chars in s to a space, as jc does before
// splitting.
func spaced(s, chars string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(chars, r) {
			return ' '
		}
		return r
	}, s)
}
