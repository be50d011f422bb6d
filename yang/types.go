package yang

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/netmcp/netmcp/internal/lazyre"
)

// baseKind is a YANG built-in type family.
type baseKind int

const (
	baseString baseKind = iota
	baseBool
	baseEmpty
	baseInt
	baseUint
	baseEnum
	baseIdentity
	baseUnion
)

// leafType is the type of a leaf or leaf-list.
type leafType struct {
	base     baseKind
	name     string // YANG type name for messages: uint16, inet:ipv4-address, ...
	bits     int    // integer size
	lo, hi   int64  // signed range
	ulo, uhi uint64 // unsigned range
	minLen   int
	maxLen   int            // 0 = no limit
	pattern  *lazyre.Regexp // compiled on first use: the model's types cost nothing at start-up
	enums    []string
	idents   []string // module:name of the allowed identities
	union    []*leafType
}

func intType(bits int) *leafType {
	return &leafType{base: baseInt, name: fmt.Sprintf("int%d", bits), bits: bits,
		lo: -1 << (bits - 1), hi: 1<<(bits-1) - 1}
}

func uintType(bits int) *leafType {
	hi := uint64(math.MaxUint64)
	if bits < 64 {
		hi = 1<<bits - 1
	}
	return &leafType{base: baseUint, name: fmt.Sprintf("uint%d", bits), bits: bits, uhi: hi}
}

// Built-in and common derived types.
var (
	tString  = &leafType{base: baseString, name: "string"}
	tBool    = &leafType{base: baseBool, name: "boolean"}
	tEmpty   = &leafType{base: baseEmpty, name: "empty"}
	tUint8   = uintType(8)
	tUint16  = uintType(16)
	tUint32  = uintType(32)
	tUint64  = uintType(64)
	tInt32   = intType(32)
	tIPv4    = patternType("inet:ipv4-address", `(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}`)
	tIPv6    = patternType("inet:ipv6-address", `[0-9a-fA-F:]*:[0-9a-fA-F:.]*`)
	tIPv4Pfx = patternType("inet:ipv4-prefix", `(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}/(3[0-2]|[12]?[0-9])`)
	tIPv6Pfx = patternType("inet:ipv6-prefix", `[0-9a-fA-F:]*:[0-9a-fA-F:.]*/(12[0-8]|1[01][0-9]|[1-9]?[0-9])`)
	tIPAddr  = union("inet:ip-address", tIPv4, tIPv6)
	tIPPfx   = union("inet:ip-prefix", tIPv4Pfx, tIPv6Pfx)
)

// rangeType returns t restricted to lo..hi.
func rangeType(t *leafType, lo, hi int64) *leafType {
	c := *t
	if c.base == baseUint {
		c.ulo, c.uhi = uint64(lo), uint64(hi)
	} else {
		c.lo, c.hi = lo, hi
	}
	return &c
}

// stringType returns a string restricted in length (max 0 = unlimited).
func stringType(name string, min, max int) *leafType {
	return &leafType{base: baseString, name: name, minLen: min, maxLen: max}
}

// patternType returns a string type whose values must match the whole pattern.
func patternType(name, pattern string) *leafType {
	return &leafType{base: baseString, name: name, pattern: lazyre.New(`^(?:` + pattern + `)$`)}
}

func enum(name string, values ...string) *leafType {
	return &leafType{base: baseEnum, name: name, enums: values}
}

// identity returns an identityref type accepting the given module:name
// identities, written qualified or (leniently) bare.
func identity(name string, idents ...string) *leafType {
	return &leafType{base: baseIdentity, name: name, idents: idents}
}

func union(name string, members ...*leafType) *leafType {
	return &leafType{base: baseUnion, name: name, union: members}
}

// isJSONNumber reports whether RFC 7951 encodes the type as a JSON number.
func (t *leafType) isJSONNumber() bool {
	return (t.base == baseInt || t.base == baseUint) && t.bits <= 32
}

// valueError is a rejected value: the rule it broke. below or above is set
// for range violations so the caller can word platform limits.
type valueError struct {
	msg   string
	below bool // range violation below the minimum
	above bool // range violation above the maximum
}

func (e *valueError) Error() string { return e.msg }

func rangeErr(v any, below bool, lo, hi string, t *leafType) *valueError {
	return &valueError{msg: fmt.Sprintf("value %s is out of range %s..%s of type %s", jsonText(v), lo, hi, t.name),
		below: below, above: !below}
}

// check returns nil if v is a valid JSON value of type t.
func (t *leafType) check(v any) *valueError {
	switch t.base {
	case baseString:
		s, ok := v.(string)
		if !ok {
			return &valueError{msg: fmt.Sprintf("value %s is a %s, want a string (%s)", jsonText(v), jsonKind(v), t.name)}
		}
		n := utf8.RuneCountInString(s)
		if n < t.minLen || (t.maxLen > 0 && n > t.maxLen) {
			return &valueError{msg: fmt.Sprintf("value %q has length %d, outside %d..%s of type %s", s, n, t.minLen, maxText(t.maxLen), t.name)}
		}
		if t.pattern != nil && !t.pattern.Re().MatchString(s) {
			return &valueError{msg: fmt.Sprintf("value %q does not match the pattern of type %s", s, t.name)}
		}
	case baseBool:
		if _, ok := v.(bool); !ok {
			return &valueError{msg: fmt.Sprintf("value %s is a %s, want a boolean", jsonText(v), jsonKind(v))}
		}
	case baseEmpty:
		if l, ok := v.([]any); !ok || len(l) != 1 || l[0] != nil {
			return &valueError{msg: fmt.Sprintf("value %s is not [null] (type empty)", jsonText(v))}
		}
	case baseInt, baseUint:
		return t.checkInt(v)
	case baseEnum:
		s, ok := v.(string)
		if !ok {
			return &valueError{msg: fmt.Sprintf("value %s is a %s, want a string (enumeration %s)", jsonText(v), jsonKind(v), t.name)}
		}
		for _, e := range t.enums {
			if s == e {
				return nil
			}
		}
		return &valueError{msg: fmt.Sprintf("value %q is not one of the enumeration %s: %s", s, t.name, strings.Join(t.enums, ", "))}
	case baseIdentity:
		s, ok := v.(string)
		if !ok {
			return &valueError{msg: fmt.Sprintf("value %s is a %s, want an identity (%s)", jsonText(v), jsonKind(v), t.name)}
		}
		for _, id := range t.idents {
			if s == id || s == id[strings.IndexByte(id, ':')+1:] {
				return nil
			}
		}
		return &valueError{msg: fmt.Sprintf("value %q is not an identity of %s: %s", s, t.name, strings.Join(t.idents, ", "))}
	case baseUnion:
		var first *valueError
		for _, m := range t.union {
			err := m.check(v)
			if err == nil {
				return nil
			}
			if first == nil {
				first = err
			}
		}
		return &valueError{msg: fmt.Sprintf("value %s matches no member of union %s (%s)", jsonText(v), t.name, first.msg)}
	}
	return nil
}

func maxText(n int) string {
	if n == 0 {
		return "max"
	}
	return strconv.Itoa(n)
}

// checkInt checks an integer: a JSON number (integral float64) for up to
// 32 bits, a string (or, leniently, an integral number) for 64 bits.
func (t *leafType) checkInt(v any) *valueError {
	var text string
	switch x := v.(type) {
	case float64:
		if x != math.Trunc(x) || math.IsInf(x, 0) {
			return &valueError{msg: fmt.Sprintf("value %s is not an integer (type %s)", jsonText(v), t.name)}
		}
		text = strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		if t.bits <= 32 {
			return &valueError{msg: fmt.Sprintf("value %q is a string, want a JSON number (type %s, RFC 7951 6.1)", x, t.name)}
		}
		text = x
	default:
		return &valueError{msg: fmt.Sprintf("value %s is a %s, want an integer (type %s)", jsonText(v), jsonKind(v), t.name)}
	}
	if t.base == baseUint {
		if strings.HasPrefix(text, "-") {
			return rangeErr(v, true, strconv.FormatUint(t.ulo, 10), strconv.FormatUint(t.uhi, 10), t)
		}
		u, err := strconv.ParseUint(text, 10, 64)
		if err != nil && !isRangeErr(err) {
			return &valueError{msg: fmt.Sprintf("value %q is not an integer (type %s)", text, t.name)}
		}
		if err != nil || u > t.uhi {
			return rangeErr(v, false, strconv.FormatUint(t.ulo, 10), strconv.FormatUint(t.uhi, 10), t)
		}
		if u < t.ulo {
			return rangeErr(v, true, strconv.FormatUint(t.ulo, 10), strconv.FormatUint(t.uhi, 10), t)
		}
		return nil
	}
	i, err := strconv.ParseInt(text, 10, 64)
	if err != nil && !isRangeErr(err) {
		return &valueError{msg: fmt.Sprintf("value %q is not an integer (type %s)", text, t.name)}
	}
	if err != nil || i < t.lo || i > t.hi {
		return rangeErr(v, strings.HasPrefix(text, "-") && (err != nil || i < t.lo),
			strconv.FormatInt(t.lo, 10), strconv.FormatInt(t.hi, 10), t)
	}
	return nil
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}
