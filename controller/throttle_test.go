package controller

import (
	"math"
	"testing"
)

// TestSerialised: a delay that grows with the packet's size as a slow
// link serialises it is told from a long path, a full queue's constant
// wait and jitter, and the rate it implies follows from the sizes.
func TestSerialised(t *testing.T) {
	// The round trip a link of rate kbit/s adds to a payload of size
	// bytes (IPv4 and ICMP headers besides), request and reply.
	wire := func(size int, kbps float64) float64 { return 2 * float64(size+28) * 8 / kbps }
	cases := []struct {
		name         string
		small, large pingResult
		slow         bool
		kbps         float64 // the rate implied, when slow
	}{
		{"64 kbit/s behind a full queue (400 ms each way)",
			pingResult{RTT: 800 + wire(smallProbe, 64)}, pingResult{RTT: 800 + wire(largeProbe, 64)}, true, 64},
		{"128 kbit/s, no queue",
			pingResult{RTT: 1 + wire(smallProbe, 128)}, pingResult{RTT: 1 + wire(largeProbe, 128)}, true, 128},
		{"1 Mbit/s",
			pingResult{RTT: wire(smallProbe, 1000)}, pingResult{RTT: wire(largeProbe, 1000)}, true, 1000},
		{"a gigabit link 200 ms long",
			pingResult{RTT: 400 + wire(smallProbe, 1e6)}, pingResult{RTT: 400 + wire(largeProbe, 1e6)}, false, 0},
		{"a 10 Mbit/s access port",
			pingResult{RTT: 0.4 + wire(smallProbe, 10000)}, pingResult{RTT: 0.4 + wire(largeProbe, 10000)}, false, 0},
		{"jitter larger than the growth",
			pingResult{RTT: 300, Mdev: 40}, pingResult{RTT: 400, Mdev: 40}, false, 0},
		{"large probes faster (noise)",
			pingResult{RTT: 50}, pingResult{RTT: 40}, false, 0},
		{"no small probe came back",
			pingResult{}, pingResult{RTT: 900}, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			kbps, slow := serialised(c.small, c.large)
			if slow != c.slow {
				t.Fatalf("slow %v, want %v (implied %.0f kbit/s)", slow, c.slow, kbps)
			}
			if c.slow && math.Abs(kbps-c.kbps) > c.kbps/100 {
				t.Errorf("implied %.1f kbit/s, want %.0f", kbps, c.kbps)
			}
		})
	}
}
