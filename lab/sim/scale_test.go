package sim

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
)

// newGeneratedLab starts a lab of a generated topology, closed with the test.
func newGeneratedLab(t testing.TB, topo topology.Topology, err error) *Lab {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	lab, err := NewLab(topo, LabOptions{Seed: 1})
	if err != nil {
		t.Fatalf("NewLab(%s): %v", topo.Name, err)
	}
	t.Cleanup(func() { lab.Close() })
	return lab
}

// diagnose runs a diagnostic on a device with a short pace.
func diagnose(t *testing.T, d *Driver, req diag.Request) device.DiagResult {
	t.Helper()
	if req.IntervalMs == 0 {
		req.IntervalMs = 1
	}
	r, err := d.Diagnose(context.Background(), req, nil)
	if err != nil {
		t.Fatalf("%s %s from %s: %v", req.Tool, req.Destination, d.Name(), err)
	}
	return r
}

// TestChainPingTTL checks ping's TTL in a chain of 50 routers: 64 by
// default, so r1 reaches r50 (49 hops) even when the request carries
// traceroute's max hops of 30 as the MCP layer's requests do; settable,
// through Diagnose and through the CLI of both dialects' keywords.
func TestChainPingTTL(t *testing.T) {
	topo, err := ChainTopology(50)
	lab := newGeneratedLab(t, topo, err)
	r1 := mustDevice(t, lab, "r1")
	r50 := GeneratedLoopback(50)
	tests := []struct {
		name string
		req  diag.Request
		code int
		want string
	}{
		{"default TTL 64 reaches r50", diag.Request{Tool: "ping", Destination: r50, Count: 1}, 0, "ttl=207"},
		{"traceroute's max hops is not ping's TTL", diag.Request{Tool: "ping", Destination: r50, Count: 1, MaxHops: 30}, 0, "ttl=207"},
		{"by name", diag.Request{Tool: "ping", Destination: "r50.lab.example", Count: 1}, 0, "1 received"},
		{"TTL 49 is just enough", diag.Request{Tool: "ping", Destination: r50, Count: 1, TTL: 49}, 0, "1 received"},
		{"TTL 48 expires on r49", diag.Request{Tool: "ping", Destination: r50, Count: 1, TTL: 48}, 1, "Time to live exceeded"},
		{"TTL 10 expires on r11", diag.Request{Tool: "ping", Destination: r50, Count: 1, TTL: 10}, 1, "From 10.0.0.38 icmp_seq=1 Time to live exceeded"},
		{"traceroute goes 49 hops", diag.Request{Tool: "traceroute", Destination: r50, MaxHops: 64}, 0, "49  " + r50},
		{"traceroute stops at max hops", diag.Request{Tool: "traceroute", Destination: r50, MaxHops: 30}, 0, "30 hops max"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := diagnose(t, r1, tc.req)
			if r.ExitCode != tc.code || !strings.Contains(r.Output, tc.want) {
				t.Fatalf("exit %d, want %d with %q:\n%s", r.ExitCode, tc.code, tc.want, r.Output)
			}
		})
	}
	for _, tc := range []struct{ cmd, want string }{
		{"ping " + r50 + " count 1", "Success rate is 100 percent"},
		{"ping " + r50 + " count 1 ttl 48", "Success rate is 0 percent"},
		{"ping " + r50 + " count 1 ttl 49", "Success rate is 100 percent"},
	} {
		out, err := r1.Exec(context.Background(), tc.cmd)
		if err != nil || !strings.Contains(out, tc.want) {
			t.Errorf("%s: %v\n%s", tc.cmd, err, out)
		}
	}
}

// TestGridOf1024 builds a 32x32 grid of routers, checks that the model was
// computed once for all of them, and pings and traces across its diameter:
// r1 at one corner to r1024 at the other, 62 hops.
func TestGridOf1024(t *testing.T) {
	topo, err := GridTopology(32, 32)
	lab := newGeneratedLab(t, topo, err)
	if n := len(lab.Routers()); n != 1024 {
		t.Fatalf("%d routers, want 1024", n)
	}
	if n := lab.Network().Rebuilds(); n != 1 {
		t.Errorf("the model was computed %d times while the lab loaded, want once", n)
	}
	r1 := mustDevice(t, lab, "r1")
	far := GeneratedLoopback(1024)
	r := diagnose(t, r1, diag.Request{Tool: "ping", Destination: far, Count: 2, MaxHops: 30})
	// The reply leaves r1024 with TTL 255 and crosses 61 routers.
	if r.ExitCode != 0 || !strings.Contains(r.Output, "ttl=194") || !strings.Contains(r.Output, "2 received") {
		t.Fatalf("ping r1 -> r1024:\n%s", r.Output)
	}
	back := diagnose(t, mustDevice(t, lab, "r1024"), diag.Request{Tool: "ping", Destination: GeneratedLoopback(1), Count: 1})
	if back.ExitCode != 0 {
		t.Fatalf("ping r1024 -> r1:\n%s", back.Output)
	}
	tr := diagnose(t, r1, diag.Request{Tool: "traceroute", Destination: far, MaxHops: 64})
	if tr.ExitCode != 0 || !strings.Contains(tr.Output, "\n62  "+far+" ") || strings.Contains(tr.Output, "\n63 ") {
		t.Fatalf("traceroute r1 -> r1024 is not 62 hops:\n%s", tr.Output)
	}
}

// TestOneRebuildPerChange checks that a commit on one device of a
// generated lab recomputes the model once, that it takes effect (shutting
// r2's link towards r3 cuts the chain), and that a fault does the same.
func TestOneRebuildPerChange(t *testing.T) {
	topo, err := ChainTopology(20)
	lab := newGeneratedLab(t, topo, err)
	n := lab.Network()
	if got := n.Rebuilds(); got != 1 {
		t.Fatalf("NewLab computed the model %d times, want once", got)
	}
	r2 := mustDevice(t, lab, "r2")
	ctx := context.Background()
	if err := r2.Configure(ctx, alice, []string{"interface GigabitEthernet0/0/0/1", "shutdown"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r2.Commit(ctx, alice, device.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := n.Rebuilds(); got != 2 {
		t.Errorf("a commit on r2 made %d rebuilds in all, want 2", got)
	}
	r1 := mustDevice(t, lab, "r1")
	if r := diagnose(t, r1, diag.Request{Tool: "ping", Destination: GeneratedLoopback(20), Count: 1}); r.ExitCode == 0 {
		t.Errorf("r1 still reaches r20 with r2's link to r3 shut:\n%s", r.Output)
	}
	st, err := n.InterfaceState("r3", "GigabitEthernet0/0/0/0")
	if err != nil || st.OperUp || st.OperReason != "peer admin-down" {
		t.Errorf("r3's link to r2: %+v %v", st, err)
	}
	if err := lab.InjectFault(topology.Fault{Kind: topology.FaultLinkDown, Link: "r10:GigabitEthernet0/0/0/1"}); err != nil {
		t.Fatal(err)
	}
	if got := n.Rebuilds(); got != 3 {
		t.Errorf("a fault made the rebuilds %d in all, want 3", got)
	}
}

// TestTraceroutePacedByModel checks that in a realtime lab traceroute and
// tracepath lines come as the model answers, not one per ping interval: with an interval
// of an hour the run still ends (the context's generous deadline would
// stop it otherwise), and a hop behind a slow link takes at least that
// link's round trip.
func TestTraceroutePacedByModel(t *testing.T) {
	topo, err := ChainTopology(6)
	if err == nil {
		topo.Links[2].Delay = 60 // ms each way between r3 and r4
	}
	if err != nil {
		t.Fatal(err)
	}
	lab, err := NewLab(topo, LabOptions{Seed: 1, Realtime: true}) // paced only in a realtime lab
	if err != nil {
		t.Fatal(err)
	}
	defer lab.Close()
	r1 := mustDevice(t, lab, "r1")
	// Hops 3 to 5 are behind the slow link: traceroute probes them at once
	// (one round trip of at least 120 ms), tracepath one after another
	// (three).
	for _, tc := range []struct {
		tool string
		min  time.Duration
	}{{"traceroute", 120 * time.Millisecond}, {"tracepath", 360 * time.Millisecond}} {
		tool := tc.tool
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		var lines []string
		start := time.Now()
		r, err := r1.Diagnose(ctx, diag.Request{Tool: tool, Destination: GeneratedLoopback(6), IntervalMs: 3600000},
			func(l string) { lines = append(lines, l) })
		elapsed := time.Since(start)
		cancel()
		if err != nil || r.ExitCode != 0 {
			t.Fatalf("%s: %v\n%s", tool, err, r.Output)
		}
		if len(lines) < 6 {
			t.Fatalf("%s streamed %d lines:\n%s", tool, len(lines), r.Output)
		}
		if elapsed < tc.min {
			t.Errorf("%s took %v, less than the model's round trips behind the slow link", tool, elapsed)
		}
	}
}

// TestTraceWaits checks the pacing computed from an outcome: the slowest
// answer of a hop, the wait for an unanswered probe, traceroute's 16
// probes in flight, tracepath's tries.
func TestTraceWaits(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	probe := func(kind string, rtt time.Duration) netsim.TraceProbe { return netsim.TraceProbe{Kind: kind, RTT: rtt} }
	o := netsim.TraceOutcome{
		Hops: []netsim.TraceHop{
			{TTL: 1, Probes: []netsim.TraceProbe{probe(netsim.ResultTimeExceeded, ms(1)), probe(netsim.ResultTimeExceeded, ms(3)), probe(netsim.ResultTimeExceeded, ms(2))}},
			{TTL: 2, Probes: []netsim.TraceProbe{probe(netsim.ResultTimeExceeded, ms(4)), probe(netsim.ResultLost, 0)}},
		},
		Tracepath: []netsim.TracepathStep{{TTL: 1, Probe: probe(netsim.ResultTimeExceeded, ms(7))}, {TTL: 2, Probe: probe(netsim.ResultLost, 0)}},
	}
	// Seven hops of three 10 ms probes: the first 16 probes (hops 1 to 5
	// and one of hop 6) are answered at 10 ms, the other five at 20 ms.
	var seven netsim.TraceOutcome
	for h := 1; h <= 7; h++ {
		p := probe(netsim.ResultTimeExceeded, ms(10))
		seven.Hops = append(seven.Hops, netsim.TraceHop{TTL: h, Probes: []netsim.TraceProbe{p, p, p}})
	}
	for _, tc := range []struct {
		name, tool string
		o          netsim.TraceOutcome
		want       []time.Duration
	}{
		{"slowest probe, then the wait", "traceroute", o, []time.Duration{ms(3), 2*time.Second - ms(3)}},
		{"16 in flight", "traceroute", seven, []time.Duration{ms(10), 0, 0, 0, 0, ms(10), 0}},
		{"tracepath one by one", "tracepath", o, []time.Duration{ms(7), tracepathTries * tracepathWait}},
	} {
		if got := traceWaits(tc.o, tc.tool, 2*time.Second); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: waits = %v, want %v", tc.name, got, tc.want)
		}
	}
}
