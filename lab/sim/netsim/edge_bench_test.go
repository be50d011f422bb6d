package netsim

import (
	"testing"
	"time"
)

// BenchmarkCapture is a 130 s capture on r2's interface toward r1 in the
// default lab (OSPF, BGP, ARP), encoded as pcap and summarised.
func BenchmarkCapture(b *testing.B) {
	n, c := clockedLab(b, defaultLab(b))
	c.advance(10 * time.Minute)
	pkts := 0
	for b.Loop() {
		o, err := n.Capture("r2", CaptureFilter{Interface: r2toR1, Window: 130 * time.Second, MaxPackets: 1000})
		if err != nil {
			b.Fatal(err)
		}
		_ = EncodePCAP(o.Packets)
		for i := range o.Packets {
			_ = o.Packets[i].Summary()
		}
		pkts = len(o.Packets)
	}
	b.ReportMetric(float64(pkts), "packets")
}

// BenchmarkCountersRead reads an interface's counters after a change of
// state (the first read derives the new state's flows) and again (cached).
func BenchmarkCountersRead(b *testing.B) {
	for _, fresh := range []bool{true, false} {
		name := "cached"
		if fresh {
			name = "after-change"
		}
		b.Run(name, func(b *testing.B) {
			n, c := clockedLab(b, defaultLab(b))
			i := 0
			for b.Loop() {
				if fresh {
					b.StopTimer()
					d, _ := n.Device("r2")
					i++
					d.Interfaces[1].Description = string(rune('a' + i%26))
					if err := n.UpdateDevice(d); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				c.advance(time.Second)
				if _, err := n.InterfaceState("r2", r2toR1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
