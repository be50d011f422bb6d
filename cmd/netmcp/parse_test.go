package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestParseStream feeds ping output to "netmcp parse ping --stream" one
// line at a time and checks each reply comes out before the next line is
// written, then the summary at the end.
func TestParseStream(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	root := newRootCmd([]string{"parse", "ping", "--stream"})
	root.SetIn(inR)
	root.SetOut(outW)
	done := make(chan error, 1)
	go func() { done <- root.Execute(); outW.Close() }()
	lines := bufio.NewReader(outR)
	readEvent := func() map[string]any {
		t.Helper()
		got := make(chan string, 1)
		go func() { s, _ := lines.ReadString('\n'); got <- s }()
		select {
		case s := <-got:
			var v map[string]any
			if err := json.Unmarshal([]byte(s), &v); err != nil {
				t.Fatalf("bad JSON line %q: %v", s, err)
			}
			return v
		case <-time.After(5 * time.Second):
			t.Fatal("no event within 5 s of its line: not streamed")
			return nil
		}
	}
	io.WriteString(inW, "PING 192.0.2.1 (192.0.2.1) 56(84) bytes of data.\n")
	for seq := 1; seq <= 2; seq++ {
		fmt.Fprintf(inW, "64 bytes from 192.0.2.1: icmp_seq=%d ttl=64 time=0.05 ms\n", seq)
		if ev := readEvent(); ev["type"] != "reply" || ev["icmp_seq"] != float64(seq) {
			t.Fatalf("event %v, want the reply icmp_seq=%d", ev, seq)
		}
	}
	io.WriteString(inW, "\n--- 192.0.2.1 ping statistics ---\n2 packets transmitted, 2 received, 0% packet loss, time 1001ms\n"+
		"rtt min/avg/max/mdev = 0.050/0.050/0.050/0.000 ms\n")
	if ev := readEvent(); ev["type"] != "summary" || ev["packets_received"] != 2.0 {
		t.Fatalf("event %v, want the summary", ev)
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if rest, _ := io.ReadAll(lines); len(rest) != 0 {
		t.Errorf("output after the summary: %q", rest)
	}

	for _, tc := range []struct {
		args  []string
		stdin string
		code  int
	}{
		{[]string{"parse", "ping", "--stream"}, "not ping output\n", 1},
		{[]string{"parse", "dig", "--stream"}, "", 2},
	} {
		var ee *exitError
		if _, err := runRoot(t, tc.stdin, tc.args...); !errors.As(err, &ee) || ee.code != tc.code {
			t.Errorf("%v: err %v, want exit %d", tc.args, err, tc.code)
		}
	}
}
