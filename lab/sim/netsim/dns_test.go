package netsim

import (
	"strings"
	"testing"

	"github.com/netmcp/netmcp/lab/topology"
)

// answerText writes a message as "RCODE aa|- answer;answer / authority".
func answerText(m DNSMessage) string {
	aa := "-"
	if m.Authoritative {
		aa = "aa"
	}
	var ans, auth []string
	for _, r := range m.Answer {
		ans = append(ans, r.Name+" "+r.Type+" "+r.Data)
	}
	for _, r := range m.Authority {
		auth = append(auth, r.Type)
	}
	return m.Rcode + " " + aa + " " + strings.Join(ans, ";") + " / " + strings.Join(auth, ";")
}

// TestAnswerDNS checks the service's answers, record by record type.
func TestAnswerDNS(t *testing.T) {
	svc := &topology.DNSService{Zones: []topology.DNSZone{labZone(), reverseZone()}}
	tests := []struct{ name, qtype, want string }{
		{"r1.lab.example", "A", "NOERROR aa r1.lab.example. A 10.255.0.1 / "},
		{"R1.Lab.Example.", "A", "NOERROR aa r1.lab.example. A 10.255.0.1 / "},
		{"h3.lab.example", "AAAA", "NOERROR aa h3.lab.example. AAAA 2001:db8:3::10 / "},
		// CNAMEs are chased within the zone.
		{"www.lab.example", "A", "NOERROR aa www.lab.example. CNAME mail.lab.example.;mail.lab.example. CNAME h3.lab.example.;h3.lab.example. A 10.3.0.10 / "},
		{"www.lab.example", "CNAME", "NOERROR aa www.lab.example. CNAME mail.lab.example. / "},
		// Out of the zone: the CNAME alone, for the resolver to chase.
		{"ext.lab.example", "A", "NOERROR aa ext.lab.example. CNAME www.example.org. / "},
		{"lab.example", "MX", "NOERROR aa lab.example. MX 10 mail.lab.example. / "},
		{"lab.example", "TXT", `NOERROR aa lab.example. TXT "v=spf1 -all" / `},
		{"lab.example", "NS", "NOERROR aa lab.example. NS ns.lab.example. / "},
		{"lab.example", "SOA", "NOERROR aa lab.example. SOA ns.lab.example. hostmaster.lab.example. 1 3600 900 604800 300 / "},
		{"10.0.3.10.in-addr.arpa", "PTR", "NOERROR aa 10.0.3.10.in-addr.arpa. PTR h3.lab.example. / "},
		// A name without records of the type: empty answer, the SOA.
		{"h3.lab.example", "MX", "NOERROR aa  / SOA"},
		{"sub.lab.example", "A", "NOERROR aa  / SOA"}, // an empty non-terminal
		{"nope.lab.example", "A", "NXDOMAIN aa  / SOA"},
		{"example.com", "A", "REFUSED -  / "},
	}
	for _, tc := range tests {
		m, err := AnswerDNS(svc, tc.name, tc.qtype)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.name, tc.qtype, err)
		}
		if got := answerText(m); got != tc.want {
			t.Errorf("%s %s:\n got %s\nwant %s", tc.name, tc.qtype, got, tc.want)
		}
	}
	bad := &topology.DNSService{Zones: []topology.DNSZone{{Name: "x", Records: []topology.DNSRecord{{Name: "a", Type: "A", Value: "2001:db8::1"}}}}}
	if _, err := AnswerDNS(bad, "a.x", "A"); err == nil || !strings.Contains(err.Error(), "not an IPv4 address") {
		t.Errorf("bad record: %v", err)
	}
}

// TestDNSQuery checks queries through the network: answers, a stopped
// service, ACLs on port 53 either way, a wrong record, link state, loss,
// a wrong resolver and local queries.
func TestDNSQuery(t *testing.T) {
	const h3 = "10.3.0.10"
	deny53 := func(dir string, rules ...topology.ACLEntry) func(*topology.Topology) {
		return func(t *topology.Topology) {
			editDevice(t, "r3", func(d *topology.Device) {
				d.ACLs = []topology.ACL{{Name: "NO-DNS", Rules: append(rules, topology.ACLEntry{Seq: 100, Action: "permit", Protocol: "ip"})}}
				if dir == "in" {
					d.Interfaces[1].IngressACL = "NO-DNS"
				} else {
					d.Interfaces[1].EgressACL = "NO-DNS"
				}
			})
		}
	}
	tests := []struct {
		name            string
		edit            func(*topology.Topology)
		faults          []topology.Fault
		from, server, q string
		want            string
	}{
		{name: "answer", from: "r1", server: h3, q: "www.lab.example", want: "NOERROR CNAME mail.lab.example.,CNAME h3.lab.example.,A 10.3.0.10"},
		{name: "nxdomain", from: "r1", server: h3, q: "nope.lab.example", want: "NXDOMAIN "},
		{name: "refused zone", from: "r1", server: h3, q: "example.com", want: "REFUSED "},
		{name: "dns_service_down", from: "r1", server: h3, q: "r1.lab.example", want: DNSRefused,
			edit: func(t *topology.Topology) {
				editDevice(t, "h3", func(d *topology.Device) { d.DNS.Disabled = true })
			}},
		{name: "no service on the server", from: "r1", server: "10.3.0.100", q: "r1.lab.example", want: DNSRefused},
		{name: "dns_port_blocked in (queries)", from: "r1", server: h3, q: "r1.lab.example", want: DNSTimedOut,
			edit: deny53("in", topology.ACLEntry{Seq: 10, Action: "deny", Protocol: "udp", DstPort: 53}, topology.ACLEntry{Seq: 20, Action: "deny", Protocol: "tcp", DstPort: 53})},
		{name: "dns_port_blocked in: the LAN still resolves", from: "h4", server: h3, q: "r1.lab.example", want: "NOERROR A 10.255.0.1",
			edit: deny53("in", topology.ACLEntry{Seq: 10, Action: "deny", Protocol: "udp", DstPort: 53})},
		{name: "dns_port_blocked out (answers)", from: "r1", server: h3, q: "r1.lab.example", want: DNSTimedOut,
			edit: deny53("out", topology.ACLEntry{Seq: 10, Action: "deny", Protocol: "udp", SrcPort: 53})},
		{name: "ACL for another port", from: "r1", server: h3, q: "r1.lab.example", want: "NOERROR A 10.255.0.1",
			edit: deny53("in", topology.ACLEntry{Seq: 10, Action: "deny", Protocol: "udp", DstPort: 54})},
		{name: "dns_record_error", from: "r1", server: h3, q: "r1.lab.example", want: "NOERROR A 10.255.0.99",
			edit: func(t *topology.Topology) {
				editDevice(t, "h3", func(d *topology.Device) { d.DNS.Zones[0].Records[3].Value = "10.255.0.99" })
			}},
		{name: "link down: no route", from: "r1", server: h3, q: "r1.lab.example", want: DNSNetUnreachable,
			faults: []topology.Fault{{Kind: topology.FaultLinkDown, Link: "r2:Gi0/0/1"}}},
		{name: "total loss", from: "r1", server: h3, q: "r1.lab.example", want: DNSTimedOut,
			faults: []topology.Fault{{Kind: topology.FaultLoss, Link: "r2:Gi0/0/1", Percent: 100}}},
		{name: "host_incorrect_dns (nobody at the address)", from: "h4", server: "10.3.0.99", q: "r1.lab.example", want: DNSHostUnreachable},
		{name: "host_crash of the server", from: "r1", server: h3, q: "r1.lab.example", want: DNSHostUnreachable,
			faults: []topology.Fault{{Name: FaultHostCrash, Target: "h3"}}},
		{name: "local service", from: "h3", server: "127.0.0.1", q: "h3.lab.example", want: "NOERROR A 10.3.0.10"},
		{name: "own address", from: "h3", server: h3, q: "h3.lab.example", want: "NOERROR A 10.3.0.10"},
		{name: "no local service", from: "h4", server: "127.0.0.1", q: "h3.lab.example", want: DNSRefused},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			topo := hostLab()
			if tc.edit != nil {
				tc.edit(&topo)
			}
			n := newLab(t, topo, tc.faults...)
			if got := digKind(t, n, tc.from, tc.server, tc.q, "A"); got != tc.want {
				t.Errorf("%s -> %s %s: %s, want %s", tc.from, tc.server, tc.q, got, tc.want)
			}
		})
	}
}

// TestDNSQueryDetails checks the outcome's source, RTT, size and that the
// query and the answer move the interface counters.
func TestDNSQueryDetails(t *testing.T) {
	n := newLab(t, hostLab())
	before, _ := n.InterfaceState("r3", "Gi0/0/1")
	o, err := n.DNSQuery(DNSQuery{From: "r1", Server: addr("10.3.0.10"), Name: "r1.lab.example"})
	if err != nil {
		t.Fatal(err)
	}
	if o.Kind != DNSAnswered || o.Source != addr("10.0.12.1") || o.ServerDevice != "h3" || o.RTT <= 0 {
		t.Fatalf("outcome %+v", o)
	}
	// 12 header + 20 question + 16 answer (compressed name) + 11 OPT.
	if o.Size != 59 {
		t.Errorf("size %d, want 59", o.Size)
	}
	after, _ := n.InterfaceState("r3", "Gi0/0/1")
	if after.Counters.OutPkts != before.Counters.OutPkts+1 || after.Counters.InPkts != before.Counters.InPkts+1 {
		t.Errorf("r3's LAN counters: before %+v after %+v", before.Counters, after.Counters)
	}
	if _, err := n.DNSQuery(DNSQuery{From: "r1", Name: "x"}); err == nil {
		t.Error("query without a server accepted")
	}
	if _, err := n.DNSQuery(DNSQuery{From: "r9", Server: addr("10.3.0.10"), Name: "x"}); err == nil {
		t.Error("query from no device accepted")
	}
}

// TestDNSServerFirewall checks dns_port_blocked on the server itself: an
// ACL on h3's interface, inbound on the queries or outbound on the
// answers (a host's output chain filters its own packets).
func TestDNSServerFirewall(t *testing.T) {
	for _, dir := range []string{"in", "out"} {
		topo := hostLab()
		editDevice(&topo, "h3", func(d *topology.Device) {
			rule := topology.ACLEntry{Seq: 10, Action: "deny", Protocol: "udp", DstPort: 53}
			if dir == "out" {
				rule = topology.ACLEntry{Seq: 10, Action: "deny", Protocol: "udp", SrcPort: 53}
			}
			d.ACLs = []topology.ACL{{Name: "FW", Rules: []topology.ACLEntry{rule, {Seq: 20, Action: "permit", Protocol: "ip"}}}}
			if dir == "in" {
				d.Interfaces[0].IngressACL = "FW"
			} else {
				d.Interfaces[0].EgressACL = "FW"
			}
		})
		n := newLab(t, topo)
		if got := digKind(t, n, "h4", "10.3.0.10", "r1.lab.example", "A"); got != DNSTimedOut {
			t.Errorf("%s: h4's query: %s, want %s", dir, got, DNSTimedOut)
		}
		if got := pingKind(t, n, "h4", "10.3.0.10"); got != ResultReply {
			t.Errorf("%s: ping h4 -> h3: %s", dir, got)
		}
	}
}

// BenchmarkDNSQuery measures one query from r1 to h3 and its answer,
// three router hops each way.
func BenchmarkDNSQuery(b *testing.B) {
	n := newLab(b, hostLab())
	q := DNSQuery{From: "r1", Server: addr("10.3.0.10"), Name: "www.lab.example", Type: "A"}
	b.ReportAllocs()
	for b.Loop() {
		if o, err := n.DNSQuery(q); err != nil || o.Kind != DNSAnswered {
			b.Fatal(o.Kind, err)
		}
	}
}
