package netsim

import (
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

func named(t *testing.T, words string) topology.Fault {
	t.Helper()
	f, err := topology.ParseFault(words)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestRuntimeFaultDirections checks that direction is relative to the
// target interface: "in" hits what it receives, "out" what it sends (its
// peer receives); corruption is counted as input errors at the receiver.
func TestRuntimeFaultDirections(t *testing.T) {
	for _, tc := range []struct {
		words    string
		errorsAt string // interface with input errors
	}{
		{"link_high_packet_corruption r1:" + g0 + " percent=100 direction=out", "r2"},
		{"link_high_packet_corruption r1:" + g0 + " percent=100 direction=in", "r1"},
	} {
		n := newLab(t, lineLab(), named(t, tc.words))
		o, err := n.Ping(ProbeRequest{From: "r1", Destination: addr("10.0.12.2"), Count: 3})
		if err != nil {
			t.Fatal(err)
		}
		if kinds(o) != repeat("lost", 3) {
			t.Errorf("%s: ping %s", tc.words, kinds(o))
		}
		for _, dev := range []string{"r1", "r2"} {
			st, _ := n.InterfaceState(dev, g0)
			if got := st.Counters.InErrors > 0; got != (dev == tc.errorsAt) {
				t.Errorf("%s: %s in-errors %d", tc.words, dev, st.Counters.InErrors)
			}
		}
	}
	// Latency one way only adds to the round trip once.
	base := newLab(t, lineLab())
	one := newLab(t, lineLab(), named(t, "link_high_latency r1:"+g0+" delay-ms=100 direction=out"))
	both := newLab(t, lineLab(), named(t, "link_high_latency r1:"+g0+" delay-ms=100"))
	rtt := func(n *Network) time.Duration {
		o, err := n.Ping(ProbeRequest{From: "r1", Destination: addr("10.0.12.2"), Count: 1})
		if err != nil || o.Replies[0].Kind != ResultReply {
			t.Fatalf("ping: %v %+v", err, o)
		}
		return o.Replies[0].RTT
	}
	b, o1, o2 := rtt(base), rtt(one), rtt(both)
	if d := o1 - b; d < 99*time.Millisecond || d > 101*time.Millisecond {
		t.Errorf("one-way 100 ms adds %v", d)
	}
	if d := o2 - b; d < 199*time.Millisecond || d > 201*time.Millisecond {
		t.Errorf("both ways 100 ms adds %v", d)
	}
}

// TestLinkDownAndDetach checks what each end of a link shows: link_down
// shuts the target end (its peer loses the carrier); link_detach leaves
// the target end up without carrier and its peer up, hearing nothing
// (no LLDP neighbour, no reply across the link).
func TestLinkDownAndDetach(t *testing.T) {
	type want struct {
		admin, oper bool
		reason      string
	}
	for _, tc := range []struct {
		words        string
		target, peer want
	}{
		{"link_down r2:" + g1, want{false, false, "admin-down"}, want{true, false, "peer admin-down"}},
		{"link_detach r2:" + g1, want{true, false, "no carrier"}, want{true, true, ""}},
	} {
		n := newLab(t, lineLab(), named(t, tc.words))
		for _, e := range []struct {
			dev string
			w   want
		}{{"r2", tc.target}, {"r3", tc.peer}} {
			dev, ifn := e.dev, g1
			if dev == "r3" {
				ifn = g0
			}
			st, err := n.InterfaceState(dev, ifn)
			if err != nil {
				t.Fatal(err)
			}
			if st.AdminUp != e.w.admin || st.OperUp != e.w.oper || st.OperReason != e.w.reason {
				t.Errorf("%s: %s:%s admin %v oper %v %q, want %+v", tc.words, dev, ifn, st.AdminUp, st.OperUp, st.OperReason, e.w)
			}
		}
		nbs, err := n.LLDPNeighbors("r3")
		if err != nil {
			t.Fatal(err)
		}
		for _, nb := range nbs {
			if nb.LocalInterface == g0 {
				t.Errorf("%s: r3 hears %s on %s", tc.words, nb.SystemName, g0)
			}
		}
		o, err := n.Ping(ProbeRequest{From: "r3", Destination: addr("10.0.23.1"), Count: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range o.Replies {
			if r.Kind == ResultReply {
				t.Errorf("%s: r3 reaches r2 across the link: %s", tc.words, kinds(o))
			}
		}
	}
}

// TestRuntimeFaultStates checks link_flap by the clock and the refusal
// of configuration faults in the model's list.
func TestRuntimeFaultStates(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := named(t, "link_flap r1:"+g0+" period=10 down=3")
	if !FlapDown(f, now) || FlapDown(f, now.Add(3*time.Second)) || !FlapDown(f, now.Add(12*time.Second)) {
		t.Error("flap phases")
	}
	if got := NextFlapChange(f, now.Add(time.Second)); !got.Equal(now.Add(3 * time.Second)) {
		t.Errorf("next change %v", got)
	}
	if got := NextFlapChange(f, now.Add(4*time.Second)); !got.Equal(now.Add(10 * time.Second)) {
		t.Errorf("next change %v", got)
	}
	topo := lineLab()
	topo.Faults = []topology.Fault{named(t, "mtu_mismatch r1:"+g0)}
	if _, err := New(topo, Options{}); err == nil || !strings.Contains(err.Error(), "configuration fault") {
		t.Errorf("a configuration fault in the model's list: %v", err)
	}
}
