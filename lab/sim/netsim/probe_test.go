package netsim

import (
	"strings"
	"testing"

	"github.com/netmcp/netmcp/lab/topology"
)

// kinds lists the result kinds of a ping's replies, compactly.
func kinds(o PingOutcome) string {
	var s []string
	for _, r := range o.Replies {
		s = append(s, r.Kind)
	}
	return strings.Join(s, ",")
}

func repeat(kind string, n int) string {
	return strings.TrimSuffix(strings.Repeat(kind+",", n), ",")
}

func TestPing(t *testing.T) {
	acl := func(rules ...topology.ACLEntry) []topology.ACL {
		return []topology.ACL{{Name: "F", Rules: rules}}
	}
	withDevice := func(name string, f func(d *topology.Device)) func(*topology.Topology) {
		return func(tp *topology.Topology) {
			for i := range tp.Devices {
				if tp.Devices[i].Name == name {
					f(&tp.Devices[i])
				}
			}
		}
	}
	setIf := func(dev, ifn string, f func(i *topology.Interface)) func(*topology.Topology) {
		return withDevice(dev, func(d *topology.Device) {
			for i := range d.Interfaces {
				if d.Interfaces[i].Name == ifn {
					f(&d.Interfaces[i])
				}
			}
		})
	}
	tests := []struct {
		name   string
		mutate func(*topology.Topology)
		faults []topology.Fault
		req    ProbeRequest
		kinds  string // comma-separated result kinds, 3 pings
		from   string // answering address of the first probe
		ttl    int    // TTL of the first answer
		err    string // outcome Error
	}{
		{name: "host to far loopback, 2 routers decrement a router's 255",
			req: ProbeRequest{From: "h1", Destination: addr("3.3.3.3")}, kinds: repeat(ResultReply, 3), from: "3.3.3.3", ttl: 253},
		{name: "host to host on the switched LAN",
			req: ProbeRequest{From: "h1", Destination: addr("10.0.1.11")}, kinds: repeat(ResultReply, 3), from: "10.0.1.11", ttl: 64},
		{name: "router to host: 64 minus 0 hops",
			req: ProbeRequest{From: "r3", Destination: addr("10.0.1.10")}, kinds: repeat(ResultReply, 3), from: "10.0.1.10", ttl: 62},
		{name: "switch SVI answers",
			req: ProbeRequest{From: "h1", Destination: addr("10.0.1.2")}, kinds: repeat(ResultReply, 3), from: "10.0.1.2", ttl: 255},
		{name: "IPv6 end to end",
			req: ProbeRequest{From: "h1", Destination: addr("2001:db8::3")}, kinds: repeat(ResultReply, 3), from: "2001:db8::3", ttl: 253},
		{name: "unmodelled static neighbor answers",
			req: ProbeRequest{From: "h1", Destination: addr("10.0.3.50")}, kinds: repeat(ResultReply, 3), from: "10.0.3.50", ttl: 61},
		{name: "static neighbor that is down: host unreachable from the last router",
			req: ProbeRequest{From: "h1", Destination: addr("10.0.3.51")}, kinds: repeat(ResultHostUnreachable, 3), from: "10.0.23.2", ttl: 253},
		{name: "no ARP entry on the last router",
			req: ProbeRequest{From: "h1", Destination: addr("10.0.3.99")}, kinds: repeat(ResultHostUnreachable, 3), from: "10.0.23.2", ttl: 253},
		{name: "no ARP entry on the sender itself",
			req: ProbeRequest{From: "r1", Destination: addr("10.0.1.99")}, kinds: repeat(ResultHostUnreachable, 3), from: "10.0.1.1"},
		{name: "transit router without a route: !N",
			req: ProbeRequest{From: "h1", Destination: addr("172.16.0.1")}, kinds: repeat(ResultNetUnreachable, 3), from: "10.0.1.1", ttl: 255},
		{name: "no route at the source: nothing sent",
			req: ProbeRequest{From: "r1", Destination: addr("172.16.0.1")}, err: errNetUnreachable},
		{name: "TTL 2 expires on r2, answered from its ingress address",
			req: ProbeRequest{From: "h1", Destination: addr("3.3.3.3"), TTL: 2}, kinds: repeat(ResultTimeExceeded, 3), from: "10.0.12.2", ttl: 254},
		{name: "traceroute's MaxHops is not ping's TTL",
			req: ProbeRequest{From: "h1", Destination: addr("3.3.3.3"), MaxHops: 2}, kinds: repeat(ResultReply, 3), from: "3.3.3.3", ttl: 253},
		{name: "own address answers locally",
			req: ProbeRequest{From: "r2", Destination: addr("2.2.2.2")}, kinds: repeat(ResultReply, 3), from: "2.2.2.2", ttl: 255},
		{name: "VRF isolation: the global table has no route to the VRF",
			req: ProbeRequest{From: "h1", Destination: addr("192.168.0.2")}, kinds: repeat(ResultNetUnreachable, 3), from: "10.0.1.1", ttl: 255},
		{name: "VRF isolation: the VRF has no route to the global table",
			req: ProbeRequest{From: "r3", VRF: "cust", Destination: addr("10.0.1.10")}, err: errNetUnreachable},
		{name: "inside the VRF",
			req: ProbeRequest{From: "r3", VRF: "cust", Destination: addr("192.168.0.2")}, kinds: repeat(ResultReply, 3), from: "192.168.0.2", ttl: 64},
		{name: "static route recursion through the IGP reaches r2's discard route",
			req: ProbeRequest{From: "r3", Destination: addr("10.99.1.1")}, kinds: repeat(ResultLost, 3)},
		{name: "link-down withdraws the IGP routes everywhere: the first router answers !N",
			faults: []topology.Fault{{Kind: topology.FaultLinkDown, Link: "r3:" + g0}},
			req:    ProbeRequest{From: "h1", Destination: addr("3.3.3.3")}, kinds: repeat(ResultNetUnreachable, 3), from: "10.0.1.1", ttl: 255},
		{name: "link-down: a static route on r1 still sends to r2, which answers !N",
			mutate: withDevice("r1", func(d *topology.Device) {
				d.Routes = append(d.Routes, topology.StaticRoute{Prefix: "3.3.3.0/24", NextHop: "10.0.12.2"})
			}),
			faults: []topology.Fault{{Kind: topology.FaultLinkDown, Link: "r3:" + g0}},
			req:    ProbeRequest{From: "h1", Destination: addr("3.3.3.3")}, kinds: repeat(ResultNetUnreachable, 3), from: "10.0.12.2", ttl: 254},
		{name: "acl-drop fault: silent loss",
			faults: []topology.Fault{{Kind: topology.FaultACLDrop, Interface: "r2:" + g0, Destination: "3.3.3.0/24"}},
			req:    ProbeRequest{From: "h1", Destination: addr("3.3.3.3")}, kinds: repeat(ResultLost, 3)},
		{name: "acl-drop fault for another destination does not drop",
			faults: []topology.Fault{{Kind: topology.FaultACLDrop, Interface: "r2:" + g0, Destination: "9.9.9.9"}},
			req:    ProbeRequest{From: "h1", Destination: addr("3.3.3.3")}, kinds: repeat(ResultReply, 3), from: "3.3.3.3", ttl: 253},
		{name: "mtu fault with DF: frag needed from the router before the small link",
			faults: []topology.Fault{{Kind: topology.FaultMTU, Interface: "r2:" + g1, MTU: 1400}},
			req:    ProbeRequest{From: "h1", Destination: addr("3.3.3.3"), Size: 1472, DontFragment: true}, kinds: repeat(ResultFragNeeded, 3), from: "10.0.12.2", ttl: 254},
		{name: "mtu fault without DF: fragments go through",
			faults: []topology.Fault{{Kind: topology.FaultMTU, Interface: "r2:" + g1, MTU: 1400}},
			req:    ProbeRequest{From: "h1", Destination: addr("3.3.3.3"), Size: 1472}, kinds: repeat(ResultReply, 3), from: "3.3.3.3", ttl: 253},
		{name: "DF packet that fits",
			faults: []topology.Fault{{Kind: topology.FaultMTU, Interface: "r2:" + g1, MTU: 1400}},
			req:    ProbeRequest{From: "h1", Destination: addr("3.3.3.3"), Size: 1372, DontFragment: true}, kinds: repeat(ResultReply, 3), from: "3.3.3.3", ttl: 253},
		{name: "ACL first match: an earlier deny wins over a later permit",
			mutate: func(tp *topology.Topology) {
				withDevice("r2", func(d *topology.Device) {
					d.ACLs = acl(topology.ACLEntry{Seq: 10, Action: "deny", Protocol: "icmp", Source: "10.0.1.10/32"},
						topology.ACLEntry{Seq: 20, Action: "permit", Protocol: "ip"})
				})(tp)
				setIf("r2", g0, func(i *topology.Interface) { i.IngressACL = "F" })(tp)
			},
			req: ProbeRequest{From: "h1", Destination: addr("3.3.3.3")}, kinds: repeat(ResultLost, 3)},
		{name: "ACL first match: another source is permitted",
			mutate: func(tp *topology.Topology) {
				withDevice("r2", func(d *topology.Device) {
					d.ACLs = acl(topology.ACLEntry{Seq: 10, Action: "deny", Protocol: "icmp", Source: "10.0.1.10/32"},
						topology.ACLEntry{Seq: 20, Action: "permit", Protocol: "ip"})
				})(tp)
				setIf("r2", g0, func(i *topology.Interface) { i.IngressACL = "F" })(tp)
			},
			req: ProbeRequest{From: "h3", Destination: addr("3.3.3.3")}, kinds: repeat(ResultReply, 3), from: "3.3.3.3", ttl: 253},
		{name: "ACL implicit deny: only UDP permitted, ICMP dropped",
			mutate: func(tp *topology.Topology) {
				withDevice("r2", func(d *topology.Device) {
					d.ACLs = acl(topology.ACLEntry{Seq: 10, Action: "permit", Protocol: "udp", DstPort: 53})
				})(tp)
				setIf("r2", g0, func(i *topology.Interface) { i.IngressACL = "F" })(tp)
			},
			req: ProbeRequest{From: "h1", Destination: addr("3.3.3.3")}, kinds: repeat(ResultLost, 3)},
		{name: "IPv4-only ACL does not filter IPv6",
			mutate: func(tp *topology.Topology) {
				withDevice("r2", func(d *topology.Device) {
					d.ACLs = acl(topology.ACLEntry{Seq: 10, Action: "deny", Protocol: "ip", Source: "10.0.0.0/8"})
				})(tp)
				setIf("r2", g0, func(i *topology.Interface) { i.IngressACL = "F" })(tp)
			},
			req: ProbeRequest{From: "h1", Destination: addr("2001:db8::3")}, kinds: repeat(ResultReply, 3), from: "2001:db8::3", ttl: 253},
		{name: "one-way egress ACL: the request passes, the reply is dropped on the way back",
			mutate: func(tp *topology.Topology) {
				withDevice("r2", func(d *topology.Device) {
					d.ACLs = acl(topology.ACLEntry{Seq: 10, Action: "deny", Source: "3.3.3.3"}, topology.ACLEntry{Seq: 20, Action: "permit"})
				})(tp)
				setIf("r2", g0, func(i *topology.Interface) { i.EgressACL = "F" })(tp)
			},
			req: ProbeRequest{From: "h1", Destination: addr("3.3.3.3")}, kinds: repeat(ResultLost, 3)},
		{name: "admin-down interface on the path: routes withdrawn",
			mutate: setIf("r2", g1, func(i *topology.Interface) { i.Shutdown = true }),
			req:    ProbeRequest{From: "h1", Destination: addr("3.3.3.3")}, kinds: repeat(ResultNetUnreachable, 3), from: "10.0.1.1", ttl: 255},
		{name: "switch port down: the host LAN is cut",
			mutate: setIf("sw1", "Gi3", func(i *topology.Interface) { i.Shutdown = true }),
			req:    ProbeRequest{From: "h1", Destination: addr("10.0.1.1")}, kinds: repeat(ResultHostUnreachable, 3), from: "10.0.1.10"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			topo := lineLab()
			if tc.mutate != nil {
				tc.mutate(&topo)
			}
			n := newLab(t, topo, tc.faults...)
			if tc.req.Count == 0 {
				tc.req.Count = 3
			}
			o, err := n.Ping(tc.req)
			if err != nil {
				t.Fatalf("Ping: %v", err)
			}
			if o.Error != tc.err {
				t.Fatalf("Error = %q, want %q\n%s", o.Error, tc.err, o.Render())
			}
			if tc.err != "" {
				if o.ExitCode() != 2 || len(o.Replies) != 0 {
					t.Errorf("exit %d with %d replies, want 2 and none", o.ExitCode(), len(o.Replies))
				}
				return
			}
			if got := kinds(o); got != tc.kinds {
				t.Fatalf("kinds = %s, want %s\n%s", got, tc.kinds, o.Render())
			}
			first := o.Replies[0]
			if tc.from != "" && first.From.String() != tc.from {
				t.Errorf("from = %s, want %s\n%s", first.From, tc.from, o.Render())
			}
			if first.TTL != tc.ttl {
				t.Errorf("ttl = %d, want %d\n%s", first.TTL, tc.ttl, o.Render())
			}
			wantExit := 1
			if first.Kind == ResultReply {
				wantExit = 0
			}
			if o.ExitCode() != wantExit {
				t.Errorf("exit = %d, want %d", o.ExitCode(), wantExit)
			}
		})
	}
}

func TestPingRTT(t *testing.T) {
	n := newLab(t, lineLab())
	local, _ := n.Ping(ProbeRequest{From: "r2", Destination: addr("2.2.2.2"), Count: 1})
	if rtt := local.Replies[0].RTT.Seconds() * 1000; rtt < 0.02 || rtt > 0.05 {
		t.Errorf("own address RTT = %.3f ms, want about 0.03", rtt)
	}
	// h1 -> sw1 -> r1 -> r2 -> r3 (0.5+0.5+0.5+2 ms one way) and back: 7 ms plus processing.
	far, _ := n.Ping(ProbeRequest{From: "h1", Destination: addr("3.3.3.3"), Count: 5})
	for _, r := range far.Replies {
		if ms := r.RTT.Seconds() * 1000; ms < 7 || ms > 7.2 {
			t.Errorf("seq %d RTT = %.3f ms, want 7-7.2", r.Seq, ms)
		}
	}
	if far.Replies[0].RTT == far.Replies[1].RTT && far.Replies[1].RTT == far.Replies[2].RTT {
		t.Errorf("no jitter: every RTT is %v", far.Replies[0].RTT)
	}
	// A delay fault adds both ways.
	if err := n.SetFaults([]topology.Fault{{Kind: topology.FaultDelay, Link: "r1:" + g0, DelayMS: 20}}); err != nil {
		t.Fatal(err)
	}
	slow, _ := n.Ping(ProbeRequest{From: "h1", Destination: addr("3.3.3.3"), Count: 1})
	if ms := slow.Replies[0].RTT.Seconds() * 1000; ms < 47 || ms > 47.2 {
		t.Errorf("RTT with 20 ms delay fault = %.3f ms, want 47-47.2", ms)
	}
}

func TestLossDeterministic(t *testing.T) {
	run := func(seed int64) int {
		topo := lineLab()
		topo.Faults = []topology.Fault{{Kind: topology.FaultLoss, Link: "r2:" + g0, Percent: 30}}
		n, err := New(topo, Options{Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		o, err := n.Ping(ProbeRequest{From: "h1", Destination: addr("3.3.3.3"), Count: 100})
		if err != nil {
			t.Fatal(err)
		}
		if o.Errors() != 0 {
			t.Fatalf("loss produced errors:\n%s", o.Render())
		}
		return len(o.Replies) - o.Received()
	}
	a, b := run(7), run(7)
	if a != b {
		t.Fatalf("same seed, different loss: %d then %d", a, b)
	}
	// 30% each way: a round trip survives with 0.7*0.7 = 49%, so about 51 lost.
	for _, seed := range []int64{1, 2, 3, 7} {
		lost := run(seed)
		if lost < 36 || lost > 66 {
			t.Errorf("seed %d: %d of 100 lost, want about 51 (30%% each way)", seed, lost)
		}
	}
}

func TestTraceroute(t *testing.T) {
	tests := []struct {
		name    string
		faults  []topology.Fault
		req     ProbeRequest
		path    []string // first answering address per hop ("*" for none)
		reached bool
		last    string // annotation of the last hop
	}{
		{name: "three hops", req: ProbeRequest{From: "h1", Destination: addr("3.3.3.3")},
			path: []string{"10.0.1.1", "10.0.12.2", "3.3.3.3"}, reached: true},
		{name: "IPv6", req: ProbeRequest{From: "h1", Destination: addr("2001:db8::3")},
			path: []string{"2001:db8:1::1", "2001:db8:12::2", "2001:db8::3"}, reached: true},
		{name: "ICMP probes", req: ProbeRequest{From: "h1", Destination: addr("3.3.3.3"), Protocol: "icmp"},
			path: []string{"10.0.1.1", "10.0.12.2", "3.3.3.3"}, reached: true},
		{name: "host unreachable at the end", req: ProbeRequest{From: "h1", Destination: addr("10.0.3.99")},
			path: []string{"10.0.1.1", "10.0.12.2", "10.0.23.2", "10.0.23.2"}, last: "!H"},
		{name: "net unreachable", faults: []topology.Fault{{Kind: topology.FaultLinkDown, Link: "r2:" + g1}},
			req: ProbeRequest{From: "h1", Destination: addr("3.3.3.3")}, path: []string{"10.0.1.1"}, last: "!N"},
		{name: "frag needed with DF", faults: []topology.Fault{{Kind: topology.FaultMTU, Interface: "r2:" + g1, MTU: 1400}},
			req:  ProbeRequest{From: "h1", Destination: addr("3.3.3.3"), Size: 1500, DontFragment: true},
			path: []string{"10.0.1.1", "10.0.12.2", "10.0.12.2"}, last: "!F-1400"},
		{name: "acl-drop: stars to the end", faults: []topology.Fault{{Kind: topology.FaultACLDrop, Interface: "r2:" + g0}},
			req:  ProbeRequest{From: "h1", Destination: addr("3.3.3.3"), MaxHops: 5},
			path: []string{"10.0.1.1", "*", "*", "*", "*"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := newLab(t, lineLab(), tc.faults...)
			o, err := n.Traceroute(tc.req)
			if err != nil {
				t.Fatal(err)
			}
			var path []string
			for _, h := range o.Hops {
				first := "*"
				for _, p := range h.Probes {
					if p.Kind != ResultLost {
						first = p.From.String()
						break
					}
				}
				path = append(path, first)
			}
			if strings.Join(path, " ") != strings.Join(tc.path, " ") {
				t.Fatalf("path = %v, want %v\n%s", path, tc.path, o.Render())
			}
			if o.Reached != tc.reached {
				t.Errorf("reached = %v, want %v", o.Reached, tc.reached)
			}
			last := o.Hops[len(o.Hops)-1].Probes[0].Annotation()
			if last != tc.last {
				t.Errorf("last annotation = %q, want %q", last, tc.last)
			}
		})
	}
}

func TestCountersMove(t *testing.T) {
	n := newLab(t, lineLab())
	before, _ := n.InterfaceState("r2", g0)
	swBefore, _ := n.InterfaceState("sw1", "Gi3")
	if _, err := n.Ping(ProbeRequest{From: "h1", Destination: addr("3.3.3.3"), Count: 4}); err != nil {
		t.Fatal(err)
	}
	after, _ := n.InterfaceState("r2", g0)
	swAfter, _ := n.InterfaceState("sw1", "Gi3")
	if d := after.Counters.InPkts - before.Counters.InPkts; d != 4 {
		t.Errorf("r2 %s in pkts +%d, want +4 (requests)", g0, d)
	}
	if d := after.Counters.OutPkts - before.Counters.OutPkts; d != 4 {
		t.Errorf("r2 %s out pkts +%d, want +4 (replies)", g0, d)
	}
	if d := after.Counters.InOctets - before.Counters.InOctets; d != 4*84 {
		t.Errorf("r2 %s in octets +%d, want %d", g0, d, 4*84)
	}
	if swAfter.Counters.OutPkts-swBefore.Counters.OutPkts != 4 || swAfter.Counters.InPkts-swBefore.Counters.InPkts != 4 {
		t.Errorf("switch trunk port counters did not move: %+v -> %+v", swBefore.Counters, swAfter.Counters)
	}
	// A silent drop counts as a discard where it happens.
	if err := n.SetFaults([]topology.Fault{{Kind: topology.FaultACLDrop, Interface: "r2:" + g0}}); err != nil {
		t.Fatal(err)
	}
	n.Ping(ProbeRequest{From: "h1", Destination: addr("3.3.3.3"), Count: 2})
	dropped, _ := n.InterfaceState("r2", g0)
	if d := dropped.Counters.InDiscards - after.Counters.InDiscards; d != 2 {
		t.Errorf("in discards +%d, want +2", d)
	}
}

func TestACLProtocolAndPort(t *testing.T) {
	topo := lineLab()
	for i := range topo.Devices {
		d := &topo.Devices[i]
		if d.Name != "r2" {
			continue
		}
		d.ACLs = []topology.ACL{{Name: "EDGE", Rules: []topology.ACLEntry{
			{Seq: 10, Action: "permit", Protocol: "icmp"},
			{Seq: 20, Action: "permit", Protocol: "udp", DstPort: 33434},
			{Seq: 30, Action: "deny", Protocol: "udp"},
		}}}
		d.Interfaces[0].IngressACL = "EDGE"
	}
	n := newLab(t, topo)
	// Default UDP probes use ports 33434, 33435, ...: those reaching r2
	// (from hop 2 on, ports 33437 and up) are denied.
	udp, _ := n.Traceroute(ProbeRequest{From: "h1", Destination: addr("3.3.3.3"), MaxHops: 3})
	if udp.Hops[1].Probes[0].Kind != ResultLost || udp.Reached {
		t.Errorf("UDP traceroute passed the ACL:\n%s", udp.Render())
	}
	// One probe per hop from port 33432: hop 2 uses 33433 (denied), hop 3
	// uses 33434 (permitted) and reaches the destination.
	one, _ := n.Traceroute(ProbeRequest{From: "h1", Destination: addr("3.3.3.3"), Count: 1, DstPort: 33432, MaxHops: 3})
	if k := one.Hops[1].Probes[0].Kind; k != ResultLost {
		t.Errorf("port 33433 at hop 2 = %s, want lost\n%s", k, one.Render())
	}
	if !one.Reached {
		t.Errorf("port 33434 at hop 3 did not reach:\n%s", one.Render())
	}
	icmp, _ := n.Traceroute(ProbeRequest{From: "h1", Destination: addr("3.3.3.3"), Protocol: "icmp"})
	if !icmp.Reached {
		t.Errorf("ICMP traceroute blocked:\n%s", icmp.Render())
	}
}
