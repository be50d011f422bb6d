package agent

import (
	"encoding/json"
	"strings"
	"testing"
)

// ifs builds before/after interface states from counter deltas.
func ifs(out, in, outDisc, inDisc, inErr uint64) (ifState, ifState) {
	b := ifState{OutPkts: 100, InPkts: 100, OutDiscards: 1, InDiscards: 1, InErrors: 1}
	a := ifState{OutPkts: 100 + out, InPkts: 100 + in, OutDiscards: 1 + outDisc, InDiscards: 1 + inDisc, InErrors: 1 + inErr}
	return b, a
}

// pair builds the two directions of the link A-B from each side's counter
// deltas: a's (out, in, out-discards, in-discards, in-errors) and b's.
func pair(pos int, a, b [5]uint64) []hop {
	ab, aa := ifs(a[0], a[1], a[2], a[3], a[4])
	bb, ba := ifs(b[0], b[1], b[2], b[3], b[4])
	return []hop{
		{From: "A", FromIf: "a0", To: "B", ToIf: "b0", Pos: pos, FromBefore: ab, FromAfter: aa, ToBefore: bb, ToAfter: ba, PingLoss: -1, Evidence: []int{0}},
		{From: "B", FromIf: "b0", To: "A", ToIf: "a0", Pos: pos, FromBefore: bb, FromAfter: ba, ToBefore: ab, ToAfter: aa, PingLoss: -1, Evidence: []int{1}},
	}
}

// TestCorrelate: the rules on synthetic signed counters, including the
// one-way loss the simulator cannot inject yet.
func TestCorrelate(t *testing.T) {
	for _, tc := range []struct {
		name string
		hops []hop
		want []string // "cause device interface direction", in order
		says string   // in the primary statement
	}{
		{"clean", pair(0, [5]uint64{20, 20, 0, 0, 0}, [5]uint64{20, 20, 0, 0, 0}), nil, ""},
		{"loss A->B only", pair(0, [5]uint64{20, 20, 0, 0, 0}, [5]uint64{20, 14, 0, 0, 0}),
			[]string{"link-loss A a0 A->B"}, "the reverse direction clean"},
		{"loss both ways", pair(0, [5]uint64{20, 15, 0, 0, 0}, [5]uint64{20, 14, 0, 0, 0}),
			[]string{"link-loss A a0 A->B", "link-loss B b0 B->A"}, "also lossy"},
		{"egress ACL on A", pair(0, [5]uint64{10, 20, 10, 0, 0}, [5]uint64{20, 10, 0, 0, 0}),
			[]string{"egress-filter A a0 A->B"}, "an egress ACL on A a0"},
		{"ingress ACL on B", pair(0, [5]uint64{20, 20, 0, 0, 0}, [5]uint64{20, 10, 0, 10, 0}),
			[]string{"ingress-filter B b0 A->B"}, "an ingress ACL on B b0"},
		{"corruption A->B", pair(0, [5]uint64{20, 20, 0, 0, 0}, [5]uint64{20, 16, 0, 0, 4}),
			[]string{"link-corruption A a0 A->B"}, "corrupting"},
		{"filter outranks loss on a later link", append(pair(0, [5]uint64{20, 20, 0, 0, 0}, [5]uint64{20, 17, 0, 0, 0}),
			relabel(pair(1, [5]uint64{10, 20, 10, 0, 0}, [5]uint64{20, 10, 0, 0, 0}), "B", "C")...),
			[]string{"egress-filter B a0 B->C", "link-loss A a0 A->B"}, "egress ACL on B"},
		{"a gap within the read skew is background traffic", pair(0, [5]uint64{20, 20, 0, 0, 0}, [5]uint64{20, 20 - CounterSlack, 0, 0, 0}), nil, ""},
		{"a gap the captures contradict is background traffic", intact(pair(0, [5]uint64{20, 20, 0, 0, 0}, [5]uint64{40, 30, 0, 0, 0})), nil, ""},
		{"a counter cleared in between is no evidence", pair(0, [5]uint64{20, 20, 0, 0, 0}, [5]uint64{20, 20, 0, 0, 0}),
			[]string{"not-measured A a0 A->B"}, "went backwards"},
	} {
		if tc.name == "a counter cleared in between is no evidence" {
			tc.hops[0].ToAfter.InPkts = 0 // B's counters were cleared during the run
		}
		got := correlate(tc.hops)
		var gs []string
		for _, f := range got {
			gs = append(gs, f.Cause+" "+f.Device+" "+f.Interface+" "+f.Direction)
		}
		if strings.Join(gs, "|") != strings.Join(tc.want, "|") {
			b, _ := json.MarshalIndent(got, "", " ")
			t.Errorf("%s: got %v, want %v\n%s", tc.name, gs, tc.want, b)
			continue
		}
		if tc.says != "" && !strings.Contains(got[0].Statement, tc.says) {
			t.Errorf("%s: statement %q lacks %q", tc.name, got[0].Statement, tc.says)
		}
	}
}

// intact marks every hop's probes as seen intact by the captures.
func intact(hs []hop) []hop {
	for i := range hs {
		hs[i].ProbesIntact = true
	}
	return hs
}

// relabel renames A to from and B to to in hops.
func relabel(hs []hop, from, to string) []hop {
	m := map[string]string{"A": from, "B": to}
	for i := range hs {
		hs[i].From, hs[i].To = m[hs[i].From], m[hs[i].To]
	}
	return hs
}

func TestParseIntent(t *testing.T) {
	for _, tc := range []struct {
		in, path string // path "" = refused
	}{
		{"verify packet loss on the path from r1 to r3 via r2", "r1 r2 r3"},
		{"Verify packet loss on the SRv6 path from PE-1 to PE-3 via P-2.", "PE-1 P-2 PE-3"},
		{"verify packet loss from r1 to r5 via r2, r3 and r4", "r1 r2 r3 r4 r5"},
		{"verify packet loss from r1 to r2", "r1 r2"},
		{"why is BGP down on r1", ""},
		{"verify packet loss from r1 to r1", ""},
	} {
		got, err := ParseIntent(tc.in)
		if tc.path == "" {
			if err == nil {
				t.Errorf("%q: accepted as %v", tc.in, got.Path)
			}
			continue
		}
		if err != nil || strings.Join(got.Path, " ") != tc.path {
			t.Errorf("%q: %v %v, want %s", tc.in, got.Path, err, tc.path)
		}
	}
}

func TestAuthorise(t *testing.T) {
	all := []string{CapPing, CapCounters}
	for _, tc := range []struct {
		caps []string
		tool string
		args string
		ok   bool
	}{
		{all, "ping", `{}`, true},
		{all, "traceroute", `{}`, false},
		{all, "network.yang.edit", `{}`, false},
		{all, "network.yang.get", `{"path":"/openconfig-interfaces:interfaces/interface[name=x]/state/counters"}`, true},
		{all, "network.yang.get", `{"path":"/openconfig-interfaces:interfacesX"}`, false},
		{all, "network.yang.get", `{"path":"/openconfig-system:system"}`, false},
		{[]string{CapYangRead}, "network.yang.get", `{"path":"/openconfig-system:system"}`, true},
		{[]string{CapYangRead}, "network.yang.get", `{"path":"/x","datastore":"candidate"}`, false},
		{nil, "ping", `{}`, false},
	} {
		err := authorise(tc.caps, tc.tool, json.RawMessage(tc.args))
		if (err == nil) != tc.ok {
			t.Errorf("%v %s %s: %v, want ok=%v", tc.caps, tc.tool, tc.args, err, tc.ok)
		}
	}
	if err := checkOffer([]string{CapPing, "ietf-write-memory"}); err == nil {
		t.Error("a write capability offered")
	}
	if got := Intersect([]string{"b", "a", "c"}, []string{"c", "a"}); strings.Join(got, ",") != "a,c" {
		t.Errorf("Intersect = %v", got)
	}
}

// TestEgressDropRule: from captures alone (a Linux filter counts nothing),
// an egress filter is named only when the device's own probes and the ones
// it forwards both vanish on the way out of the same interface.
func TestEgressDropRule(t *testing.T) {
	// r1 -a- r2 -b- r3: the points of each probe stream.
	link := func(from, to, fromIf, toIf string, sent, out, in int) stream {
		return stream{From: from, To: to, Src: from, Dst: to, Sent: sent, Evidence: []int{0}, Points: []point{
			{Dev: from, If: fromIf, Dir: "out", Peer: to, Seen: out, Measured: true, Ev: 1},
			{Dev: to, If: toIf, Dir: "in", Peer: from, Seen: in, Measured: true, Ev: 2}}}
	}
	transit := func(sent, r2out, r3in int) stream {
		return stream{From: "r1", To: "r3", Src: "r1", Dst: "r3", Sent: sent, Evidence: []int{3}, Points: []point{
			{Dev: "r1", If: "a1", Dir: "out", Peer: "r2", Seen: sent, Measured: true, Ev: 4},
			{Dev: "r2", If: "a2", Dir: "in", Peer: "r1", Seen: sent, Measured: true, Ev: 5},
			{Dev: "r2", If: "b2", Dir: "out", Peer: "r3", Seen: r2out, Measured: true, Ev: 6},
			{Dev: "r3", If: "b3", Dir: "in", Peer: "r2", Seen: r3in, Measured: true, Ev: 7}}}
	}
	for _, tc := range []struct {
		name    string
		streams []stream
		want    string // "device interface direction", "" for no finding
		says    string
	}{
		{"clean", []stream{link("r2", "r3", "b2", "b3", 10, 10, 10), transit(10, 10, 10)}, "", ""},
		{"own and forwarded probes dropped leaving b2", []stream{link("r2", "r3", "b2", "b3", 10, 0, 0), transit(10, 0, 0), link("r3", "r2", "b3", "b2", 10, 10, 10)},
			"r2 b2 r2->r3", "the reverse direction clean"},
		{"partial drop of both", []stream{link("r2", "r3", "b2", "b3", 10, 6, 6), transit(10, 7, 7)}, "r2 b2 r2->r3", "4 of 10"},
		{"forwarded only (a forwarding drop)", []stream{link("r2", "r3", "b2", "b3", 10, 10, 10), transit(10, 0, 0)}, "", ""},
		{"own only", []stream{link("r2", "r3", "b2", "b3", 10, 0, 0), transit(10, 10, 10)}, "", ""},
		{"lost on the wire", []stream{link("r2", "r3", "b2", "b3", 10, 10, 0), transit(10, 10, 0)}, "", ""},
		{"reverse also lossy", []stream{link("r2", "r3", "b2", "b3", 10, 0, 0), transit(10, 0, 0), link("r3", "r2", "b3", "b2", 10, 10, 3)},
			"r2 b2 r2->r3", "also lossy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := egressDropRule(tc.streams)
			if tc.want == "" {
				if len(fs) != 0 {
					t.Fatalf("findings %+v, want none", fs)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("findings %+v, want one", fs)
			}
			f := fs[0]
			if got := f.Device + " " + f.Interface + " " + f.Direction; got != tc.want || f.Cause != "egress-filter" || f.Rule != "capture-egress-drop" {
				t.Fatalf("got %s %s %s, want %s egress-filter", got, f.Cause, f.Rule, tc.want)
			}
			if !strings.Contains(f.Statement, tc.says) {
				t.Fatalf("statement %q lacks %q", f.Statement, tc.says)
			}
		})
	}
}
