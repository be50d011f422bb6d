package sim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/diag"
)

// TestDiagnose checks each tool's text, exit code and streaming.
func TestDiagnose(t *testing.T) {
	lab, _ := newTestLab(t)
	r1 := mustDevice(t, lab, "r1")
	tests := []struct {
		req  diag.Request
		code int
		want []string
	}{
		{diag.Request{Tool: "ping", Destination: "10.3.0.10", Count: 3}, 0,
			[]string{"PING 10.3.0.10 (10.3.0.10) 56(84) bytes of data.", "icmp_seq=3", "3 packets transmitted, 3 received, 0% packet loss"}},
		{diag.Request{Tool: "ping", Destination: "r3.lab.example", Count: 1}, 0, []string{"PING 10.255.0.3"}},
		{diag.Request{Tool: "ping", Destination: "10.0.0.5", VRF: "mgmt", Source: "192.168.1.1", Count: 2}, 0, []string{"from 192.168.1.1"}},
		{diag.Request{Tool: "ping", Destination: "10.0.0.5", Count: 2}, 2, []string{"unreachable"}},
		{diag.Request{Tool: "ping", Destination: "nosuchhost", Count: 1}, 2, []string{"Name or service not known"}},
		// Not a lab device's name: resolved by h3's DNS service (a CNAME to h3).
		{diag.Request{Tool: "ping", Destination: "www.lab.example", Count: 1}, 0, []string{"PING 10.3.0.10"}},
		{diag.Request{Tool: "traceroute", Destination: "10.3.0.10"}, 0,
			[]string{"traceroute to 10.3.0.10 (10.3.0.10), 30 hops max", " 1  10.0.12.2 (10.0.12.2)", " 3  10.3.0.10 (10.3.0.10)"}},
		{diag.Request{Tool: "tracepath", Destination: "10.3.0.10"}, 0, []string{"pmtu 1500", "reached"}},
		{diag.Request{Tool: "dig", Destination: "r3.lab.example"}, 0,
			[]string{"status: NOERROR", "r3.lab.example.\t\t300\tIN\tA\t10.255.0.3", ";; SERVER: 10.3.0.10#53(10.3.0.10)"}},
		{diag.Request{Tool: "dig", Destination: "h3.lab.example", QueryType: "AAAA", Server: "10.3.0.10"}, 0,
			[]string{"@10.3.0.10", "IN\tAAAA\t2001:db8:3::10"}},
		// The zone has no AAAA for r2: an empty authoritative answer.
		{diag.Request{Tool: "dig", Destination: "r2.lab.example", QueryType: "AAAA"}, 0,
			[]string{"status: NOERROR", "ANSWER: 0, AUTHORITY: 1", "AUTHORITY SECTION"}},
		{diag.Request{Tool: "dig", Destination: "nope.lab.example"}, 0, []string{"status: NXDOMAIN", "AUTHORITY SECTION"}},
		{diag.Request{Tool: "dig", Destination: "example.com"}, 0, []string{"status: REFUSED", "flags: qr rd;"}},
		// 172.16.0.0/12 is a discard route on r1: the query is dropped.
		{diag.Request{Tool: "dig", Destination: "r1.lab.example", Server: "172.16.0.53"}, 9,
			[]string{";; connection timed out; no servers could be reached"}},
		// No route to 192.0.2.53: the query is never sent.
		{diag.Request{Tool: "dig", Destination: "r1.lab.example", Server: "192.0.2.53"}, 9,
			[]string{";; UDP setup with 192.0.2.53#53(192.0.2.53) for r1.lab.example failed: network unreachable.", ";; no servers could be reached"}},
		// r2 runs no DNS service: port unreachable.
		{diag.Request{Tool: "dig", Destination: "r1.lab.example", Server: "10.255.0.2"}, 9,
			[]string{";; communications error to 10.255.0.2#53: connection refused", ";; no servers could be reached"}},
	}
	for _, tc := range tests {
		t.Run(tc.req.Tool+" "+tc.req.Destination, func(t *testing.T) {
			tc.req.IntervalMs = 1
			var lines []string
			r, err := r1.Diagnose(context.Background(), tc.req, func(l string) { lines = append(lines, l) })
			if err != nil {
				t.Fatal(err)
			}
			if r.ExitCode != tc.code {
				t.Errorf("exit %d, want %d:\n%s", r.ExitCode, tc.code, r.Output)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.Output, w) {
					t.Errorf("output lacks %q:\n%s", w, r.Output)
				}
			}
			if strings.Join(lines, "\n")+"\n" != r.Output {
				t.Errorf("streamed lines differ from the output")
			}
		})
	}
}

// TestDiagnosePacingAndCancel checks that lines are paced and that a
// cancelled run stops at once.
func TestDiagnosePacingAndCancel(t *testing.T) {
	lab, err := NewLab(DefaultTopology(), LabOptions{Seed: 7, Realtime: true})
	if err != nil {
		t.Fatal(err)
	}
	defer lab.Close()
	r1 := mustDevice(t, lab, "r1")
	start := time.Now()
	_, err = r1.Diagnose(context.Background(), diag.Request{Tool: "ping", Destination: "10.255.0.2", Count: 4, IntervalMs: 30}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 90*time.Millisecond {
		t.Errorf("4 pings at 30 ms took %v: not paced", el)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var n int
	start = time.Now()
	r, err := r1.Diagnose(ctx, diag.Request{Tool: "ping", Destination: "10.255.0.2", Count: 100, IntervalMs: 20}, func(string) {
		if n++; n == 3 {
			cancel()
		}
	})
	if err == nil || time.Since(start) > time.Second {
		t.Errorf("cancelled run: err %v after %v", err, time.Since(start))
	}
	if strings.Count(r.Output, "icmp_seq=") != 2 {
		t.Errorf("partial output:\n%s", r.Output)
	}
}

// TestDiagnoseSimulatedTime checks that outside a realtime lab a ping
// answers at once, whatever its interval, with the modelled RTTs.
func TestDiagnoseSimulatedTime(t *testing.T) {
	lab, _ := newTestLab(t)
	r1 := mustDevice(t, lab, "r1")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := r1.Diagnose(ctx, diag.Request{Tool: "ping", Destination: "10.255.0.2", Count: 5, IntervalMs: 3600000}, nil)
	if err != nil || r.ExitCode != 0 {
		t.Fatalf("%v\n%s", err, r.Output)
	}
	if strings.Count(r.Output, "time=") != 5 || !strings.Contains(r.Output, "5 packets transmitted, 5 received") {
		t.Errorf("output:\n%s", r.Output)
	}
}

// TestDiagnoseIgnoresWallClockDeadline: outside a realtime lab the answer is
// computed in simulated time, so a deadline that passed on a busy machine
// does not turn it into a timeout; a cancellation still stops the run.
func TestDiagnoseIgnoresWallClockDeadline(t *testing.T) {
	lab, _ := newTestLab(t)
	r1 := mustDevice(t, lab, "r1")
	req := diag.Request{Tool: "ping", Destination: "10.255.0.2", Count: 3, IntervalMs: 200}

	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	r, err := r1.Diagnose(expired, req, nil)
	if err != nil || !strings.Contains(r.Output, "3 packets transmitted, 3 received") {
		t.Fatalf("past deadline: err %v\n%s", err, r.Output)
	}

	cancelled, cancelNow := context.WithCancel(context.Background())
	cancelNow()
	if r, err := r1.Diagnose(cancelled, req, nil); err == nil {
		t.Fatalf("cancelled run answered:\n%s", r.Output)
	}
}
