package clipipe

import (
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		in, cmd string
		kind    Kind
		pattern string
		wantErr string
	}{
		{in: "display version", cmd: "display version"},
		{in: "display current-configuration | include snmp", cmd: "display current-configuration", kind: Include, pattern: "snmp"},
		{in: "show run | i ^interface", cmd: "show run", kind: Include, pattern: "^interface"},
		{in: "show run | ex description", cmd: "show run", kind: Exclude, pattern: "description"},
		{in: "show run |begin router bgp", cmd: "show run", kind: Begin, pattern: "router bgp"},
		{in: "show run | count", wantErr: "unsupported output filter"},
		{in: "show run | include", wantErr: "needs a regular expression"},
		{in: "show run | include (", wantErr: "bad regular expression"},
		{in: "show run | include " + strings.Repeat("a", MaxPattern+1), wantErr: "at most 512"},
	}
	for _, tt := range tests {
		cmd, f, err := Split(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Split(%.40q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Split(%q): %v", tt.in, err)
		}
		if cmd != tt.cmd {
			t.Errorf("Split(%q) command = %q, want %q", tt.in, cmd, tt.cmd)
		}
		if tt.kind == "" {
			if f != nil {
				t.Errorf("Split(%q) filter = %v, want none", tt.in, f)
			}
			continue
		}
		if f == nil || f.Kind != tt.kind || f.Pattern.String() != tt.pattern {
			t.Errorf("Split(%q) filter = %v, want %s %s", tt.in, f, tt.kind, tt.pattern)
		}
	}
}

func TestApply(t *testing.T) {
	out := "interface A\n description up\ninterface B\n shutdown\n"
	tests := []struct {
		filter, want string
	}{
		{"x | include ^interface", "interface A\ninterface B\n"},
		{"x | exclude ^interface", " description up\n shutdown\n"},
		{"x | begin B", "interface B\n shutdown\n"},
		{"x | include nothing-matches", ""},
	}
	for _, tt := range tests {
		_, f, err := Split(tt.filter)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Apply(out); got != tt.want {
			t.Errorf("%s: Apply = %q, want %q", tt.filter, got, tt.want)
		}
	}
	var none *Filter
	if got := none.Apply(out); got != out {
		t.Errorf("nil filter changed the output: %q", got)
	}
}
