package controller

import (
	"strings"
	"testing"
)

func TestParseIntent(t *testing.T) {
	cases := []struct {
		text string
		want Intent
	}{
		{"verify reachability between r1 and h3", Intent{Kind: KindReachability, Source: "r1", Destination: "h3"}},
		{"Verify reachability between Site-A and Site-B.", Intent{Kind: KindReachability, Source: "Site-A", Destination: "Site-B"}},
		{"can r1 reach 10.3.0.10?", Intent{Kind: KindReachability, Source: "r1", Destination: "10.3.0.10"}},
		{"is there loss on the path from r1 to h3 via r2", Intent{Kind: KindReachability, Source: "r1", Destination: "h3", Via: "r2"}},
		{"latency on the path from r1 to h3", Intent{Kind: KindReachability, Source: "r1", Destination: "h3"}},
		{"why is BGP neighbor 10.0.12.2 down on r1", Intent{Kind: KindBGPDown, Peer: "10.0.12.2", Device: "r1"}},
		{"diagnose why BGP neighbor 1.1.1.1 is down", Intent{Kind: KindBGPDown, Peer: "1.1.1.1"}},
		{"why is the bgp session 10.255.0.3 on r2 down?", Intent{Kind: KindBGPDown, Peer: "10.255.0.3", Device: "r2"}},
		{"why is the OSPF adjacency between r2 and r3 down", Intent{Kind: KindOSPFDown, Device: "r2", Peer: "r3"}},
		{"path MTU from r1 to 10.3.0.10", Intent{Kind: KindPathMTU, Source: "r1", Destination: "10.3.0.10"}},
		{"what is wrong with the network?", Intent{Kind: KindSweep}},
		{"What's wrong?", Intent{Kind: KindSweep}},
		{"please check the network", Intent{Kind: KindSweep}},
		{`{"kind":"bgp-down","device":"r1","peer":"10.0.12.2"}`, Intent{Kind: KindBGPDown, Device: "r1", Peer: "10.0.12.2"}},
		{"kind: reachability\nsource: r1\ndestination: h3\n", Intent{Kind: KindReachability, Source: "r1", Destination: "h3"}},
		{`{"kind":"reachability","source":"r1"}`, Intent{}},
		{`{"kind":"teleport"}`, Intent{}},
		{`{"kind":"sweep","bogus":1}`, Intent{}},
		{"make me a sandwich", Intent{}},
	}
	for _, c := range cases {
		got, err := ParseIntent(c.text)
		if c.want.Kind == "" {
			if err == nil {
				t.Errorf("%q: parsed as %+v, want an error", c.text, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		got.Text = ""
		if got != c.want {
			t.Errorf("%q: %+v, want %+v", c.text, got, c.want)
		}
	}
	if _, err := ParseIntent("what is the meaning of life"); err == nil || !strings.Contains(err.Error(), "verify reachability between") {
		t.Errorf("an unknown sentence's error does not show examples: %v", err)
	}
}
