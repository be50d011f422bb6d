package netsim

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

const (
	r2toR1 = "GigabitEthernet0/0/0/0"
	r2toR3 = "GigabitEthernet0/0/0/1"
	r1toR2 = "GigabitEthernet0/0/0"
)

// capture runs a capture and fails the test on error.
func capture(t *testing.T, n *Network, dev string, f CaptureFilter) []CapturedPacket {
	t.Helper()
	o, err := n.Capture(dev, f)
	if err != nil {
		t.Fatalf("Capture(%s, %+v): %v", dev, f, err)
	}
	return o.Packets
}

func summaries(ps []CapturedPacket) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.Direction + " " + p.Summary() + "\n")
	}
	return b.String()
}

// TestCaptureBGP: what a capture on port 179 shows, session by session.
func TestCaptureBGP(t *testing.T) {
	r1, r2 := addr("10.0.12.1"), addr("10.0.12.2")
	isSyn := func(p CapturedPacket, from, to netip4) bool {
		return p.TCPFlags == "S" && p.Src == from && p.Dst == to && p.DstPort == 179
	}
	tests := []struct {
		name   string
		topo   func(topology.Topology) topology.Topology
		ifname string
		check  func(t *testing.T, ps []CapturedPacket)
	}{
		{"established: keepalives both ways, no SYN", func(t topology.Topology) topology.Topology { return t }, r2toR1,
			func(t *testing.T, ps []CapturedPacket) {
				var ka [2]int
				for _, p := range ps {
					if p.TCPFlags == "S" {
						t.Errorf("SYN on an established session: %s", p.Summary())
					}
					if p.Info == "BGP KEEPALIVE" {
						ka[map[bool]int{true: 0, false: 1}[p.Src == r1]]++
					}
				}
				if ka[0] < 2 || ka[1] < 2 {
					t.Errorf("keepalives r1->r2 %d, r2->r1 %d in 130 s, want 2 or 3 each", ka[0], ka[1])
				}
			}},
		{"bgp_acl_block on r2: SYNs from r1 get no SYN-ACK", func(t topology.Topology) topology.Topology { return withBGPBlock(t, "r2", r2toR1) }, r2toR1,
			func(t *testing.T, ps []CapturedPacket) {
				syns := 0
				for _, p := range ps {
					if isSyn(p, r1, r2) {
						syns++
						if p.Direction != "in" {
							t.Errorf("r1's SYN going out of r2: %s", p.Summary())
						}
					}
					if p.Src == r2 && p.SrcPort == 179 {
						t.Errorf("r2 answered on 179 although its ACL drops the SYNs: %s", p.Summary())
					}
					if p.Info == "BGP KEEPALIVE" {
						t.Errorf("keepalive through the block: %s", p.Summary())
					}
				}
				if syns < 2 {
					t.Errorf("%d SYNs from r1 to r2:179 in 130 s, want retransmissions", syns)
				}
			}},
		{"r1 without BGP: r2's SYNs get RSTs", func(tp topology.Topology) topology.Topology {
			tp.Devices[0].BGP = nil
			return tp
		}, r2toR1,
			func(t *testing.T, ps []CapturedPacket) {
				var syn, rst int
				for _, p := range ps {
					if isSyn(p, r2, r1) {
						syn++
					}
					if p.TCPFlags == "R." && p.Src == r1 && p.SrcPort == 179 {
						rst++
					}
				}
				if syn == 0 || rst != syn {
					t.Errorf("%d SYNs and %d RSTs, want one RST per SYN:\n%s", syn, rst, summaries(ps))
				}
			}},
		{"frr_service_down on r1: r2's SYNs get RSTs, r1 sends no SYN and no hello", func(tp topology.Topology) topology.Topology {
			tp.Faults = append(tp.Faults, topology.Fault{Name: "frr_service_down", Target: "r1"})
			return tp
		}, r2toR1,
			func(t *testing.T, ps []CapturedPacket) {
				var syn, rst int
				for _, p := range ps {
					if isSyn(p, r2, r1) {
						syn++
					}
					if p.TCPFlags == "R." && p.Src == r1 && p.SrcPort == 179 {
						rst++
					}
					if isSyn(p, r1, r2) || (p.Src == r1 && strings.HasPrefix(p.Info, "OSPF")) {
						t.Errorf("r1's routing daemon is down, yet it sends %s", p.Summary())
					}
				}
				if syn == 0 || rst != syn {
					t.Errorf("%d SYNs and %d RSTs, want one RST per SYN:\n%s", syn, rst, summaries(ps))
				}
			}},
		{"wrong AS on r1: OPENs then NOTIFICATION", func(tp topology.Topology) topology.Topology {
			tp.Devices[0].BGP.Neighbors[0].RemoteAS = 65099
			return tp
		}, r2toR1,
			func(t *testing.T, ps []CapturedPacket) {
				var open, note int
				for _, p := range ps {
					switch p.Info {
					case "BGP OPEN":
						open++
					case "BGP NOTIFICATION":
						note++
						if p.Src != r1 {
							t.Errorf("NOTIFICATION from %s, want r1 (it expects AS 65099)", p.Src)
						}
					case "BGP KEEPALIVE":
						t.Errorf("keepalive on a session with a wrong AS: %s", p.Summary())
					}
				}
				if open == 0 || note == 0 {
					t.Errorf("%d OPENs, %d NOTIFICATIONs, want both:\n%s", open, note, summaries(ps))
				}
			}},
		{"iBGP over loopbacks crosses r2-r3, not r1-r2", func(t topology.Topology) topology.Topology { return t }, r2toR3,
			func(t *testing.T, ps []CapturedPacket) {
				n := 0
				for _, p := range ps {
					if p.Info == "BGP KEEPALIVE" {
						n++
						if p.Src != addr("10.255.0.2") && p.Src != addr("10.255.0.3") {
							t.Errorf("iBGP keepalive from %s, want loopback addresses", p.Src)
						}
					}
				}
				if n == 0 {
					t.Error("no iBGP keepalive between r2 and r3")
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, c := clockedLab(t, tc.topo(defaultLab(t)))
			c.advance(10 * time.Minute)
			tc.check(t, capture(t, n, "r2", CaptureFilter{Interface: tc.ifname, Protocol: "tcp", Port: 179, Window: 130 * time.Second, MaxPackets: 1000}))
		})
	}
}

type netip4 = interface{ String() string }

// TestCaptureFilters: each filter field narrows what is returned.
func TestCaptureFilters(t *testing.T) {
	n, c := clockedLab(t, defaultLab(t))
	c.advance(10 * time.Minute)
	if _, err := n.Ping(ProbeRequest{From: "r1", Destination: addr("10.255.0.3"), Count: 3}); err != nil {
		t.Fatal(err)
	}
	c.advance(5 * time.Second)
	all := capture(t, n, "r2", CaptureFilter{Interface: r2toR1, Window: 130 * time.Second, MaxPackets: 5000})
	tests := []struct {
		name string
		f    CaptureFilter
		ok   func(p CapturedPacket) bool
	}{
		{"in", CaptureFilter{Direction: "in"}, func(p CapturedPacket) bool { return p.Direction == "in" }},
		{"out", CaptureFilter{Direction: "out"}, func(p CapturedPacket) bool { return p.Direction == "out" }},
		{"ospf", CaptureFilter{Protocol: "ospf"}, func(p CapturedPacket) bool { return p.Proto == ProtoOSPFName && p.Dst == addr("224.0.0.5") }},
		{"arp", CaptureFilter{Protocol: "arp"}, func(p CapturedPacket) bool { return p.Proto == ProtoARPName }},
		{"lldp", CaptureFilter{Protocol: "lldp"}, func(p CapturedPacket) bool {
			return p.Proto == ProtoLLDPName && p.DstMAC == lldpMulticast && (p.sysName == "r1") == (p.Direction == "in")
		}},
		{"icmp", CaptureFilter{Protocol: "icmp"}, func(p CapturedPacket) bool { return p.Proto == ProtoICMPName }},
		{"host", CaptureFilter{Host: addr("10.0.12.1")}, func(p CapturedPacket) bool { return p.Src == addr("10.0.12.1") || p.Dst == addr("10.0.12.1") }},
		{"src", CaptureFilter{Src: addr("10.0.12.2")}, func(p CapturedPacket) bool { return p.Src == addr("10.0.12.2") }},
		{"port", CaptureFilter{Port: 179}, func(p CapturedPacket) bool { return p.SrcPort == 179 || p.DstPort == 179 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.f
			f.Interface, f.Window, f.MaxPackets = r2toR1, 130*time.Second, 5000
			got := capture(t, n, "r2", f)
			want := 0
			for _, p := range all {
				if tc.ok(p) {
					want++
				}
			}
			if len(got) == 0 || len(got) != want {
				t.Fatalf("%d packets, want %d (of %d)", len(got), want, len(all))
			}
			for _, p := range got {
				if !tc.ok(p) {
					t.Errorf("filter let through %s", p.Summary())
				}
			}
		})
	}
	t.Run("ping", func(t *testing.T) {
		ps := capture(t, n, "r2", CaptureFilter{Interface: r2toR1, Protocol: "icmp", Window: 10 * time.Second})
		var req, rep int
		for _, p := range ps {
			switch {
			case p.ICMPType == 8 && p.Direction == "in" && p.Dst == addr("10.255.0.3"):
				req++
			case p.ICMPType == 0 && p.Direction == "out" && p.Src == addr("10.255.0.3"):
				rep++
			}
		}
		if req != 3 || rep != 3 {
			t.Errorf("%d echo requests in, %d replies out, want 3 and 3:\n%s", req, rep, summaries(ps))
		}
	})
	t.Run("a capture right after a ping sees all of it", func(t *testing.T) {
		if _, err := n.Ping(ProbeRequest{From: "r1", Destination: addr("10.255.0.3"), Count: 5}); err != nil {
			t.Fatal(err)
		}
		ps := capture(t, n, "r2", CaptureFilter{Interface: r2toR1, Protocol: "icmp", Direction: "in", Window: 6 * time.Second})
		seqs := map[int]bool{}
		for _, p := range ps {
			if p.ICMPType == 8 {
				seqs[p.icmpSeq] = true
			}
		}
		if len(seqs) != 5 || !seqs[1] || !seqs[5] {
			t.Errorf("echo requests seen: %v, want seq 1-5:\n%s", seqs, summaries(ps))
		}
	})
	t.Run("a capture right after a traceroute sees its probes and answers", func(t *testing.T) {
		if _, err := n.Traceroute(ProbeRequest{From: "r1", Destination: addr("10.3.0.10"), Count: 1}); err != nil {
			t.Fatal(err)
		}
		ps := capture(t, n, "r2", CaptureFilter{Interface: r2toR1, Window: 2 * time.Second})
		var udp, exceeded int
		for _, p := range ps {
			switch {
			case p.Proto == ProtoUDPName && p.Direction == "in" && p.Dst == addr("10.3.0.10"):
				udp++
			case p.Proto == ProtoICMPName && p.ICMPType == 11 && p.Src == addr("10.0.12.2"):
				exceeded++
			}
		}
		if udp == 0 || exceeded == 0 {
			t.Errorf("%d UDP probes in, %d time exceeded from r2:\n%s", udp, exceeded, summaries(ps))
		}
	})
	t.Run("limit", func(t *testing.T) {
		o, err := n.Capture("r2", CaptureFilter{Interface: r2toR1, Window: 130 * time.Second, MaxPackets: 3})
		if err != nil || len(o.Packets) != 3 || !o.Truncated {
			t.Errorf("MaxPackets 3: %d packets, truncated %v, err %v", len(o.Packets), o.Truncated, err)
		}
	})
	for _, bad := range []CaptureFilter{
		{Interface: r2toR1, Protocol: "sctp"}, {Interface: r2toR1, Direction: "sideways"},
		{Interface: r2toR1, Window: 2 * time.Hour}, {Interface: "Nope0"}, {},
	} {
		if _, err := n.Capture("r2", bad); err == nil {
			t.Errorf("Capture(%+v): no error", bad)
		}
	}
}

// TestCounters: counters move with the modelled traffic, count drops and
// loss where they happen, survive changes and clear.
func TestCounters(t *testing.T) {
	get := func(t *testing.T, n *Network, dev, ifn string) Counters {
		t.Helper()
		st, err := n.InterfaceState(dev, ifn)
		if err != nil {
			t.Fatal(err)
		}
		return st.Counters
	}
	t.Run("background and hellos move with the clock", func(t *testing.T) {
		n, c := clockedLab(t, defaultLab(t))
		a := get(t, n, "r2", r2toR1)
		c.advance(time.Minute)
		b := get(t, n, "r2", r2toR1)
		if b.InPkts <= a.InPkts || b.OutPkts <= a.OutPkts || b.InOctets <= a.InOctets || b.OutOctets <= a.OutOctets {
			t.Errorf("counters did not move in a minute: %+v -> %+v", a, b)
		}
		// 1 Gb/s: 5 to 15 background packets a second each way, plus hellos.
		if d := b.InPkts - a.InPkts; d < 300 || d > 1000 {
			t.Errorf("%d packets in a minute, want 300-1000", d)
		}
		if b.InErrors != 0 || b.InDiscards != 0 {
			t.Errorf("errors or discards without a fault: %+v", b)
		}
		if again := get(t, n, "r2", r2toR1); again != b {
			t.Errorf("same clock, other counters: %+v then %+v", b, again)
		}
	})
	t.Run("ACL drops count as in-discards where they happen", func(t *testing.T) {
		n, c := clockedLab(t, withBGPBlock(defaultLab(t), "r2", r2toR1))
		c.advance(10 * time.Minute)
		if d := get(t, n, "r2", r2toR1).InDiscards; d == 0 {
			t.Error("r2: no in-discards with its ACL dropping BGP")
		}
		if d := get(t, n, "r1", r1toR2).InDiscards; d != 0 {
			t.Errorf("r1: %d in-discards, want 0", d)
		}
	})
	t.Run("loss counts as in-errors at the receiver", func(t *testing.T) {
		f := topology.Fault{Kind: topology.FaultLoss, Link: "r1:" + r1toR2, Percent: 30}
		tp := defaultLab(t)
		tp.Faults = append(tp.Faults, f)
		n, c := clockedLab(t, tp)
		c.advance(time.Minute)
		if _, err := n.Ping(ProbeRequest{From: "r1", Destination: addr("10.0.12.2"), Count: 20}); err != nil {
			t.Fatal(err)
		}
		in := get(t, n, "r2", r2toR1)
		if in.InErrors == 0 {
			t.Fatalf("no in-errors with 30%% loss: %+v", in)
		}
		ratio := float64(in.InErrors) / float64(in.InErrors+in.InPkts)
		if ratio < 0.2 || ratio > 0.4 {
			t.Errorf("in-errors %.2f of what arrived, want about 0.3", ratio)
		}
	})
	t.Run("clear resets, stamps and starts again", func(t *testing.T) {
		n, c := clockedLab(t, defaultLab(t))
		c.advance(time.Hour)
		if _, err := n.Ping(ProbeRequest{From: "r1", Destination: addr("10.0.12.2"), Count: 5}); err != nil {
			t.Fatal(err)
		}
		other := get(t, n, "r2", r2toR3)
		if err := n.ClearCounters("r2", r2toR1); err != nil {
			t.Fatal(err)
		}
		z := get(t, n, "r2", r2toR1)
		if z.InPkts != 0 || z.OutPkts != 0 || z.InOctets != 0 || !z.LastClear.Equal(c.t) {
			t.Errorf("after clear: %+v, want zero counters cleared at %v", z, c.t)
		}
		if got := get(t, n, "r2", r2toR3); got != other {
			t.Errorf("clearing one interface moved another: %+v -> %+v", other, got)
		}
		c.advance(time.Second)
		if got := get(t, n, "r2", r2toR1); got.InPkts > 30 {
			t.Errorf("%d packets a second after the clear", got.InPkts)
		}
		if err := n.ClearCounters("r2", ""); err != nil {
			t.Fatal(err)
		}
		if got := get(t, n, "r2", r2toR3); got.InPkts != 0 || got.LastClear.IsZero() {
			t.Errorf("clear all left %+v", got)
		}
		if err := n.ClearCounters("r2", "Nope0"); err == nil {
			t.Error("clearing an unknown interface: no error")
		}
	})
	t.Run("a change keeps what was counted", func(t *testing.T) {
		n, c := clockedLab(t, defaultLab(t))
		for i := 0; i < 2*maxRetired+1; i++ {
			c.advance(time.Minute)
			before := get(t, n, "r2", r2toR1)
			d, _ := n.Device("r2")
			d.Interfaces[1].Description = strings.Repeat("x", i+1)
			if err := n.UpdateDevice(d); err != nil {
				t.Fatal(err)
			}
			if after := get(t, n, "r2", r2toR1); after != before {
				t.Fatalf("change %d: counters %+v -> %+v", i, before, after)
			}
		}
		// Changes nobody looked at in between: still monotonic.
		before := get(t, n, "r2", r2toR1)
		for i := 0; i < 3; i++ {
			c.advance(time.Minute)
			d, _ := n.Device("r2")
			d.Interfaces[1].Description = "unobserved " + strings.Repeat("y", i+1)
			if err := n.UpdateDevice(d); err != nil {
				t.Fatal(err)
			}
		}
		if after := get(t, n, "r2", r2toR1); after.InPkts < before.InPkts+3*300 {
			t.Errorf("three unobserved minutes: in-pkts %d -> %d", before.InPkts, after.InPkts)
		}
		d, _ := n.Device("r2")
		d.Interfaces[1].Shutdown = true
		if err := n.UpdateDevice(d); err != nil {
			t.Fatal(err)
		}
		before = get(t, n, "r2", r2toR1)
		c.advance(time.Minute)
		if after := get(t, n, "r2", r2toR1); after.InPkts != before.InPkts {
			t.Errorf("a shut interface received %d packets", after.InPkts-before.InPkts)
		}
	})
}

// TestLLDP: neighbours from links, with what each neighbour advertises.
func TestLLDP(t *testing.T) {
	tests := []struct {
		name   string
		change func(*topology.Topology)
		dev    string
		want   map[string]string // local interface -> neighbour system name
	}{
		{"default", nil, "r2", map[string]string{r2toR1: "r1", r2toR3: "r3"}},
		{"hosts run LLDP", nil, "h3", map[string]string{"eth0": "r3"}},
		{"disabled on r1", func(tp *topology.Topology) { tp.Devices[0].LLDP = &topology.LLDP{Disabled: true} }, "r2", map[string]string{r2toR3: "r3"}},
		{"disabled here", func(tp *topology.Topology) { tp.Devices[1].LLDP = &topology.LLDP{Disabled: true} }, "r2", map[string]string{}},
		{"link down", func(tp *topology.Topology) {
			tp.Faults = append(tp.Faults, topology.Fault{Kind: topology.FaultLinkDown, Link: "r2:" + r2toR3})
		}, "r2", map[string]string{r2toR1: "r1"}},
		{"peer shut", func(tp *topology.Topology) { tp.Devices[0].Interfaces[2].Shutdown = true }, "r2", map[string]string{r2toR3: "r3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tp := defaultLab(t)
			if tc.change != nil {
				tc.change(&tp)
			}
			n, _ := clockedLab(t, tp)
			nbs, err := n.LLDPNeighbors(tc.dev)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, nb := range nbs {
				got[nb.LocalInterface] = nb.SystemName
			}
			if len(got) != len(tc.want) {
				t.Fatalf("neighbours %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("on %s: %q, want %q", k, got[k], v)
				}
			}
		})
	}
	n, _ := clockedLab(t, defaultLab(t))
	nbs, _ := n.LLDPNeighbors("r2")
	r1 := nbs[0]
	st, _ := n.InterfaceState("r1", "LoopBack0")
	if r1.PortID != r1toR2 || r1.PortDescription != "to r2 Gi0/0/0/0" || r1.ManagementAddress != addr("10.255.0.1") ||
		len(r1.Capabilities) != 1 || r1.Capabilities[0] != LLDPCapRouter || r1.ChassisID != st.MAC || r1.TTL != LLDPTTL {
		t.Errorf("r1 as r2 sees it: %+v (r1's first interface MAC %s)", r1, st.MAC)
	}
	if len(r1.CustomTLVs) != 1 || r1.CustomTLVs[0].OUIString() != "00:00:5e" || r1.CustomTLVs[0].Subtype != 1 || string(r1.CustomTLVs[0].Value) != "netmcp" {
		t.Errorf("r1's custom TLVs: %+v", r1.CustomTLVs)
	}
	if _, err := n.LLDPNeighbors("nope"); err == nil {
		t.Error("unknown device: no error")
	}
}

// TestPCAPReadByTcpdump: tcpdump reads the capture, finds no bad checksum
// and prints the same lines as Summary.
func TestPCAPReadByTcpdump(t *testing.T) {
	td, err := exec.LookPath("tcpdump")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI is set but tcpdump is not installed (scripts/install-deps.sh installs it)")
		}
		t.Skip("tcpdump is not installed (scripts/install-deps.sh installs it): the pcap is not checked against it")
	}
	for _, block := range []bool{false, true} {
		tp := defaultLab(t)
		if block {
			tp = withBGPBlock(tp, "r2", r2toR1)
		}
		n, c := clockedLab(t, tp)
		c.advance(10 * time.Minute)
		for _, dst := range []string{"10.255.0.3", "2001:db8:255::3"} {
			if _, err := n.Ping(ProbeRequest{From: "r1", Destination: addr(dst), Count: 2}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := n.Traceroute(ProbeRequest{From: "r1", Destination: addr("10.3.0.10"), Count: 1}); err != nil {
			t.Fatal(err)
		}
		c.advance(3 * time.Second)
		ps := capture(t, n, "r2", CaptureFilter{Interface: r2toR1, Window: 130 * time.Second, MaxPackets: 5000})
		file := filepath.Join(t.TempDir(), "c.pcap")
		if err := os.WriteFile(file, EncodePCAP(ps), 0o600); err != nil {
			t.Fatal(err)
		}
		run := func(args ...string) string {
			cmd := exec.Command(td, append(args, "-r", file)...)
			cmd.Env = append(os.Environ(), "TZ=UTC")
			var out, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("tcpdump %v: %v\n%s", args, err, stderr.String())
			}
			return out.String()
		}
		lines := strings.Split(strings.TrimSpace(run("-n", "-S")), "\n") // -S: absolute sequence numbers, as Summary prints them
		if len(lines) != len(ps) {
			t.Fatalf("tcpdump read %d packets, the capture has %d", len(lines), len(ps))
		}
		for i, p := range ps {
			if lines[i] != p.Summary() {
				t.Errorf("packet %d:\ntcpdump: %s\nsummary: %s", i, lines[i], p.Summary())
			}
		}
		verbose := run("-n", "-vvv")
		for _, bad := range []string{"bad cksum", "incorrect", "[|", "malformed", "invalid"} {
			if strings.Contains(verbose, bad) {
				t.Errorf("tcpdump -vvv says %q:\n%s", bad, verbose)
			}
		}
		if !block && !strings.Contains(verbose, "Keepalive Message") {
			t.Errorf("tcpdump -vvv decodes no BGP keepalive:\n%s", verbose)
		}
	}
}

// TestTrafficConcurrent: pings, captures, counter reads and clears and
// changes at once (run with -race).
func TestTrafficConcurrent(t *testing.T) {
	n, _ := clockedLab(t, defaultLab(t))
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				switch (w + i) % 5 {
				case 0:
					_, _ = n.Ping(ProbeRequest{From: "r1", Destination: addr("10.255.0.3"), Count: 2})
				case 1:
					_, _ = n.Capture("r2", CaptureFilter{Interface: r2toR1, Window: time.Minute})
				case 2:
					_, _ = n.InterfaceState("r2", r2toR1)
				case 3:
					_ = n.ClearCounters("r2", "")
				case 4:
					d, _ := n.Device("r3")
					d.Interfaces[0].Description = fmt.Sprint(w, i)
					_ = n.UpdateDevice(d)
				}
			}
		}(w)
	}
	wg.Wait()
}
