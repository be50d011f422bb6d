// Package jsonstr writes JSON strings as encoding/json writes them with
// HTML escaping off, for the hand-written encoders on hot paths (the audit
// log's canonical records, the ping results) that must produce the same
// bytes as the standard encoder without its reflection.
package jsonstr

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// Invalid UTF-8 handling of Append.
const (
	// EscapeInvalid writes each invalid byte as the escape \ufffd, as
	// json.Marshal does.
	EscapeInvalid = false
	// RuneInvalid writes each invalid byte as the rune U+FFFD itself: what
	// a JSON document written by json.Marshal becomes once decoded and
	// encoded again (canonical forms).
	RuneInvalid = true
)

// Append appends s quoted: \" \\ \b \f \n \r \t, other control bytes as
// \u00XX, U+2028 and U+2029 escaped, invalid UTF-8 per invalidAsRune
// (EscapeInvalid or RuneInvalid), everything else as is.
func Append(b []byte, s string, invalidAsRune bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			if invalidAsRune {
				b = append(b, "\ufffd"...)
			} else {
				b = append(b, `\ufffd`...)
			}
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
