package real

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pingLoss matches ping's summary ("20 packets transmitted, 9 received").
var pingLoss = regexp.MustCompile(`(\d+) packets transmitted, (\d+) received`)

// TestRealLabExtraFaults builds the default topology (as root) and, for
// each fault of faults_more_extra.go, injects it, waits for its symptom as
// the kernel shows it, clears it and waits for the symptom to go.
func TestRealLabExtraFaults(t *testing.T) {
	ctx, l, exec := upFaultLab(t, "x", 3*time.Minute)
	linux := func(dev, iface string) string {
		n, ok := l.LinuxName(dev, iface)
		if !ok {
			t.Fatalf("%s has no interface %s", dev, iface)
		}
		return n
	}
	r2r3, r3r2, r3lan := linux("r2", "GigabitEthernet0/0/0/1"), linux("r3", "GigabitEthernet0/0/0"), linux("r3", "GigabitEthernet0/0/1")
	// received counts the replies of 20 quick pings from r2 to r3 across
	// their link.
	received := func() (int, string) {
		s := exec("r2", "ping", "-n", "-q", "-c", "20", "-i", "0.02", "-W", "1", "10.0.23.2")
		var sent, got int
		if m := pingLoss.FindStringSubmatch(s); m != nil {
			fmt.Sscan(m[1], &sent)
			fmt.Sscan(m[2], &got)
		}
		return got, s
	}
	mac := func(dev, ifname string) string {
		return strings.TrimSpace(exec(dev, "cat", "/sys/class/net/"+ifname+"/address"))
	}
	r3MAC := mac("r3", r3lan)
	digR1 := func() string {
		return exec("r1", "dig", "+short", "+time=1", "+tries=1", "@10.3.0.10", "r1.lab.example")
	}
	for _, tc := range []struct {
		fault   string
		faulty  func() (bool, string) // the symptom shows
		healthy func() (bool, string) // the symptom is gone
	}{
		// Each ping crosses two lossy ingresses (both ends): most are lost.
		{"link_high_packet_corruption r2:GigabitEthernet0/0/0/1 percent=50",
			func() (bool, string) { n, s := received(); return n < 20, s },
			func() (bool, string) { n, s := received(); return n == 20, s }},
		// The lab's background load (about 100 kbit/s each way) overflows
		// both 64 kbit/s queues: each shaper drops.
		{"link_bandwidth_throttling r2:GigabitEthernet0/0/0/1 rate=64",
			func() (bool, string) {
				a, b := exec("r2", "tc", "-s", "qdisc", "show", "dev", r2r3), exec("r3", "tc", "-s", "qdisc", "show", "dev", r3r2)
				s := a + b
				return strings.Count(s, "tbf") == 2 && strings.Contains(s, "rate 64Kbit") && qdiscDrops(a) > 0 && qdiscDrops(b) > 0, s
			},
			func() (bool, string) {
				s := exec("r2", "tc", "qdisc", "show", "dev", r2r3) + exec("r3", "tc", "qdisc", "show", "dev", r3r2)
				l.mu.Lock()
				loads := len(l.loads)
				l.mu.Unlock()
				return !strings.Contains(s, "tbf") && loads == 0, fmt.Sprintf("%s; %d background loads running", s, loads)
			}},
		{"host_ip_conflict h3",
			func() (bool, string) {
				s := exec("h3", "ip", "-4", "addr")
				return strings.Contains(s, "10.3.0.1/24"), s
			},
			func() (bool, string) {
				s := exec("h3", "ip", "-4", "addr") + exec("h3", "ip", "route", "show", "default")
				return strings.Contains(s, "10.3.0.10/24") && strings.Contains(s, "default via 10.3.0.1"), s
			}},
		{"mac_address_conflict h3",
			func() (bool, string) { s := mac("h3", "eth0"); return s == r3MAC, s + " vs r3's " + r3MAC },
			func() (bool, string) { s := mac("h3", "eth0"); return s == "00:50:56:12:34:56", s }},
		{"dns_record_error h3",
			func() (bool, string) {
				s := digR1()
				return strings.TrimSpace(s) != "10.255.0.1" && !strings.Contains(s, "error"), s
			},
			func() (bool, string) { s := digR1(); return strings.TrimSpace(s) == "10.255.0.1", s }},
	} {
		f := fault(t, tc.fault)
		if err := l.InjectFault(ctx, f); err != nil {
			t.Errorf("%s: %v", tc.fault, err)
			continue
		}
		waitFor(t, 10*time.Second, tc.fault+": symptom", tc.faulty)
		if err := l.ClearFault(ctx, f); err != nil {
			t.Fatalf("clearing %s: %v", tc.fault, err)
		}
		waitFor(t, 15*time.Second, tc.fault+" cleared", tc.healthy)
	}
}

// qdiscDrops reads the dropped count of `tc -s qdisc show` output (-1
// when there is none).
func qdiscDrops(s string) int {
	m := regexp.MustCompile(`dropped (\d+)`).FindStringSubmatch(s)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
