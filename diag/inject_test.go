package diag

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateRefusesAttacks checks that every injection attempt is refused
// with ErrInvalidRequest before anything runs.
func TestValidateRefusesAttacks(t *testing.T) {
	attacks := []string{
		"", "example.com; rm -rf /", "a|b", "$(id)", "`id`", "a b", "-oProxyCommand=x",
		"--", "-c", "exam\x00ple.com", "example.com\nid", "example.com\r", "ex&ample.com",
		"еxample.com", // Cyrillic 'е'
		"example.com\u200b", "exa>mple", "a/b", "a\\b", "*.example.com", "example..com",
		"-example.com", "example-.com", strings.Repeat("a", 254), strings.Repeat("a", 64) + ".com",
		"fe80::1%eth0;id", "1.2.3.4 5.6.7.8", "'x'", "\"x\"", "{a,b}", "~root", "a=b",
	}
	for _, a := range attacks {
		for _, tool := range RunTools {
			r := Request{Tool: tool, Destination: a}
			err := r.Validate()
			if err == nil || !errors.Is(err, ErrInvalidRequest) {
				t.Errorf("%s %q: want ErrInvalidRequest, got %v", tool, a, err)
			}
		}
	}
	// Other fields are bounded too.
	bad := []Request{
		{Tool: "sh", Destination: "example.com"},
		{Tool: "ping", Destination: "example.com", Count: 101},
		{Tool: "ping", Destination: "example.com", Count: -1},
		{Tool: "ping", Destination: "example.com", IntervalMs: 10},
		{Tool: "ping", Destination: "example.com", Timeout: 31},
		{Tool: "ping", Destination: "example.com", PacketSize: 65000},
		{Tool: "ping", Destination: "example.com", Source: "eth0; id"},
		{Tool: "traceroute", Destination: "example.com", MaxHops: 65},
		{Tool: "dig", Destination: "example.com", Server: "-x"},
		{Tool: "dig", Destination: "example.com", QueryType: "AXFR"},
		{Tool: "ping", Destination: "example.com", QueryType: "A"},
		{Tool: "ping", Destination: "192.0.2.1", IPv6: true},
		{Tool: "ping", Destination: "example.com", VRF: "a b"},
		{Tool: "ping", Destination: "example.com", TTL: 256},
		{Tool: "ping", Destination: "example.com", TTL: -1},
		{Tool: "traceroute", Destination: "example.com", TTL: 5},
	}
	for _, r := range bad {
		if err := r.Validate(); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%+v: want ErrInvalidRequest, got %v", r, err)
		}
	}
}

// TestRunRefusesBeforeExecuting proves nothing runs for a refused request:
// the prefix would create a marker file if anything were executed.
func TestRunRefusesBeforeExecuting(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	marker := filepath.Join(dir, "executed")
	for _, a := range []string{"$(touch x)", "a;b", "-oProxyCommand=id", "x\ny"} {
		_, err := Run(context.Background(), Request{Tool: "ping", Destination: a}, RunOptions{Prefix: []string{"touch", marker}})
		if !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%q: want ErrInvalidRequest, got %v", a, err)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a refused request executed a process")
	}
}

// TestValidAndArgv checks accepted requests and the argument vectors.
func TestValidAndArgv(t *testing.T) {
	tests := []struct {
		req  Request
		want string
	}{
		{Request{Tool: "ping", Destination: "192.0.2.1"}, "ping -n -c 4 -i 1 -W 2 -- 192.0.2.1"},
		{Request{Tool: "ping", Destination: "host-1.example.", Count: 2, IntervalMs: 200, PacketSize: 1472, DontFragment: true, IPv4: true},
			"ping -n -4 -c 2 -i 0.2 -W 2 -s 1472 -M do -- host-1.example."},
		{Request{Tool: "ping", Destination: "192.0.2.1", Count: 1, TTL: 3}, "ping -n -c 1 -i 1 -W 2 -t 3 -- 192.0.2.1"},
		{Request{Tool: "traceroute", Destination: "2001:db8::1", MaxHops: 5, IPv6: true}, "traceroute -6 -n -m 5 -w 2 -q 3 -- 2001:db8::1"},
		{Request{Tool: "tracepath", Destination: "example.com"}, "tracepath -n -m 30 -- example.com"},
		{Request{Tool: "dig", Destination: "example.com", Server: "192.0.2.3", QueryType: "mx"}, "dig @192.0.2.3 +time=2 +tries=1 -t MX -q example.com"},
		{Request{Tool: "dig", Destination: "192.0.2.80"}, "dig +time=2 +tries=1 -x 192.0.2.80"},
		{Request{Tool: "mtr", Destination: "192.0.2.1", Count: 1}, "mtr --json -c 1 -m 30 -Z 2 -n -- 192.0.2.1"},
	}
	for _, tc := range tests {
		r := tc.req
		if err := r.Validate(); err != nil {
			t.Fatalf("%+v: %v", tc.req, err)
		}
		if got := strings.Join(r.Argv(), " "); got != tc.want {
			t.Errorf("argv = %q, want %q", got, tc.want)
		}
		if InputSchema(r.Tool) == nil || OutputSchema(r.Tool) == nil {
			t.Errorf("no schema for %s", r.Tool)
		}
	}
}

// TestLimiter checks the overall and per-key limits and release.
func TestLimiter(t *testing.T) {
	l := NewLimiter(2, 1)
	r1, err := l.Acquire("a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Acquire("a"); !errors.Is(err, ErrBusy) {
		t.Fatalf("per-key limit not enforced: %v", err)
	}
	r2, err := l.Acquire("b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Acquire("c"); !errors.Is(err, ErrBusy) {
		t.Fatalf("overall limit not enforced: %v", err)
	}
	r1()
	r1() // idempotent
	if _, err := l.Acquire("c"); err != nil {
		t.Fatalf("after release: %v", err)
	}
	r2()
	_, err = Run(context.Background(), Request{Tool: "ping", Destination: "127.0.0.1"}, RunOptions{Limiter: NewLimiter(0, 0)})
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("Run with a full limiter: %v", err)
	}
}
