package diag

import (
	"context"
	"errors"
	"os/exec"
	"testing"
)

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

// TestRunRaw checks that Raw returns the output without parsing it: the
// prefix runs sh, which prints text no ping parser accepts.
func TestRunRaw(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
	req := Request{Tool: "ping", Destination: "192.0.2.1"}
	opts := RunOptions{Prefix: []string{"sh", "-c", "echo not ping output"}}
	if _, err := Run(context.Background(), req, opts); !errors.As(err, new(*ParseError)) {
		t.Fatalf("parsed run: err %v, want a *ParseError", err)
	}
	opts.Raw = true
	res, err := Run(context.Background(), req, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != "not ping output\n" || res.Parsed != nil || res.ExitCode != 0 {
		t.Fatalf("raw run: %+v", res)
	}
}

// TestLimitedBuffer checks that the buffer keeps the first Max bytes,
// notes an overflow, and never refuses a write.
func TestLimitedBuffer(t *testing.T) {
	tests := []struct {
		name   string
		max    int
		writes []string
		want   string
		over   bool
	}{
		{"fits", 8, []string{"abc", "def"}, "abcdef", false},
		{"exactly full", 6, []string{"abc", "def"}, "abcdef", false},
		{"split write", 4, []string{"abc", "def"}, "abcd", true},
		{"full before", 3, []string{"abc", "def", "g"}, "abc", true},
		{"no room", 0, []string{"x"}, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := LimitedBuffer{Max: tc.max}
			for _, w := range tc.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v; want %d, nil", w, n, err, len(w))
				}
			}
			if b.String() != tc.want || b.Over != tc.over {
				t.Fatalf("kept %q, Over %v; want %q, %v", b.String(), b.Over, tc.want, tc.over)
			}
		})
	}
}
