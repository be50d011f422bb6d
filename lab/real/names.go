//go:build linux

package real

import (
	"fmt"
	"strings"
)

// maxIfName is the longest Linux interface name (IFNAMSIZ - 1).
const maxIfName = 15

// linuxIfName derives a Linux interface name from a topology interface
// name: a name Linux accepts as it is stays; otherwise the first two
// letters of its alphabetic part, lower case, followed by the rest with
// '/', ':' and '.' turned into '-' ("GigabitEthernet0/0/0/1" ->
// "gi0-0-0-1"), cut to 15 characters. used holds the names already taken
// in the namespace; a clash gets a numeric suffix.
func linuxIfName(name string, used map[string]bool) string {
	n := name
	if !validIfName(n) {
		i := 0
		for i < len(name) && isLetter(name[i]) {
			i++
		}
		head := strings.ToLower(name[:min(i, 2)])
		var b strings.Builder
		b.WriteString(head)
		for _, c := range []byte(name[i:]) {
			switch {
			case isLetter(c) || c >= '0' && c <= '9' || c == '_':
				b.WriteByte(c)
			case c == '/' || c == ':' || c == '.' || c == '-':
				b.WriteByte('-')
			}
		}
		n = strings.Trim(b.String(), "-")
		if n == "" {
			n = "if"
		}
		if len(n) > maxIfName {
			n = n[:maxIfName]
		}
	}
	base := n
	for k := 1; used[n] || n == "lo"; k++ {
		suffix := fmt.Sprintf("_%d", k)
		n = base[:min(len(base), maxIfName-len(suffix))] + suffix
	}
	used[n] = true
	return n
}

// validIfName tells whether Linux accepts s as an interface name as it is,
// keeping to letters, digits, '_', '-' and '.'.
func validIfName(s string) bool {
	if s == "" || len(s) > maxIfName || s == "." || s == ".." || s == "lo" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isLetter(c) || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
