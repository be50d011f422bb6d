package sim_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/netproto"
)

// The YANG paths an operator (or the controller) reads, as COMMON.md
// fixes them.
const (
	niDefault = "/openconfig-network-instance:network-instances/network-instance[name=default]/protocols"
	bgpNbrs   = niDefault + "/protocol[identifier=openconfig-policy-types:BGP][name=bgp]/bgp/neighbors"
	ospfAreas = niDefault + "/protocol[identifier=openconfig-policy-types:OSPF][name=ospf]/ospfv2/areas"
)

// ifState is the openconfig-interfaces state path of an interface.
func ifState(name string) string {
	return "/openconfig-interfaces:interfaces/interface[name=" + name + "]/state"
}

// symptomRow is one fault of the catalog injected into the default lab,
// and the symptoms an operator sees through MCP sessions to the devices.
type symptomRow struct {
	fault string // the fault's words, as after `netmcp lab up --fault`
	check func(o *opsLab)
}

// has fails the test unless text contains every want.
func (o *opsLab) has(what, text string, want ...string) {
	o.t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			o.t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

// lacks fails the test if text contains any of bad.
func (o *opsLab) lacks(what, text string, bad ...string) {
	o.t.Helper()
	for _, b := range bad {
		if strings.Contains(text, b) {
			o.t.Errorf("%s shows %q:\n%s", what, b, text)
		}
	}
}

// matches fails the test unless text matches the regular expression.
func (o *opsLab) matches(what, text, re string) {
	o.t.Helper()
	if !regexp.MustCompile(re).MatchString(text) {
		o.t.Errorf("%s does not match %s:\n%s", what, re, text)
	}
}

// bgpNeighbor returns the state of one BGP neighbour of dev (YANG).
func (o *opsLab) bgpNeighbor(dev, addr string) map[string]any {
	o.t.Helper()
	var doc struct {
		Neighbor []struct {
			Address string         `json:"neighbor-address"`
			State   map[string]any `json:"state"`
		} `json:"neighbor"`
	}
	raw := o.yang(dev, bgpNbrs)
	if err := json.Unmarshal([]byte(raw), &doc); err != nil {
		o.t.Fatalf("%s BGP neighbors: %v: %s", dev, err, raw)
	}
	for _, n := range doc.Neighbor {
		if n.Address == addr {
			return n.State
		}
	}
	o.t.Fatalf("%s has no BGP neighbor %s: %s", dev, addr, raw)
	return nil
}

// anyError is a wantBGP last error that is not checked (an Established
// session keeps the error of its last reset, as FRR shows it).
const anyError = "*"

// wantBGP checks a neighbour's session state and last error ("" = none).
func (o *opsLab) wantBGP(dev, addr, state, lastErr string) {
	o.t.Helper()
	st := o.bgpNeighbor(dev, addr)
	if st["session-state"] != state {
		o.t.Errorf("%s BGP neighbor %s: session-state %v, want %s", dev, addr, st["session-state"], state)
	}
	if got, _ := st["netmcp-last-error"].(string); got != lastErr && lastErr != anyError {
		o.t.Errorf("%s BGP neighbor %s: last error %q, want %q", dev, addr, got, lastErr)
	}
}

// ospfNeighbor returns the adjacency state and reason of the neighbour
// with router id rid on dev (YANG); state "" when dev lists no such
// neighbour.
func (o *opsLab) ospfNeighbor(dev, rid string) (state, reason string) {
	o.t.Helper()
	var doc struct {
		Area []struct {
			Interfaces struct {
				Interface []struct {
					Neighbors struct {
						Neighbor []struct {
							RouterID string `json:"router-id"`
							State    struct {
								Adj    string `json:"adjacency-state"`
								Reason string `json:"netmcp-reason"`
							} `json:"state"`
						} `json:"neighbor"`
					} `json:"neighbors"`
				} `json:"interface"`
			} `json:"interfaces"`
		} `json:"area"`
	}
	raw := o.yang(dev, ospfAreas)
	if err := json.Unmarshal([]byte(raw), &doc); err != nil {
		o.t.Fatalf("%s OSPF areas: %v: %s", dev, err, raw)
	}
	for _, a := range doc.Area {
		for _, it := range a.Interfaces.Interface {
			for _, n := range it.Neighbors.Neighbor {
				if n.RouterID == rid {
					return strings.TrimPrefix(n.State.Adj, "openconfig-ospf-types:"), n.State.Reason
				}
			}
		}
	}
	return "", ""
}

// wantOSPF checks an adjacency's state ("" = not listed) and that its
// reason contains reason.
func (o *opsLab) wantOSPF(dev, rid, state, reason string) {
	o.t.Helper()
	got, why := o.ospfNeighbor(dev, rid)
	if got != state || !strings.Contains(why, reason) {
		o.t.Errorf("%s OSPF neighbor %s: %q (%q), want %q with a reason containing %q", dev, rid, got, why, state, reason)
	}
}

// loss pings from dev (count 5) and checks the loss in percent.
func (o *opsLab) loss(dev string, args map[string]any, want float64) pingResult {
	o.t.Helper()
	r := o.ping(dev, args)
	if r.Loss != want {
		o.t.Errorf("%s ping %v: loss %v%%, want %v%%: %s", dev, args, r.Loss, want, r.Text)
	}
	return r
}

// counters reads an interface's counters (YANG).
func (o *opsLab) counters(dev, ifn string) map[string]float64 {
	o.t.Helper()
	var st struct {
		Counters map[string]any `json:"counters"`
		Oper     string         `json:"oper-status"`
	}
	raw := o.yang(dev, ifState(ifn))
	if err := json.Unmarshal([]byte(raw), &st); err != nil {
		o.t.Fatalf("%s %s state: %v: %s", dev, ifn, err, raw)
	}
	out := map[string]float64{}
	for k, v := range st.Counters {
		switch n := v.(type) {
		case float64:
			out[k] = n
		case string:
			var f float64
			_ = json.Unmarshal([]byte(n), &f)
			out[k] = f
		}
	}
	return out
}

// operStatus reads an interface's oper-status (YANG).
func (o *opsLab) operStatus(dev, ifn string) string {
	o.t.Helper()
	var st struct {
		Oper string `json:"oper-status"`
	}
	raw := o.yang(dev, ifState(ifn))
	if err := json.Unmarshal([]byte(raw), &st); err != nil {
		o.t.Fatalf("%s %s state: %v: %s", dev, ifn, err, raw)
	}
	return st.Oper
}

// later moves the lab clock on and lets timed faults take their state.
func (o *opsLab) later(d time.Duration) {
	o.clock.Advance(d)
	o.lab.RefreshTimedFaults()
}

// bgpSegments returns the tcpdump lines of a capture on port 179 over the
// last window.
func (o *opsLab) bgpSegments(dev, ifn string, window time.Duration) captured {
	return o.capture(dev, map[string]any{"interface": ifn, "protocol": "tcp", "port": 179, "durationSeconds": window.Seconds()})
}

// dnsLookup runs dns_lookup on dev and returns the text of its result.
func (o *opsLab) dnsLookup(dev, name string) string {
	o.t.Helper()
	text, _, _ := o.call(dev, netproto.ToolDNSLookup, map[string]any{"destination": name})
	return text
}

const (
	r1Up  = "GigabitEthernet0/0/0"   // r1 to r2
	r2Dn  = "GigabitEthernet0/0/0/0" // r2 to r1
	r2Up  = "GigabitEthernet0/0/0/1" // r2 to r3
	r3Dn  = "GigabitEthernet0/0/0"   // r3 to r2
	r3LAN = "GigabitEthernet0/0/1"   // r3 to h3
	h3IP  = "10.3.0.10"
	r1RID = "10.255.0.1"
	r2RID = "10.255.0.2"
	r3RID = "10.255.0.3"
)

func dst(a string) map[string]any { return map[string]any{"destination": a} }

var symptomRows = []symptomRow{
	{"arp_acl_block r1:GigabitEthernet0/0/0", func(o *opsLab) {
		// No ARP: unicast to r2 fails (BGP, ping); OSPF's multicast hellos pass.
		o.lacks("r1 display arp", o.cli("r1", "display arp"), "10.0.12.2 ")
		o.loss("r1", dst("10.0.12.2"), 100)
		o.wantBGP("r1", "10.0.12.2", "ACTIVE", "Hold Timer Expired")
		o.wantOSPF("r1", r2RID, "FULL", "")
		o.has("r1 running configuration", o.cli("r1", "display current-configuration"), "NIKA-ARP-BLOCK")
	}},
	{"bgp_acl_block r2:GigabitEthernet0/0/0/0", func(o *opsLab) {
		o.wantBGP("r1", "10.0.12.2", "ACTIVE", "Hold Timer Expired")
		o.wantBGP("r2", "10.0.12.1", "ACTIVE", "Hold Timer Expired")
		o.wantBGP("r2", r3RID, "ESTABLISHED", "")
		o.wantOSPF("r1", r2RID, "FULL", "") // OSPF stays Full
		o.matches("r1 display bgp peer", o.cli("r1", "display bgp peer"), `10\.0\.12\.2 .* Active`)
		o.has("r2 show bgp neighbor", o.cli("r2", "show bgp neighbor 10.0.12.1"), "BGP state = Active", "Hold Timer Expired")
		o.has("r2 syslog", o.syslog("r2"), "%ROUTING-BGP-5-ADJCHANGE: neighbor 10.0.12.1 Down - Hold Timer Expired")
		o.has("r1 syslog", o.syslog("r1"), "PeerAddress=10.0.12.2", "CurrState=Active, Reason=Hold Timer Expired")
		// The eBGP route is gone; the floating static (distance 200) takes over.
		rt := o.cli("r1", "display ip routing-table")
		o.lacks("r1 routing table", rt, "EBGP")
		o.matches("r1 routing table", rt, `10\.3\.0\.0/24 +Static +200`)
		o.loss("r1", dst(h3IP), 0)
		// A capture on r2 shows r1's SYNs retried, and no SYN-ACK.
		o.later(30 * time.Second)
		c := o.bgpSegments("r2", r2Dn, 30*time.Second)
		syns := 0
		for _, p := range c.Packets {
			if p.Flags == "S" && p.Src == "10.0.12.1" && p.DstPort == 179 && p.Direction == "in" {
				syns++
			}
			if strings.Contains(p.Flags, "S.") || p.Src == "10.0.12.2" {
				o.t.Errorf("r2 answers r1's SYN: %+v", p)
			}
		}
		if syns < 2 {
			o.t.Errorf("capture on r2 %s: %d SYNs from r1, want retries:\n%s", r2Dn, syns, c.Summary)
		}
		o.matches("r2 show interfaces", o.cli("r2", "show interfaces "+r2Dn), `[1-9][0-9]* total input drops`)
	}},
	{"bgp_asn_misconfig r2 neighbor=10.0.12.1", func(o *opsLab) {
		o.wantBGP("r1", "10.0.12.2", "IDLE", "OPEN Message Error/Bad Peer AS")
		o.wantBGP("r2", "10.0.12.1", "IDLE", "OPEN Message Error/Bad Peer AS")
		st := o.bgpNeighbor("r1", "10.0.12.2")
		if m, _ := st["messages"].(map[string]any); m == nil || !strings.Contains(toJSON(m), "BAD_PEER_AS") || !strings.Contains(toJSON(m), "OPEN_MESSAGE_ERROR") {
			o.t.Errorf("r1 neighbor 10.0.12.2 messages: %v, want OPEN_MESSAGE_ERROR/BAD_PEER_AS", st["messages"])
		}
		o.has("r2 show bgp neighbor", o.cli("r2", "show bgp neighbor 10.0.12.1"), "Remote AS 66001", "BGP state = Idle", "OPEN Message Error/Bad Peer AS")
		o.matches("r1 display bgp peer", o.cli("r1", "display bgp peer"), `10\.0\.12\.2 .* Idle`)
		o.has("r2 syslog", o.syslog("r2"), "neighbor 10.0.12.1 Down - OPEN Message Error/Bad Peer AS")
		o.wantOSPF("r1", r2RID, "FULL", "")
		// TCP comes up; r2 answers r1's OPEN with a NOTIFICATION (21 bytes) and closes.
		o.later(30 * time.Second)
		c := o.bgpSegments("r1", r1Up, 30*time.Second)
		o.has("capture on r1 port 179", c.Summary, "10.0.12.2.179 > 10.0.12.1", "Flags [S.]", "length 21: BGP", "Flags [F.]")
	}},
	{"bgp_missing_route_advertisement r3", func(o *opsLab) {
		o.lacks("r1 display bgp routing-table", o.cli("r1", "display bgp routing-table"), "10.3.0.0")
		o.lacks("r2 show bgp", o.cli("r2", "show bgp"), "10.3.0.0")
		o.wantBGP("r1", "10.0.12.2", "ESTABLISHED", "")
		o.wantBGP("r2", r3RID, "ESTABLISHED", "")
		o.lacks("r3 running configuration", o.cli("r3", "display current-configuration"), "network 10.3.0.0")
		o.matches("r1 routing table", o.cli("r1", "display ip routing-table"), `10\.3\.0\.0/24 +Static +200`)
	}},
	{"dns_port_blocked h3", func(o *opsLab) {
		// Queries from afar die at h3's firewall: dig times out; h3 still pings.
		o.has("r1 dns_lookup", o.dnsLookup("r1", "r3.lab.example"), "timed out")
		o.loss("r3", dst(h3IP), 0)
	}},
	{"dns_record_error h3", func(o *opsLab) {
		o.has("h3 dig", o.cli("h3", "dig r1.lab.example"), "status: NOERROR", "r1.lab.example.\t\t300\tIN\tA\t192.0.2.1")
		o.has("r1 dns_lookup", o.dnsLookup("r1", "r1.lab.example"), "192.0.2.1")
		o.has("h3 dig r2", o.cli("h3", "dig r2.lab.example"), "10.255.0.2")
		o.has("h3 zone file", o.cli("h3", "cat /etc/bind/db.lab.example"), "\nr1\t\tIN\tA\t192.0.2.1\n")
	}},
	{"dns_service_down h3", func(o *opsLab) {
		o.has("h3 dig", o.cli("h3", "dig r1.lab.example"), "communications error to 10.3.0.10#53: connection refused", "no servers could be reached")
		o.has("r1 dns_lookup", o.dnsLookup("r1", "r1.lab.example"), "connection refused")
		o.loss("r1", dst(h3IP), 0)
	}},
	{"frr_service_down r2", func(o *opsLab) {
		o.wantBGP("r1", "10.0.12.2", "ACTIVE", "Hold Timer Expired")
		o.wantBGP("r3", r2RID, "ACTIVE", "Hold Timer Expired")
		o.wantOSPF("r1", r2RID, "DOWN", "Dead timer expired")
		o.wantOSPF("r3", r2RID, "DOWN", "Dead timer expired")
		o.has("r2 show bgp summary", o.cli("r2", "show bgp summary"), "not active")
		rt := o.cli("r1", "display ip routing-table")
		o.lacks("r1 routing table", rt, "OSPF", "EBGP", "10.255.0.3/32")
		o.has("r1 syslog", o.syslog("r1"), "NeighborCurrentState=Down", "CurrState=Active")
		o.has("r3 syslog", o.syslog("r3"), "NeighborAddress=10.255.0.2", "Dead timer expired")
		// The links stay up: r2 still answers on them.
		o.loss("r1", dst("10.0.12.2"), 0)
		if s := o.operStatus("r2", r2Dn); s != "UP" {
			o.t.Errorf("r2 %s oper-status %s, want UP", r2Dn, s)
		}
	}},
	{"host_crash h1", func(o *opsLab) {
		if text, _, isErr := o.call("h1", netproto.ToolCLIExec, map[string]any{"cmd": "ip addr"}); !isErr || !strings.Contains(text, "Unreachable") {
			o.t.Errorf("h1 answers while crashed: %s", text)
		}
		o.loss("r1", map[string]any{"destination": "10.0.0.5", "vrf": "mgmt"}, 100)
		o.has("r1 syslog", o.syslog("r1"), "Interface GigabitEthernet0/0/1 has turned into DOWN state")
		if s := o.operStatus("r1", "GigabitEthernet0/0/1"); s == "UP" {
			o.t.Errorf("r1 Gi0/0/1 to the crashed h1 is %s", s)
		}
	}},
	{"host_incorrect_dns h3", func(o *opsLab) {
		o.has("h3 resolv.conf", o.cli("h3", "cat /etc/resolv.conf"), "nameserver 10.3.0.1\n")
		o.has("h3 dig", o.cli("h3", "dig r1.lab.example"), "10.3.0.1#53: connection refused")
		o.has("h3 dig @10.3.0.10", o.cli("h3", "dig @10.3.0.10 r1.lab.example"), "status: NOERROR")
		o.loss("h3", dst("10.3.0.1"), 0)
	}},
	{"host_incorrect_gateway h3 gateway=10.3.0.99", func(o *opsLab) {
		o.has("h3 ip route", o.cli("h3", "ip route"), "default via 10.3.0.99 dev eth0")
		o.loss("h3", dst("10.3.0.1"), 0)
		o.loss("h3", dst(r1RID), 100)
		o.has("h3 ip neigh", o.cli("h3", "ip neigh"), "10.3.0.99 dev eth0 FAILED")
		o.loss("r1", dst(h3IP), 100) // the replies go nowhere
		o.loss("r3", dst(h3IP), 0)   // on-link still works
	}},
	{"host_incorrect_ip h3", func(o *opsLab) {
		o.has("h3 ip addr", o.cli("h3", "ip addr"), "inet 10.3.1.10/24")
		o.lacks("r3 display arp", o.cli("r3", "display arp"), h3IP)
		o.loss("r3", dst(h3IP), 100)
		o.has("h3 ping", o.ping("h3", dst("10.3.0.1")).Text, "Network is unreachable")
	}},
	{"host_incorrect_netmask h3", func(o *opsLab) {
		o.has("h3 ip addr", o.cli("h3", "ip addr"), "inet 10.3.0.10/30")
		o.has("h3 ip route", o.cli("h3", "ip route"), "10.3.0.8/30 dev eth0")
		o.has("h3 ping", o.ping("h3", dst("10.3.0.1")).Text, "Network is unreachable")
		o.loss("r1", dst(h3IP), 100)
	}},
	{"host_ip_conflict h3", func(o *opsLab) {
		o.has("h3 ip addr", o.cli("h3", "ip addr"), "inet 10.3.0.1/24")
		o.has("r3 syslog", o.syslog("r3"), "ARP_DUPLICATE_IPADDR", "IpAddress=10.3.0.1", "MacAddress=0050-5612-3456")
		o.loss("r3", dst(h3IP), 100)
		// r3 finds nobody at 10.3.0.10 (ARP fails): host unreachable.
		o.has("r1 dns_lookup", o.dnsLookup("r1", "r1.lab.example"), "10.3.0.10#53: host unreachable")
	}},
	{"host_missing_ip h1", func(o *opsLab) {
		o.lacks("h1 ip addr", o.cli("h1", "ip addr"), "inet 10.")
		if rt := o.cli("h1", "ip route"); strings.TrimSpace(rt) != "" {
			o.t.Errorf("h1 ip route with no address: %q", rt)
		}
		o.loss("r1", map[string]any{"destination": "10.0.0.5", "vrf": "mgmt"}, 100)
		o.lacks("r1 display arp", o.cli("r1", "display arp"), "10.0.0.5 ")
	}},
	{"host_static_blackhole h1", func(o *opsLab) {
		o.has("h1 ip route", o.cli("h1", "ip route"), "blackhole 10.3.0.0/24")
		r := o.ping("h1", dst(h3IP))
		o.has("h1 ping", r.Text, "ping: connect: Invalid argument")
		o.has("h1 traceroute", o.traceroute("h1", dst(h3IP)), "Invalid argument")
		o.loss("h1", dst("10.0.0.1"), 0)
		o.loss("h1", dst("192.168.1.1"), 0) // r1's mgmt loopback, in h1's VRF
	}},
	{"http_acl_block r3:GigabitEthernet0/0/1 port=8080", func(o *opsLab) {
		o.has("r3 running configuration", o.cli("r3", "display current-configuration"), "NIKA-HTTP-BLOCK", "8080")
		o.loss("r3", dst(h3IP), 0) // ICMP is not blocked
		o.loss("r1", dst(h3IP), 0)
	}},
	{"icmp_acl_block r2:GigabitEthernet0/0/0/0", func(o *opsLab) {
		o.loss("r1", dst("10.0.12.2"), 100)
		o.loss("r1", dst(h3IP), 100)
		// Routing is intact.
		o.wantBGP("r1", "10.0.12.2", "ESTABLISHED", "")
		o.wantOSPF("r1", r2RID, "FULL", "")
		o.matches("r1 routing table", o.cli("r1", "display ip routing-table"), `10\.3\.0\.0/24 +EBGP`)
		if c := o.counters("r2", r2Dn); c["in-discards"] < 10 {
			o.t.Errorf("r2 %s in-discards %v after 10 dropped echoes", r2Dn, c["in-discards"])
		}
		o.has("r2 show interfaces", o.cli("r2", "show interfaces "+r2Dn), "10 total input drops")
	}},
	{"link_bandwidth_throttling r1:GigabitEthernet0/0/0", func(o *opsLab) {
		r := o.ping("r1", map[string]any{"destination": "10.0.12.2", "packetSize": 1400})
		var st struct {
			RTT struct {
				Max *float64 `json:"max"`
			} `json:"rtt"`
		}
		_ = json.Unmarshal([]byte(r.Text), &st)
		if r.Loss == 0 && (st.RTT.Max == nil || *st.RTT.Max < 100) {
			o.t.Errorf("r1 ping across a 64 kbit/s link: no loss and max RTT %v ms: %s", st.RTT.Max, r.Text)
		}
	}},
	{"link_detach r3:GigabitEthernet0/0/1", func(o *opsLab) {
		if s := o.operStatus("r3", r3LAN); s == "UP" {
			o.t.Errorf("r3 %s oper-status %s, want down", r3LAN, s)
		}
		o.has("r3 syslog", o.syslog("r3"), "GigabitEthernet0/0/1 has entered the DOWN state")
		// h3's end stays attached to the segment: up, but hearing nothing.
		o.lacks("h3 ip link", o.cli("h3", "ip link"), "NO-CARRIER")
		o.loss("r1", dst(h3IP), 100)
		o.lacks("r3 routing table", o.cli("r3", "display ip routing-table"), "10.3.0.0/24")
	}},
	{"link_down r1:GigabitEthernet0/0/0", func(o *opsLab) {
		for _, e := range [][2]string{{"r1", r1Up}, {"r2", r2Dn}} {
			if s := o.operStatus(e[0], e[1]); s == "UP" {
				o.t.Errorf("%s %s oper-status %s", e[0], e[1], s)
			}
		}
		// FRR: the peer's address is no longer connected.
		o.wantBGP("r1", "10.0.12.2", "ACTIVE", "Waiting for NHT")
		if st, _ := o.ospfNeighbor("r2", r1RID); st == "FULL" {
			o.t.Errorf("r2 still Full with r1 over a down link")
		}
		o.has("r1 ping", o.ping("r1", dst(h3IP)).Text, "Network is unreachable")
		o.has("r2 syslog", o.syslog("r2"), "Line protocol on Interface GigabitEthernet0/0/0/0, changed state to down")
		o.wantOSPF("r2", r3RID, "FULL", "") // the other side is untouched
	}},
	{"link_flap r2:GigabitEthernet0/0/0/1 period=10 down=3", func(o *opsLab) {
		// The lab clock starts on a period: down for 3 s, up for 7 s.
		if st, _ := o.ospfNeighbor("r2", r3RID); st == "FULL" {
			o.t.Errorf("r2-r3 Full while the link is down")
		}
		if s := o.operStatus("r2", r2Up); s == "UP" {
			o.t.Errorf("r2 %s up in the down phase", r2Up)
		}
		o.later(5 * time.Second)
		o.wantOSPF("r2", r3RID, "FULL", "")
		o.wantBGP("r2", r3RID, "ESTABLISHED", anyError)
		o.later(6 * time.Second)
		if s := o.operStatus("r2", r2Up); s == "UP" {
			o.t.Errorf("r2 %s up in the second down phase", r2Up)
		}
		log := o.syslog("r2")
		if n := strings.Count(log, "Line protocol on Interface GigabitEthernet0/0/0/1, changed state to down"); n < 2 {
			o.t.Errorf("r2 syslog: %d downs of %s, want 2:\n%s", n, r2Up, log)
		}
		o.has("r2 syslog", log, "Nbr 10.255.0.3 on GigabitEthernet0/0/0/1 in area 0 from DOWN to FULL")
	}},
	{"link_fragmentation_disabled r1:GigabitEthernet0/0/0", func(o *opsLab) {
		o.loss("r1", map[string]any{"destination": "10.0.12.2", "packetSize": 1450, "dontFragment": true}, 100)
		o.loss("r1", map[string]any{"destination": "10.0.12.2", "packetSize": 1300, "dontFragment": true}, 0)
		o.loss("r1", dst("10.0.12.2"), 0)
		o.matches("r1 display interface", o.cli("r1", "display interface "+r1Up), `Maximum Transmit Unit is 1400`)
	}},
	{"link_high_latency r1:GigabitEthernet0/0/0 delay-ms=200", func(o *opsLab) {
		r := o.loss("r1", dst("10.0.12.2"), 0)
		var st struct {
			RTT struct {
				Min *float64 `json:"min"`
			} `json:"rtt"`
		}
		_ = json.Unmarshal([]byte(r.Text), &st)
		if st.RTT.Min == nil || *st.RTT.Min < 400 {
			o.t.Errorf("r1 ping across +200 ms each way: min RTT %v", st.RTT.Min)
		}
		// As on the real lab: OSPF and BGP stay up.
		o.wantOSPF("r1", r2RID, "FULL", "")
		o.wantBGP("r1", "10.0.12.2", "ESTABLISHED", "")
	}},
	{"link_high_packet_corruption r1:GigabitEthernet0/0/0 percent=100 direction=out", func(o *opsLab) {
		o.loss("r1", dst("10.0.12.2"), 100)
		// Errors count at the receiver only.
		if c := o.counters("r2", r2Dn); c["in-errors"] == 0 {
			o.t.Errorf("r2 %s in-errors 0 while r1's frames arrive corrupted: %v", r2Dn, c)
		}
		if c := o.counters("r1", r1Up); c["in-errors"] != 0 {
			o.t.Errorf("r1 %s in-errors %v: r2's frames are not corrupted", r1Up, c["in-errors"])
		}
		// r2 hears no hello from r1; r1 hears r2's, which no longer list it.
		o.wantOSPF("r2", r1RID, "DOWN", "Dead timer expired")
		o.wantOSPF("r1", r2RID, "INIT", "one-way")
	}},
	{"mac_address_conflict h1", func(o *opsLab) {
		o.has("h1 ip addr", o.cli("h1", "ip addr"), "link/ether 02:70:82:11:d8:c8")
		o.matches("r1 display arp", o.cli("r1", "display arp"), `10\.0\.0\.5 +0270-8211-d8c8`)
		o.loss("r1", map[string]any{"destination": "10.0.0.5", "vrf": "mgmt"}, 100)
	}},
	{"mtu_mismatch r2:GigabitEthernet0/0/0/1 mtu=1400", func(o *opsLab) {
		o.wantOSPF("r2", r3RID, "EXSTART", "MTU 1500 is larger than [GigabitEthernet0/0/0/1]'s MTU 1400")
		if st, _ := o.ospfNeighbor("r3", r2RID); st != "EXSTART" && st != "EXCHANGE" {
			o.t.Errorf("r3's adjacency to r2: %q, want ExStart or Exchange", st)
		}
		o.matches("r2 show ospf neighbor", o.cli("r2", "show ospf neighbor"), `10\.255\.0\.3 +1 +EXSTART`)
		o.has("r2 syslog", o.syslog("r2"), "from FULL to EXSTART", "MTU 1500 is larger than [GigabitEthernet0/0/0/1]'s MTU 1400")
		o.loss("r2", map[string]any{"destination": "10.0.23.2", "packetSize": 1472, "dontFragment": true}, 100)
		o.loss("r2", dst("10.0.23.2"), 0)
		o.has("r1 ping", o.ping("r1", dst(r3RID)).Text, "Network is unreachable")
		o.wantBGP("r2", r3RID, "ACTIVE", "Hold Timer Expired")
	}},
	{"ospf_acl_block r2:GigabitEthernet0/0/0/1", func(o *opsLab) {
		o.wantOSPF("r2", r3RID, "DOWN", "Dead timer expired")
		o.wantOSPF("r3", r2RID, "INIT", "one-way")
		o.has("r3 display ospf peer", o.cli("r3", "display ospf peer"), "State: Init")
		o.has("r2 syslog", o.syslog("r2"), "from FULL to DOWN, Dead timer expired")
		o.later(30 * time.Second)
		c := o.capture("r2", map[string]any{"interface": r2Up, "protocol": "ospf", "durationSeconds": 30})
		var in, out int
		for _, p := range c.Packets {
			switch {
			case p.Direction == "in" && p.Src == "10.0.23.2":
				in++
			case p.Direction == "out" && p.Src == "10.0.23.1":
				out++
			}
		}
		if in < 2 || out < 2 {
			o.t.Errorf("capture on r2 %s: %d hellos in, %d out; want both ways (the ACL drops after capture):\n%s", r2Up, in, out, c.Summary)
		}
		o.matches("r2 show interfaces", o.cli("r2", "show interfaces "+r2Up), `[1-9][0-9]* total input drops`)
	}},
	{"ospf_area_misconfiguration r3:GigabitEthernet0/0/0", func(o *opsLab) {
		o.wantOSPF("r2", r3RID, "DOWN", "invalid Area ID 0.0.0.1")
		o.wantOSPF("r3", r2RID, "DOWN", "invalid Area ID 0.0.0.0")
		o.has("r3 display ospf peer", o.cli("r3", "display ospf peer"), "Area 0.0.0.1")
		o.has("r2 syslog", o.syslog("r2"), "area mismatch", "ospf_read invalid Area ID 0.0.0.1 from 10.0.23.2")
		rt := o.cli("r1", "display ip routing-table")
		o.lacks("r1 routing table", rt, "10.255.0.3/32", "EBGP")
		o.wantBGP("r2", r3RID, "ACTIVE", "Hold Timer Expired")
	}},
	{"ospf_neighbor_missing r2:GigabitEthernet0/0/0/1", func(o *opsLab) {
		o.wantOSPF("r2", r3RID, "", "")
		o.wantOSPF("r3", r2RID, "DOWN", "Dead timer expired")
		o.lacks("r2 show ospf neighbor", o.cli("r2", "show ospf neighbor"), "10.255.0.3")
		o.lacks("r2 OSPF YANG", o.yang("r2", ospfAreas), `"id":"GigabitEthernet0/0/0/1"`)
		o.lacks("r1 routing table", o.cli("r1", "display ip routing-table"), "10.255.0.3/32")
	}},
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestFaultSymptoms injects each fault of the catalog into the default
// lab and checks what an operator sees through MCP sessions to the
// devices (routers and hosts): YANG, show commands, ping, traceroute,
// dns_lookup, captures, counters and syslog.
func TestFaultSymptoms(t *testing.T) {
	for _, name := range topology.FaultNames() {
		if !slices.ContainsFunc(symptomRows, func(r symptomRow) bool { return strings.HasPrefix(r.fault, name+" ") }) {
			t.Errorf("no symptom row for fault %s", name)
		}
	}
	for _, row := range symptomRows {
		t.Run(strings.Fields(row.fault)[0], func(t *testing.T) {
			o := newOpsLab(t)
			f, err := topology.ParseFault(row.fault)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := o.lab.Inject(f); err != nil {
				t.Fatalf("Inject %s: %v", row.fault, err)
			}
			row.check(o)
		})
	}
}
