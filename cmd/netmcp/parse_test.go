package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runRoot runs a fresh root command with args and stdin, returning what it
// wrote to stdout and stderr.
func runRoot(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	root := newRootCmd(args)
	root.SetIn(strings.NewReader(stdin))
	root.SetOut(&out)
	root.SetErr(&out)
	err := root.Execute()
	return out.String(), err
}

func TestParseCommand(t *testing.T) {
	ping := "PING 192.0.2.1 (192.0.2.1) 56(84) bytes of data.\n" +
		"64 bytes from 192.0.2.1: icmp_seq=1 ttl=64 time=0.050 ms\n\n" +
		"--- 192.0.2.1 ping statistics ---\n" +
		"1 packets transmitted, 1 received, 0% packet loss, time 0ms\n" +
		"rtt min/avg/max/mdev = 0.050/0.050/0.050/0.000 ms\n"
	file := filepath.Join(t.TempDir(), "ping.txt")
	if err := os.WriteFile(file, []byte(ping), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		stdin    string
		args     []string
		wantCode int // 0 = success
		lines    int // output lines on success
	}{
		{"stdin", ping, []string{"parse", "ping"}, 0, 1},
		{"file pretty", "", []string{"parse", "ping", file, "--pretty"}, 0, 0},
		{"garbage", "not ping output\n", []string{"parse", "ping"}, 1, 0},
		{"unknown tool", ping, []string{"parse", "nmap"}, 1, 0},
		{"missing file", "", []string{"parse", "ping", filepath.Join(t.TempDir(), "nope")}, 2, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runRoot(t, tc.stdin, tc.args...)
			if tc.wantCode != 0 {
				var ee *exitError
				if !errors.As(err, &ee) || ee.code != tc.wantCode {
					t.Fatalf("want exit %d, got err %v", tc.wantCode, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var v map[string]any
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatalf("bad JSON %q: %v", out, err)
			}
			if v["destination_ip"] != "192.0.2.1" || v["packets_received"] != 1.0 {
				t.Errorf("unexpected result %v", v)
			}
			if tc.lines == 1 && strings.Count(out, "\n") != 1 {
				t.Errorf("want one line, got %q", out)
			}
			if tc.lines == 0 && strings.Count(out, "\n") < 5 {
				t.Errorf("want indented JSON, got %q", out)
			}
		})
	}
}
