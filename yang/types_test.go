package yang

import (
	"strings"
	"testing"
)

func TestLeafTypeCheck(t *testing.T) {
	tests := []struct {
		typ  *leafType
		val  any
		want string // "" = valid; else substring of the error
	}{
		{tUint64, "18446744073709551615", ""},
		{tUint64, 12.0, ""},
		{tUint64, "18446744073709551616", "out of range"},
		{tUint64, "-1", "out of range"},
		{tUint64, "x1", "not an integer"},
		{intType(64), "-9223372036854775808", ""},
		{intType(64), "-9223372036854775809", "out of range"},
		{intType(8), -129.0, "out of range -128..127"},
		{intType(8), 127.0, ""},
		{tInt32, "5", "want a JSON number"},
		{tUint8, true, "want an integer"},
		{tEmpty, []any{nil}, ""},
		{tEmpty, true, "not [null]"},
		{tIPv6, "2001:db8::1", ""},
		{tIPv6, "10.0.0.1", "does not match"},
		{tIPv4Pfx, "10.0.0.0/33", "does not match"},
		{tIPPfx, "::/0", ""},
		{tIfType, "softwareLoopback", ""},
		{tIfType, 1.0, "want an identity"},
		{tString, 5.0, "want a string"},
	}
	for _, tt := range tests {
		err := tt.typ.check(tt.val)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s.check(%v) = %v", tt.typ.name, tt.val, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.msg, tt.want)):
			t.Errorf("%s.check(%v) = %v, want %q", tt.typ.name, tt.val, err, tt.want)
		}
	}
}
