package real

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// dropped matches an nftables rule that has dropped packets.
var dropped = regexp.MustCompile(`counter packets [1-9]`)

// TestRealLabMoreFaults builds the default topology (as root) and, for
// each fault of faults_more.go, injects it, waits for its symptom as FRR
// or the kernel shows it, clears it and waits for the symptom to go.
func TestRealLabMoreFaults(t *testing.T) {
	ctx, l, exec := upFaultLab(t, "m", 4*time.Minute)
	bgp := func(r, peer string) string {
		st, err := l.BGPStates(ctx, r)
		if err != nil {
			return err.Error()
		}
		return st[peer]
	}
	bgpRoute := func(r, prefix string) string {
		out, err := l.Vtysh(ctx, r, "show bgp ipv4 unicast "+prefix+" json")
		if err != nil {
			return fmt.Sprintf("%s error %v", out, err)
		}
		return string(out)
	}
	for _, tc := range []struct {
		fault   string
		wait    time.Duration
		faulty  func() (bool, string) // the symptom shows
		healthy func() (bool, string) // the symptom is gone
	}{
		{"bgp_asn_misconfig r1 neighbor=10.0.12.2 remote-as=65099", 20 * time.Second,
			func() (bool, string) { s := bgp("r1", "10.0.12.2"); return s != "Established", s },
			func() (bool, string) { s := bgp("r1", "10.0.12.2"); return s == "Established", s }},
		{"bgp_missing_route_advertisement r3", 30 * time.Second,
			func() (bool, string) { s := bgpRoute("r1", "10.3.0.0/24"); return !strings.Contains(s, `"paths"`), s },
			func() (bool, string) { s := bgpRoute("r1", "10.3.0.0/24"); return strings.Contains(s, `"paths"`), s }},
		{"ospf_area_misconfiguration r3:GigabitEthernet0/0/0", 20 * time.Second,
			func() (bool, string) {
				n, err := l.OSPFFull(ctx, "r3")
				return err == nil && n == 0, fmt.Sprint(n, err)
			},
			func() (bool, string) { n, err := l.OSPFFull(ctx, "r3"); return n > 0, fmt.Sprint(n, err) }},
		// OSPF's dead interval (40 s after convergence) is too long to
		// wait here: the rule's counter shows the dropped hellos.
		{"ospf_acl_block r3:GigabitEthernet0/0/0", 25 * time.Second,
			func() (bool, string) {
				s := exec("r3", "nft", "list", "table", "inet", "netmcp_ospf_acl_block_gi0_0_0")
				return dropped.MatchString(s), s
			},
			func() (bool, string) {
				s := exec("r3", "nft", "list", "ruleset")
				return !strings.Contains(s, "netmcp_ospf"), s
			}},
		{"http_acl_block r3:GigabitEthernet0/0/1 port=8080", 5 * time.Second,
			func() (bool, string) {
				s := exec("r3", "nft", "list", "ruleset")
				return strings.Contains(s, "tcp dport 8080 counter packets 0 bytes 0 drop"), s
			},
			func() (bool, string) {
				s := exec("r3", "nft", "list", "ruleset")
				return !strings.Contains(s, "8080"), s
			}},
		{"link_flap r2:GigabitEthernet0/0/0/1 period=4 down=2", 10 * time.Second,
			func() (bool, string) {
				s := exec("r3", "ip", "link", "show", "gi0-0-0")
				return strings.Contains(s, "NO-CARRIER") || strings.Contains(s, "state DOWN"), s
			},
			func() (bool, string) {
				s := exec("r3", "ip", "link", "show", "gi0-0-0")
				return strings.Contains(s, "state UP"), s
			}},
		{"host_incorrect_gateway h3 gateway=10.3.0.99", 5 * time.Second,
			func() (bool, string) {
				s := exec("h3", "ip", "route", "show", "default")
				return strings.Contains(s, "10.3.0.99"), s
			},
			func() (bool, string) {
				s := exec("h3", "ip", "route", "show", "default")
				return strings.Contains(s, "10.3.0.1 "), s
			}},
		{"host_missing_ip h3", 5 * time.Second,
			func() (bool, string) {
				s := exec("h3", "ip", "-4", "addr")
				return !strings.Contains(s, "10.3.0.10"), s
			},
			func() (bool, string) {
				s := exec("h3", "ip", "-4", "addr") + exec("h3", "ip", "route", "show", "default")
				return strings.Contains(s, "10.3.0.10/24") && strings.Contains(s, "default via"), s
			}},
		{"host_incorrect_netmask h3 prefix-length=30", 5 * time.Second,
			func() (bool, string) {
				s := exec("h3", "ip", "-4", "addr")
				return strings.Contains(s, "10.3.0.10/30"), s
			},
			func() (bool, string) {
				s := exec("h3", "ip", "-4", "addr") + exec("h3", "ip", "route", "show", "default")
				return strings.Contains(s, "10.3.0.10/24") && strings.Contains(s, "default via 10.3.0.1"), s
			}},
		{"host_incorrect_dns h1 server=192.0.2.53", 5 * time.Second,
			func() (bool, string) {
				s := exec("h1", "cat", "/etc/resolv.conf")
				return strings.Contains(s, "192.0.2.53"), s
			},
			func() (bool, string) {
				s := exec("h1", "cat", "/etc/resolv.conf")
				return !strings.Contains(s, "192.0.2.53"), s
			}},
		{"dns_service_down h3", 10 * time.Second,
			func() (bool, string) { s := exec("h3", "ss", "-lnu"); return !strings.Contains(s, ":53 "), s },
			func() (bool, string) { s := exec("h3", "ss", "-lnu"); return strings.Contains(s, ":53 "), s }},
		{"dns_port_blocked h3", 5 * time.Second,
			func() (bool, string) {
				s := exec("h1", "dig", "+time=1", "+tries=1", "@10.3.0.10", "lab.example", "SOA")
				return strings.Contains(s, "timed out") || strings.Contains(s, "no servers"), s
			},
			func() (bool, string) {
				s := exec("h1", "dig", "+time=1", "+tries=1", "@10.3.0.10", "lab.example", "SOA")
				return strings.Contains(s, "status: NOERROR"), s
			}},
	} {
		f := fault(t, tc.fault)
		if err := l.InjectFault(ctx, f); err != nil {
			t.Errorf("%s: %v", tc.fault, err)
			continue
		}
		waitFor(t, tc.wait, tc.fault+": symptom", tc.faulty)
		if err := l.ClearFault(ctx, f); err != nil {
			t.Fatalf("clearing %s: %v", tc.fault, err)
		}
		if waitFor(t, 40*time.Second, tc.fault+" cleared", tc.healthy) >= 40*time.Second {
			// What the next rows would meet: the path and the DNS service.
			t.Logf("after %s: h1 -> h3 ping:\n%s\nh3 UDP sockets:\n%s\nroutes to h3: r1 %s r2 %s r3 %s\nroutes back to h1: r3 %s r2 %s\nh3's routes:\n%s\nh3 nftables:\n%s\nr2 nftables:\n%s\nr3 nftables:\n%s",
				tc.fault, exec("h1", "ping", "-c", "1", "-W", "1", "10.3.0.10"), exec("h3", "ss", "-lnup"),
				exec("r1", "ip", "route", "get", "10.3.0.10"), exec("r2", "ip", "route", "get", "10.3.0.10"), exec("r3", "ip", "route", "get", "10.3.0.10"),
				exec("r3", "ip", "route", "get", "10.0.0.10"), exec("r2", "ip", "route", "get", "10.0.0.10"),
				exec("h3", "ip", "route"), exec("h3", "nft", "list", "ruleset"), exec("r2", "nft", "list", "ruleset"), exec("r3", "nft", "list", "ruleset"))
			for _, c := range []string{"show ip route", "show ip ospf neighbor", "show ip ospf interface", "show interface brief"} {
				out, err := l.Vtysh(ctx, "r3", c)
				t.Logf("r3: %s: %v\n%s", c, err, out)
			}
			t.Logf("r3 links:\n%s", exec("r3", "ip", "-br", "link"))
		}
	}
}

// upFaultLab builds the default topology with fast BGP timers (as root;
// the test skips otherwise) for a fault test of at most timeout, closed
// when the test ends, and returns its context, the lab and exec, which
// runs a command on a device and returns its output, or the output and
// the error.
func upFaultLab(t *testing.T, prefix string, timeout time.Duration) (context.Context, *Lab, func(dev string, argv ...string) string) {
	t.Helper()
	needRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	l, err := Up(ctx, fastBGP(), Options{Prefix: testPrefix(prefix), ConvergeTimeout: 60 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	exec := func(dev string, argv ...string) string {
		out, err := l.Exec(ctx, dev, argv...)
		if err != nil {
			return fmt.Sprintf("%s error %v", out, err)
		}
		return string(out)
	}
	return ctx, l, exec
}
