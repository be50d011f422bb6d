package diag

import "testing"

// TestResultExit pins the non-zero exit codes that still carry a result.
func TestResultExit(t *testing.T) {
	tests := []struct {
		tool string
		code int
		want bool
	}{
		{"ping", 1, true}, {"ping", 2, false},
		{"dig", 9, true}, {"dig", 1, false},
		{"tracepath", 1, true}, {"tracepath", 2, false},
		{"traceroute", 1, false}, {"mtr", 1, false},
	}
	for _, tc := range tests {
		if got := ResultExit(tc.tool, tc.code); got != tc.want {
			t.Errorf("ResultExit(%q, %d) = %v, want %v", tc.tool, tc.code, got, tc.want)
		}
	}
}
