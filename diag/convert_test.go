package diag

import "testing"

// TestNumChars checks both paths of numChars: a clean field comes back
// as it is, and any other keeps only digits, '-' and '.', in order.
func TestNumChars(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"64", "64"},
		{"-0.061", "-0.061"},
		{"+1", "1"},
		{"1001ms", "1001"},
		{"time=0.5 ms", "0.5"},
		{"a1b2.c3", "12.3"},
		{"ms", ""},
	}
	for _, tc := range tests {
		if got := numChars(tc.in); got != tc.want {
			t.Errorf("numChars(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := testing.AllocsPerRun(10, func() { numChars("0.061") }); got != 0 {
		t.Errorf("numChars of a clean field allocated %v times, want 0", got)
	}
}
