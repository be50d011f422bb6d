package dialect

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// ParseAddrMask parses "A M" (dotted mask), "A LEN" or "A/LEN" starting at
// words[i]; it returns the prefix (address kept, not masked) and the
// number of words used.
func ParseAddrMask(words []string, i int) (netip.Prefix, int, error) {
	if i >= len(words) {
		return netip.Prefix{}, 0, fmt.Errorf("missing address")
	}
	if strings.Contains(words[i], "/") {
		p, err := netip.ParsePrefix(words[i])
		return p, 1, err
	}
	a, err := netip.ParseAddr(words[i])
	if err != nil {
		return netip.Prefix{}, 0, fmt.Errorf("bad address %q", words[i])
	}
	if i+1 >= len(words) {
		return netip.Prefix{}, 0, fmt.Errorf("missing mask after %s", words[i])
	}
	bits, err := MaskBits(words[i+1], a.Is4(), false)
	if err != nil {
		return netip.Prefix{}, 0, err
	}
	return netip.PrefixFrom(a, bits), 2, nil
}

// MaskBits reads a prefix length, a dotted mask, or (wildcard) a dotted
// wildcard mask.
func MaskBits(s string, v4, wildcard bool) (int, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if n < 0 || (v4 && n > 32) || n > 128 {
			return 0, fmt.Errorf("bad prefix length %s", s)
		}
		return n, nil
	}
	m, err := netip.ParseAddr(s)
	if err != nil || !m.Is4() {
		return 0, fmt.Errorf("bad mask %q", s)
	}
	b := m.As4()
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	if wildcard {
		v = ^v
	}
	bits := 0
	for v&0x80000000 != 0 {
		bits++
		v <<= 1
	}
	if v != 0 {
		return 0, fmt.Errorf("non-contiguous mask %q", s)
	}
	return bits, nil
}

// DottedMask returns the dotted mask (or wildcard) of an IPv4 prefix length.
func DottedMask(bits int, wildcard bool) string {
	v := uint32(0)
	if bits > 0 {
		v = ^uint32(0) << (32 - bits)
	}
	if wildcard {
		v = ^v
	}
	return fmt.Sprintf("%d.%d.%d.%d", v>>24, v>>16&0xff, v>>8&0xff, v&0xff)
}

// IsNull tells whether an interface name is the discard interface.
func IsNull(s string) bool { return strings.EqualFold(s, "null0") }

// ParseVLANList reads "10 20 30 to 40" (VRP) or "10,20,30-40" (IOS).
func ParseVLANList(words []string) ([]int, error) {
	var out []int
	toks := strings.FieldsFunc(strings.Join(words, " "), func(r rune) bool { return r == ',' || r == ' ' })
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		lo, hi := t, t
		if a, b, ok := strings.Cut(t, "-"); ok {
			lo, hi = a, b
		} else if i+2 < len(toks) && toks[i+1] == "to" {
			hi = toks[i+2]
			i += 2
		}
		l, err1 := strconv.Atoi(lo)
		h, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || h < l || h-l > 4094 {
			return nil, fmt.Errorf("bad VLAN list %q", strings.Join(words, " "))
		}
		for v := l; v <= h; v++ {
			out = append(out, v)
		}
	}
	return out, nil
}

// ParseWildcard reads "A W" (wildcard mask), "A LEN", "A/LEN", "A 0" or
// "host A" at words[i]; it returns the prefix in CIDR form and the words used.
func ParseWildcard(words []string, i int) (string, int, error) {
	if i < len(words) && words[i] == "host" {
		if i+1 >= len(words) {
			return "", 0, fmt.Errorf("missing address after host")
		}
		a, err := netip.ParseAddr(words[i+1])
		if err != nil {
			return "", 0, fmt.Errorf("bad address %q", words[i+1])
		}
		return netip.PrefixFrom(a, a.BitLen()).String(), 2, nil
	}
	if i < len(words) && strings.Contains(words[i], "/") {
		p, err := netip.ParsePrefix(words[i])
		if err != nil {
			return "", 0, fmt.Errorf("bad prefix %q", words[i])
		}
		return p.Masked().String(), 1, nil
	}
	if i+1 >= len(words) {
		return "", 0, fmt.Errorf("missing address and wildcard")
	}
	a, err := netip.ParseAddr(words[i])
	if err != nil {
		return "", 0, fmt.Errorf("bad address %q", words[i])
	}
	bits := a.BitLen()
	if words[i+1] != "0" {
		if bits, err = MaskBits(words[i+1], a.Is4(), true); err != nil {
			return "", 0, err
		}
	}
	return netip.PrefixFrom(a, bits).Masked().String(), 2, nil
}

// AtoiRange parses a number within lo..hi.
func AtoiRange(s string, lo, hi int, what string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%s must be %d..%d, not %q", what, lo, hi, s)
	}
	return n, nil
}

// IsDigits reports whether s is a non-empty run of decimal digits.
func IsDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// JoinInts joins numbers with sep.
func JoinInts(v []int, sep string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, sep)
}

func trailingNumber(s string) int {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	n, _ := strconv.Atoi(s[i:])
	return n
}
